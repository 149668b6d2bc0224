//! The request's object and old object in each version a policy matched the request at
//! (kube's `versionedAttributeAccessor` / `NewVersionedAttributes`): converted through the
//! resource's converter (`admission::convert`, both objects in one call) once per
//! version, when the selection reaches the point kube converts at (see
//! [`Versioning`](super::kind::Versioning)). kube keeps only successes: a failed version is
//! tried again by the next binding that needs it.

use serde_json::Value;

use crate::admission::Attributes;
use crate::admission::webhook::matching::Gvk;

/// The objects at one version other than the request's.
#[derive(Clone, Debug, PartialEq)]
pub struct Versioned {
    /// `group/version`.
    pub api_version: String,
    pub object: Option<Value>,
    pub old_object: Option<Value>,
}

/// The conversions of one request, made on demand.
pub struct Versions<'r, 'a> {
    attributes: &'r Attributes<'a>,
    object: Option<&'r Value>,
    pub converted: Vec<Versioned>,
}

/// `group/version` of `kind` (`version` for the core group).
pub fn api_version_of(kind: &Gvk) -> String {
    match kind.group.as_str() {
        "" => kind.version.clone(),
        group => format!("{group}/{}", kind.version),
    }
}

impl<'r, 'a> Versions<'r, 'a> {
    pub fn new(attributes: &'r Attributes<'a>, object: Option<&'r Value>) -> Versions<'r, 'a> {
        Versions {
            attributes,
            object,
            converted: Vec::new(),
        }
    }

    /// The objects at `kind`'s version made (nothing to do at the request's version).
    /// Err: the converter's message.
    pub async fn at(&mut self, kind: &Gvk) -> Result<(), String> {
        let kind_of_request = &self.attributes.kind;
        let same = kind.group == kind_of_request.group && kind.version == kind_of_request.version;
        let api_version = api_version_of(kind);
        if same || self.converted.iter().any(|v| v.api_version == api_version) {
            return Ok(());
        }
        let objects = [self.object, self.attributes.old_object];
        let [object, old_object] =
            crate::admission::convert::versioned(self.attributes, objects, &api_version).await?;
        self.converted.push(Versioned {
            api_version,
            object: object.map(|o| o.into_owned()),
            old_object: old_object.map(|o| o.into_owned()),
        });
        Ok(())
    }
}
