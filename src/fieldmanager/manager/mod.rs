//! The apiserver-side field manager (k8s.io/apimachinery/pkg/util/managedfields/internal's
//! `FieldManager` and its manager chain) as plain functions over JSON objects.
//!
//! # Layout
//!
//! - `error`: [`Error`] with kube's texts and status codes, and `GroupVersionKind` texts.
//! - `versions`: [`CrdVersions`] (the CRD's types per served version, `None` conversion)
//!   and the CRD's reset fields ([`ResetFields`]).
//! - `converted`: [`Converted`], the converter of a resource with a webhook or declarative
//!   converter (a table of conversions made beforehand), and [`converge`], the runs that
//!   fill it.
//! - `update`: [`FieldManager::update`] (create, update, patch, subresource writes).
//! - `apply`: [`FieldManager::apply`] (server-side apply).
//! - `lastapplied`: the `kubectl.kubernetes.io/last-applied-configuration` handling
//!   (`lastAppliedManager`, `lastAppliedUpdater`).
//! - `scale`: [`ScaleHandler`] (upstream's `managedfields.ScaleHandler`): `/scale` managedFields.
//!
//! Kube's chain (`NewDefaultFieldManager`), outermost first: versionCheck, lastAppliedUpdater,
//! lastAppliedManager, skipNonApplied, capManagers, buildManagerInfo, managedFieldsUpdater,
//! stripMeta, structuredMerge. Each step lives in the function of the same name here.
//! Objects are held at the request's version; converting them there (and defaulting the
//! result of an apply) is the caller's job.

mod apply;
mod converted;
mod error;
mod lastapplied;
mod scale;
mod update;
mod versions;

#[cfg(test)]
mod tests;

use serde_json::{Value, json};

use super::fieldpath::Set;
use super::merge::{Converter, Filter, Updater};
use super::typed::TypeRef;

pub use converted::{Conversion, Converted, Miss, PENDING, converge, max_runs};
pub use error::{Error, gvk_string, object_gvknn};
pub use lastapplied::{LAST_APPLIED_CONFIG_ANNOTATION, build_last_applied, set_last_applied};
pub use scale::{ResourcePathMappings, ScaleHandler, replicas_path, replicas_path_mappings};
pub use versions::{CrdVersions, ResetFields, main_reset_fields, status_reset_fields};

/// The manager recorded for what an object held before its first apply.
pub const BEFORE_FIRST_APPLY: &str = "before-first-apply";

/// The manager name whose applies get kube's client-side apply migration.
pub const KUBECTL: &str = "kubectl";

/// One scope's field manager (kube builds one per version and subresource).
pub struct FieldManager<'a> {
    /// The CRD's types per version (`group/version`) and conversion between them.
    pub converter: &'a dyn Converter,
    /// The request's `group/version`; objects passed in are at this version.
    pub api_version: &'a str,
    pub kind: &'a str,
    /// `""`, `"status"` or `"scale"`.
    pub subresource: &'a str,
    /// Per version, the fields no manager may own in this scope.
    pub reset_fields: &'a ResetFields,
}

impl FieldManager<'_> {
    /// `ObjectCreater.New(kind)`: what a create starts from.
    fn empty_object(&self) -> Value {
        json!({"apiVersion": self.api_version, "kind": self.kind})
    }

    /// The request version's type (`no corresponding type` when not served).
    fn type_ref(&self) -> Result<&TypeRef, String> {
        self.converter.type_at(self.api_version).ok_or_else(|| {
            format!(
                "no corresponding type for {}",
                gvk_string(self.api_version, self.kind)
            )
        })
    }

    /// smd's updater with this scope's reset fields as ignore filters.
    fn updater(&self) -> Updater<'_> {
        let mut updater = Updater::new(self.converter);
        for (version, exclude) in self.reset_fields {
            let filter: Filter = Box::new(move |s: &Set| s.recursive_difference(exclude));
            updater.ignore.insert(version.clone(), filter);
        }
        updater
    }
}

/// `RemoveObjectManagedFields`.
fn remove_managed_fields(object: &mut Value) {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
}
