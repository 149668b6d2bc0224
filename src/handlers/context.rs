//! The resolved target of a resource request: served resource, version, namespace, name,
//! and the conversions between stored bytes and the served representation.

use std::sync::Arc;

use serde_json::Value;

use crate::crd::catalog::{Catalog, ServedResource, ServedVersion};
use crate::error::{ApiError, GroupResource};
use crate::handlers::AppState;
use crate::handlers::wire::stored::Stored;
use crate::request::info::{RequestInfo, Subresource, Verb};
use crate::storage::{KeyValue, StorageError};

/// A resource request resolved against the catalog.
#[derive(Clone)]
pub struct Target {
    pub resource: Arc<ServedResource>,
    version: usize,
    /// The URL's namespace (`None` for cluster-scoped, or a namespaced list across namespaces).
    pub namespace: Option<String>,
    pub name: String,
}

impl Target {
    /// Finds the served resource, in the order of kube's crdHandler: what it cannot route
    /// (unknown group, version or plural, a scope mismatch) goes to the mux's NotFound
    /// handler ([`ApiError::PathNotFound`]); a subresource the version lacks is the
    /// object's NotFound.
    pub fn resolve(catalog: &Catalog, info: &RequestInfo) -> Result<Target, ApiError> {
        let (resource, version) = route(catalog, info).ok_or(ApiError::PathNotFound)?;
        let resource = resource.clone();
        let namespace = scope(resource.namespaced, info)?;
        let served = &resource.versions[version];
        let subresource_ok = match info.subresource {
            Subresource::None => true,
            Subresource::Status => served.status_subresource,
            Subresource::Scale => served.scale.is_some(),
            Subresource::Other(_) => false,
        };
        if !subresource_ok {
            return Err(ApiError::NotFound {
                resource: resource.group_resource(),
                name: info.name.clone(),
            });
        }
        Ok(Target {
            resource,
            version,
            namespace,
            name: info.name.clone(),
        })
    }

    /// The same target narrowed to one object's namespace (for deletecollection across namespaces).
    pub fn for_namespace(&self, namespace: &str) -> Target {
        Target {
            resource: self.resource.clone(),
            version: self.version,
            namespace: (!namespace.is_empty()).then(|| namespace.to_string()),
            name: String::new(),
        }
    }

    /// A target of `resource` at the served version `version` (unit tests).
    #[cfg(test)]
    pub fn for_tests(resource: Arc<ServedResource>, version: &str, namespace: &str) -> Target {
        let version = resource
            .versions
            .iter()
            .position(|v| *v.name == *version)
            .unwrap_or_default();
        Target {
            resource,
            version,
            namespace: Some(namespace.to_string()),
            name: String::new(),
        }
    }

    pub fn version(&self) -> &ServedVersion {
        &self.resource.versions[self.version]
    }

    pub fn api_version(&self) -> String {
        format!("{}/{}", self.resource.group, self.version().name)
    }

    pub fn group_resource(&self) -> GroupResource {
        self.resource.group_resource()
    }

    pub fn deprecation_warning(&self) -> Option<&str> {
        self.version().deprecation_warning.as_deref()
    }

    /// The storage key of the named object.
    pub fn key(&self, state: &AppState, name: &str) -> String {
        let r = &self.resource;
        state
            .keys
            .object_key(&r.group, &r.plural, self.namespace.as_deref(), name)
    }

    /// The storage prefix of the collection (one namespace, or all).
    pub fn collection_prefix(&self, state: &AppState) -> String {
        let r = &self.resource;
        state
            .keys
            .collection_prefix(&r.group, &r.plural, self.namespace.as_deref())
    }

    pub fn not_found(&self, name: &str) -> ApiError {
        ApiError::NotFound {
            resource: self.group_resource(),
            name: name.to_string(),
        }
    }

    /// A stored value as served: pruned and defaulted by the served version's schema,
    /// requested apiVersion (conversion `None`) and resourceVersion from the revision.
    pub fn decode(&self, kv: &KeyValue) -> Result<Value, ApiError> {
        self.decode_bytes(&kv.value, kv.mod_revision)
            .map_err(|e| ApiError::internal("decoding a stored object", &e))
    }

    /// [`Target::decode`] of bytes at a revision (watch events carry no `KeyValue`).
    pub fn decode_bytes(&self, bytes: &[u8], revision: i64) -> Result<Value, serde_json::Error> {
        crate::crd::served::decode(&self.resource, self.version(), bytes, revision)
    }

    /// Sets apiVersion, kind and resourceVersion on an object about to be served.
    pub fn present(&self, object: &mut Value, revision: i64) {
        crate::crd::served::present(&self.resource, self.version(), object, revision);
    }

    /// The bytes to store: the storage version's apiVersion, no resourceVersion.
    pub fn encode(&self, object: &Value) -> Result<Vec<u8>, ApiError> {
        let Some(map) = object.as_object() else {
            return crate::handlers::wire::served::encode(object);
        };
        crate::handlers::wire::served::encode(&Stored {
            object: map,
            api_version: &self.resource.storage_api_version,
        })
    }

    /// kube's 409 when an update's UID precondition fails: etcd3's StorageError for the
    /// object's key, `detail` from [`crate::meta::lifecycle::uid_precondition_failure`].
    pub fn precondition_failed(&self, state: &AppState, name: &str, detail: &str) -> ApiError {
        let key = self.key(state, name);
        ApiError::Conflict {
            resource: self.group_resource(),
            name: name.to_string(),
            message: format!(
                "StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: {detail}"
            ),
        }
    }

