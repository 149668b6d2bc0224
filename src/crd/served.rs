//! A stored object as one served version shows it: pruned and defaulted by that
//! version's schema, with the version's apiVersion, the resource's kind and the
//! resourceVersion of its revision (conversion `None`). The handlers serve objects
//! through it; admission reads our own resources as policy params through it.

use serde_json::{Value, json};

use super::catalog::{ServedResource, ServedVersion};
use crate::meta::object as obj;
use crate::schema::{default, prune};

/// Stored bytes at `revision` as `version` of `resource` serves them.
pub fn decode(
    resource: &ServedResource,
    version: &ServedVersion,
    bytes: &[u8],
    revision: i64,
) -> Result<Value, serde_json::Error> {
    let mut object: Value = serde_json::from_slice(bytes)?;
    coerce(version, &mut object);
    present(resource, version, &mut object, revision);
    Ok(object)
}

/// What the served version keeps of a stored object: unknown fields pruned silently,
/// defaults applied.
pub fn coerce(version: &ServedVersion, object: &mut Value) {
    prune::prune_silently(object, &version.structural);
    default::default(object, &version.structural);
}

/// Sets apiVersion, kind and (when `revision` > 0) resourceVersion on an object about to
/// be served.
pub fn present(
    resource: &ServedResource,
    version: &ServedVersion,
    object: &mut Value,
    revision: i64,
) {
    if let Some(map) = object.as_object_mut() {
        let api_version = format!("{}/{}", resource.group, version.name);
        map.insert("apiVersion".into(), json!(api_version));
        map.insert("kind".into(), json!(resource.kind));
    }
    if revision > 0 {
        obj::set_meta(object, "resourceVersion", Some(json!(revision.to_string())));
    }
}
