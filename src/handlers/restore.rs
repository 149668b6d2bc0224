//! The restore path (only offload's copy uses it): an object of the host cluster stored
//! here exactly as the host had it at the storage version — every metadata field (uid,
//! creationTimestamp, generation, managedFields, deletionTimestamp …) and status kept, no
//! admission, no defaulting or pruning (it was valid at the host) — with our own
//! resourceVersion. The stored form, the size cap and the store stack (encryption, the
//! watch cache) are those of every write.
//!
//! A uid clash (an object of the same key and another uid here) is an
//! [`ApiError::Conflict`], and only that: a conflict on the revision is retried.

use serde_json::{Map, Value};

use crate::crd::catalog::ServedResource;
use crate::error::ApiError;
use crate::handlers::AppState;
use crate::handlers::context::storage_error;
use crate::handlers::wire::stored::Stored;
use crate::request::info::path_segment_name_errors;
use crate::storage::{KeyValue, RangeRequest, StorageError};

/// What a restore did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restored {
    /// The object was absent here.
    Created,
    /// The object (same uid) differed here and was replaced.
    Updated,
    /// The object was here as the host has it: nothing written.
    Unchanged,
}

/// An object stored here: its namespace (`None` for cluster scope), name and uid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Here {
    pub namespace: Option<String>,
    pub name: String,
    pub uid: String,
}

/// Writes racing a restore on one key make it read and try again this many times.
const ATTEMPTS: usize = 16;
/// Keys read per page by [`list_here`].
const PAGE: usize = 500;

/// Stores `object` (as the host serves it at `resource`'s storage version) here.
pub async fn restore(
    state: &AppState,
    resource: &ServedResource,
    mut object: Value,
) -> Result<Restored, ApiError> {
    let placed = place(resource, &mut object)?;
    let Some(map) = object.as_object() else {
        return Err(ApiError::BadRequest(
            "the object is not a JSON object".into(),
        ));
    };
    let bytes = stored_bytes(resource, map)?;
    crate::handlers::strategy::guaranteed::check_size(state, bytes.len())?;
    let key = placed.key(state, resource);
    let failed = |e: StorageError| storage_error(&resource.group_resource(), &placed.name, e);
    for _ in 0..ATTEMPTS {
        let written = match state.store.get(&key).await.map_err(failed)? {
            None => state
                .store
                .create(&key, bytes.clone())
                .await
                .map(|_| Restored::Created),
            Some(current) => {
                check_uid(resource, &placed, &current)?;
                if same_object(&current.value, map) {
                    return Ok(Restored::Unchanged);
                }
                let expected = current.mod_revision;
                let updated = state.store.update(&key, bytes.clone(), expected).await;
                updated.map(|_| Restored::Updated)
            }
        };
        match written {
            Ok(done) => return Ok(done),
            Err(StorageError::AlreadyExists { .. })
            | Err(StorageError::Conflict { .. })
            | Err(StorageError::NotFound { .. }) => continue,
            Err(e) => return Err(failed(e)),
        }
    }
    Err(kept_changing(&placed.name))
}

/// Deletes the object `namespace`/`name` of uid `uid` here (the host no longer has it);
/// true when it was deleted, false when it was absent. Another uid is a conflict.
pub async fn restore_delete(
    state: &AppState,
    resource: &ServedResource,
    namespace: Option<&str>,
    name: &str,
    uid: &str,
) -> Result<bool, ApiError> {
    path_segments(name, namespace)?;
    let placed = Placed {
        namespace: namespace.map(str::to_string),
        name: name.to_string(),
        uid: uid.to_string(),
    };
    let key = placed.key(state, resource);
    let failed = |e: StorageError| storage_error(&resource.group_resource(), name, e);
    for _ in 0..ATTEMPTS {
        let Some(current) = state.store.get(&key).await.map_err(failed)? else {
            return Ok(false);
        };
        check_uid(resource, &placed, &current)?;
        match state.store.delete(&key, current.mod_revision).await {
            Ok(_) => return Ok(true),
            Err(StorageError::Conflict { .. }) => continue,
            Err(StorageError::NotFound { .. }) => return Ok(false),
            Err(e) => return Err(failed(e)),
        }
    }
    Err(kept_changing(name))
}

/// Every object of `resource` stored here (a consistent paged read), by key.
pub async fn list_here(state: &AppState, resource: &ServedResource) -> Result<Vec<Here>, ApiError> {
    let prefix = state
        .keys
        .resource_prefix(&resource.group, &resource.plural);
    let failed = |e: StorageError| storage_error(&resource.group_resource(), "", e);
    let mut req = RangeRequest {
        prefix: prefix.clone(),
        limit: PAGE,
        ..RangeRequest::default()
    };
    let mut found = Vec::new();
    loop {
        let page = state.store.range(req.clone()).await.map_err(failed)?;
        // Later pages at the first page's revision: one consistent view.
        req.revision = page.revision;
        let next = page.kvs.last().map(|kv| format!("{}\u{0}", kv.key));
        for kv in &page.kvs {
            found.push(here(&prefix, resource.namespaced, kv)?);
        }
        match next {
            Some(start) if page.more => req.start_key = Some(start),
            _ => return Ok(found),
        }
    }
}

/// One stored object's place and uid.
fn here(prefix: &str, namespaced: bool, kv: &KeyValue) -> Result<Here, ApiError> {
    let rest = kv.key.strip_prefix(prefix).unwrap_or(&kv.key);
    let (namespace, name) = match (namespaced, rest.split_once('/')) {
        (true, Some((namespace, name))) => (Some(namespace.to_string()), name.to_string()),
        _ => (None, rest.to_string()),
    };
    Ok(Here {
        namespace,
        name,
        uid: stored_uid(&kv.value)
            .map_err(|e| ApiError::internal("decoding a stored object", &e))?,
    })
}