    /// Storage errors in kube's words for this resource and name.
    pub fn storage_error(&self, name: &str, err: StorageError) -> ApiError {
        storage_error(&self.group_resource(), name, err)
    }
}

/// Converts a storage error once, per kube's storage → API error mapping.
pub fn storage_error(resource: &GroupResource, name: &str, err: StorageError) -> ApiError {
    match err {
        StorageError::NotFound { .. } => ApiError::NotFound {
            resource: resource.clone(),
            name: name.to_string(),
        },
        StorageError::AlreadyExists { .. } => ApiError::AlreadyExists {
            resource: resource.clone(),
            name: name.to_string(),
        },
        StorageError::Conflict { .. } => conflict(resource, name),
        StorageError::Compacted {
            requested,
            compacted,
        } => ApiError::Expired {
            message: format!("too old resource version: {requested} ({compacted})"),
            continue_token: None,
        },
        StorageError::FutureRevision { requested, current } => {
            ApiError::TooLargeResourceVersion { requested, current }
        }
        StorageError::Unavailable(m) => ApiError::ServiceUnavailable(m),
        StorageError::Timeout(m) => ApiError::Timeout(m),
        e @ StorageError::Backend(_) => ApiError::internal("storage", &e),
        StorageError::Internal(m) => ApiError::Internal(m),
    }
}

/// The URL's namespace as the resource's scope allows it; a namespaced resource is served
/// without one only to list and watch across namespaces. Anything else is not routed.
fn scope(namespaced: bool, info: &RequestInfo) -> Result<Option<String>, ApiError> {
    match (namespaced, info.namespace.is_empty()) {
        (true, false) => Ok(Some(info.namespace.clone())),
        (false, true) => Ok(None),
        (true, true) if matches!(info.verb, Verb::List | Verb::Watch) => Ok(None),
        _ => Err(ApiError::PathNotFound),
    }
}

/// kube's 405 for a verb the resource or its subresource does not serve; it names the
/// resource alone, whichever subresource the path named.
pub fn not_supported(info: &RequestInfo) -> ApiError {
    ApiError::MethodNotSupported {
        resource: GroupResource::new(&info.api_group, &info.resource),
        verb: info.verb.as_str().to_string(),
    }
}

/// The warning of a deprecated version, for every request kube's CRD handler serves
/// there (resource and version served, scope fitting), whatever the subresource, verb or
/// outcome: the handler records it before it serves anything.
/// (What [`Target::resolve`] checks before the subresource, the warning first: most
/// versions have none.)
pub fn deprecation_warning(catalog: &Catalog, info: &RequestInfo) -> Option<String> {
    let (resource, version) = route(catalog, info)?;
    let warning = resource.versions[version].deprecation_warning.as_deref()?;
    scope(resource.namespaced, info).ok()?;
    Some(warning.to_string())
}

/// The served resource and the index of the version a request names, if served.
fn route<'a>(catalog: &'a Catalog, info: &RequestInfo) -> Option<(&'a Arc<ServedResource>, usize)> {
    let resource = catalog.lookup(&info.api_group, &info.api_version, &info.resource)?;
    let version = resource
        .versions
        .iter()
        .position(|v| *v.name == *info.api_version)?;
    Some((resource, version))
}

/// kube's optimistic-concurrency conflict.
pub fn conflict(resource: &GroupResource, name: &str) -> ApiError {
    ApiError::Conflict {
        resource: resource.clone(),
        name: name.to_string(),
        message: "the object has been modified; please apply your changes to the latest version and try again".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::info;
    use crate::request::query::Query;

    /// `scope` of a request parsed from `method` and `path` (under `/apis/g/v`).
    fn scoped(namespaced: bool, method: &str, path: &str) -> Result<Option<String>, ApiError> {
        let info = info::parse(method, &format!("/apis/g/v{path}"), &Query::default());
        scope(namespaced, &info)
    }

    #[test]
    fn scope_mismatch_is_not_routed_but_cross_namespace_list_and_watch() {
        #[rustfmt::skip]
        let cases = [
            (true, "GET", "/namespaces/ns/rs/a", Some(Some("ns"))),
            (true, "POST", "/namespaces/ns/rs", Some(Some("ns"))),
            (true, "GET", "/rs", Some(None)),
            (true, "GET", "/watch/rs", Some(None)),
            (true, "GET", "/rs/a", None),
            (true, "POST", "/rs", None),
            (true, "DELETE", "/rs", None),
            (true, "OPTIONS", "/rs", None),
            (false, "GET", "/rs/a", Some(None)),
            (false, "POST", "/rs", Some(None)),
            (false, "GET", "/namespaces/ns/rs", None),
            (false, "DELETE", "/namespaces/ns/rs/a", None),
        ];
        for (namespaced, method, path, want) in cases {
            let got = scoped(namespaced, method, path);
            match want {
                Some(ns) => assert_eq!(got.ok(), Some(ns.map(String::from)), "{method} {path}"),
                None => assert!(
                    matches!(got, Err(ApiError::PathNotFound)),
                    "{method} {path}"
                ),
            }
        }
    }

    #[test]
    fn not_supported_names_resource_without_subresource() {
        let info = info::parse(
            "POST",
            "/apis/g/v/namespaces/ns/rs/a/status",
            &Query::default(),
        );
        let err = not_supported(&info);
        assert_eq!(
            err.to_string(),
            r#"create is not supported on resources of kind "rs.g""#
        );
        assert_eq!(err.code(), 405);
    }
}
