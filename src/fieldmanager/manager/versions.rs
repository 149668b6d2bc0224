//! The CRD's types per served version with the `None` conversion strategy, and the
//! reset fields of the custom resource strategies (`GetResetFields`).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::fieldmanager::fieldpath::{PathElement, Set};
use crate::fieldmanager::merge::Converter;
use crate::fieldmanager::typed::TypeRef;

/// Per `group/version`, the fields no manager may own there (`NewExcludeFilterSetMap`).
pub type ResetFields = BTreeMap<String, Set>;

/// A CRD's served versions (`group/version` → type); conversion only rewrites
/// `apiVersion`, as the `None` strategy does.
#[derive(Clone, Debug, Default)]
pub struct CrdVersions {
    pub types: BTreeMap<String, TypeRef>,
}

impl CrdVersions {
    pub fn new(types: impl IntoIterator<Item = (String, TypeRef)>) -> CrdVersions {
        CrdVersions {
            types: types.into_iter().collect(),
        }
    }
}

impl Converter for CrdVersions {
    fn type_at(&self, version: &str) -> Option<&TypeRef> {
        self.types.get(version)
    }

    fn convert(&self, object: &Value, _from: &str, to: &str) -> Result<Value, String> {
        let mut out = object.clone();
        if let Some(map) = out.as_object_mut() {
            map.insert("apiVersion".to_string(), Value::String(to.to_string()));
        }
        Ok(out)
    }
}

fn top_level(fields: &[&str]) -> Set {
    let mut set = Set::new();
    for f in fields {
        set.insert(&[PathElement::field(*f)]);
    }
    set
}

/// `customResourceStrategy.GetResetFields`: with a status subresource, writes to the
/// main resource at `version` may not own `.status` (only that version is listed).
pub fn main_reset_fields(version: &str, has_status: bool) -> ResetFields {
    let mut out = ResetFields::new();
    if has_status {
        out.insert(version.to_string(), top_level(&["status"]));
    }
    out
}

/// `getStatusResetFields`: for every version with a status subresource, `/status` writes
/// may not own `.metadata` or `.spec`.
pub fn status_reset_fields<'v>(
    versions_with_status: impl IntoIterator<Item = &'v str>,
) -> ResetFields {
    versions_with_status
        .into_iter()
        .map(|v| (v.to_string(), top_level(&["metadata", "spec"])))
        .collect()
}