/// Where an object goes: its namespace as its resource's scope wants it, name and uid.
struct Placed {
    namespace: Option<String>,
    name: String,
    uid: String,
}

impl Placed {
    fn key(&self, state: &AppState, resource: &ServedResource) -> String {
        let namespace = self.namespace.as_deref();
        (state.keys).object_key(&resource.group, &resource.plural, namespace, &self.name)
    }
}

/// Checks the object is of `resource` at its storage version, named, with a uid and the
/// namespace its scope wants; drops `metadata.resourceVersion` (ours is assigned).
fn place(resource: &ServedResource, object: &mut Value) -> Result<Placed, ApiError> {
    check_type(resource, object)?;
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return Err(ApiError::BadRequest(
            "restoring: metadata is missing".into(),
        ));
    };
    meta.remove("resourceVersion");
    let text = |field: &str| meta.get(field).and_then(Value::as_str).unwrap_or_default();
    let (name, uid, namespace) = (text("name"), text("uid"), text("namespace"));
    if name.is_empty() || uid.is_empty() {
        return Err(ApiError::BadRequest(
            "restoring: metadata.name and metadata.uid are required".into(),
        ));
    }
    let namespace = scoped(resource.namespaced, name, namespace)?;
    path_segments(name, namespace.as_deref())?;
    Ok(Placed {
        namespace,
        name: name.to_string(),
        uid: uid.to_string(),
    })
}

/// The name and namespace become storage key segments: kube's key functions refuse a
/// name that is no path segment (`IsPathSegmentName`: not `.` or `..`, no `/` or `%`)
/// with `Name parameter invalid`; a namespace is held to the same.
fn path_segments(name: &str, namespace: Option<&str>) -> Result<(), ApiError> {
    let fields = [("Namespace", namespace.unwrap_or_default()), ("Name", name)];
    for (field, value) in fields {
        let problems = path_segment_name_errors(value);
        if !problems.is_empty() {
            return Err(ApiError::BadRequest(format!(
                "{field} parameter invalid: {value:?}: {}",
                problems.join(";")
            )));
        }
    }
    Ok(())
}

/// The namespace as the resource's scope wants it.
fn scoped(namespaced: bool, name: &str, namespace: &str) -> Result<Option<String>, ApiError> {
    match (namespaced, namespace.is_empty()) {
        (true, false) => Ok(Some(namespace.to_string())),
        (false, true) => Ok(None),
        (true, true) => Err(ApiError::BadRequest(format!(
            "restoring {name}: metadata.namespace is required for a namespaced resource"
        ))),
        (false, false) => Err(ApiError::BadRequest(format!(
            "restoring {name}: metadata.namespace must be empty for a cluster-scoped resource"
        ))),
    }
}

/// The object is of `resource`'s kind at its storage version.
fn check_type(resource: &ServedResource, object: &Value) -> Result<(), ApiError> {
    let api_version = object.get("apiVersion").and_then(Value::as_str);
    if api_version != Some(resource.storage_api_version.as_str()) {
        return Err(ApiError::BadRequest(format!(
            "restoring {}: apiVersion must be the storage version {:?}, not {:?}",
            resource.group_resource(),
            resource.storage_api_version,
            api_version.unwrap_or_default()
        )));
    }
    let kind = object.get("kind").and_then(Value::as_str);
    if kind != Some(resource.kind.as_str()) {
        return Err(ApiError::BadRequest(format!(
            "restoring {}: kind must be {:?}, not {:?}",
            resource.group_resource(),
            resource.kind,
            kind.unwrap_or_default()
        )));
    }
    Ok(())
}

/// The stored form of `object` (the storage version's apiVersion, no resourceVersion).
fn stored_bytes(
    resource: &ServedResource,
    object: &Map<String, Value>,
) -> Result<Vec<u8>, ApiError> {
    let stored = Stored {
        object,
        api_version: &resource.storage_api_version,
    };
    serde_json::to_vec(&stored).map_err(|e| ApiError::internal("encoding an object", &e))
}

/// A conflict unless the object stored at the key has the restored object's uid.
fn check_uid(
    resource: &ServedResource,
    placed: &Placed,
    current: &KeyValue,
) -> Result<(), ApiError> {
    let here = stored_uid(&current.value)
        .map_err(|e| ApiError::internal("decoding a stored object", &e))?;
    if here == placed.uid {
        return Ok(());
    }
    Err(ApiError::Conflict {
        resource: resource.group_resource(),
        name: placed.name.clone(),
        message: format!(
            "an object of the same name and another uid is stored here (uid {here}, the host's is {})",
            placed.uid
        ),
    })
}

/// The uid of a stored value.
fn stored_uid(value: &[u8]) -> Result<String, serde_json::Error> {
    #[derive(serde::Deserialize)]
    struct Object {
        #[serde(default)]
        metadata: Meta,
    }
    #[derive(serde::Deserialize, Default)]
    struct Meta {
        #[serde(default)]
        uid: String,
    }
    Ok(serde_json::from_slice::<Object>(value)?.metadata.uid)
}

/// Whether the stored value is the object (member order aside).
fn same_object(stored: &[u8], object: &Map<String, Value>) -> bool {
    match serde_json::from_slice::<Map<String, Value>>(stored) {
        Ok(stored) => stored == *object,
        Err(_) => false,
    }
}

/// Writes racing the restore won every attempt.
fn kept_changing(name: &str) -> ApiError {
    ApiError::Timeout(format!(
        "restoring {name}: the object kept changing here during {ATTEMPTS} attempts"
    ))
}

#[cfg(test)]
#[path = "restore_tests.rs"]
mod tests;
