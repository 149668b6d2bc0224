//! `/storedversions`: the equivalent of a CRD's `status.storedVersions`, read-only, per
//! served resource — its storage version and the versions its objects are stored at,
//! with counts, as the watch cache keeps them (`/storedversions/<plural.group>` for one
//! resource). A non-resource path: authorized as `/metrics` is (a SubjectAccessReview
//! with `nonResourceAttributes`, verb `get`). GET only, as `/version`.

use std::sync::Arc;

use http::Method;
use serde_json::{Value, json};

use crate::crd::catalog::ServedResource;
use crate::crd::priority::compare_versions;
use crate::error::ApiError;
use crate::handlers::{AppState, Call, Reply};
use crate::request::negotiate::Representation;
use crate::storage::versions::Counts;

/// Serves `/storedversions` (`resource` None) or `/storedversions/<plural.group>`.
pub fn serve(state: &AppState, call: &Call, resource: Option<&str>) -> Result<Reply, ApiError> {
    if call.method != Method::GET {
        return Err(ApiError::MethodNotAllowed(
            "the server does not allow this method on the requested resource".into(),
        ));
    }
    let Some(cache) = &state.cache else {
        return Err(ApiError::ServiceUnavailable(
            "stored versions are counted by the watch cache, which --default-watch-cache-size=0 turned off".into(),
        ));
    };
    let resources: Vec<&Arc<ServedResource>> = match resource {
        None => call.catalog.resources().iter().collect(),
        Some(name) => {
            let found = call.catalog.resources().iter();
            let found: Vec<_> = found.filter(|r| &*r.labels.resource == name).collect();
            if found.is_empty() {
                return Err(ApiError::PathNotFound);
            }
            found
        }
    };
    let mut entries = Vec::new();
    for r in resources {
        let Some(counts) = cache.stored_versions(&r.labels.resource) else {
            return Err(ApiError::ServiceUnavailable(format!(
                "the watch cache of {} is not filled yet",
                r.labels.resource
            )));
        };
        entries.push(entry(r, &counts));
    }
    let body = match resource {
        Some(_) => entries.swap_remove(0),
        None => json!({ "resources": entries }),
    };
    Ok(Reply::ok(body, Representation::Json))
}

/// One resource: `{"resource", "storageVersion", "storedVersions": [by priority],
/// "objects": {version: count}}`.
pub fn entry(resource: &ServedResource, counts: &Counts) -> Value {
    let mut versions: Vec<&str> = counts.keys().map(String::as_str).collect();
    versions.sort_by(|a, b| compare_versions(a, b));
    json!({
        "resource": &*resource.labels.resource,
        "storageVersion": resource.storage_version,
        "storedVersions": versions,
        "objects": counts,
    })
}
