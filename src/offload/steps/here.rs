//! Our side of the steps: the unit's definitions compiled for the restore path, our
//! stored objects of a resource (read straight from our store stack, consistent at one
//! revision, in pages), and the restore writes (handlers' restore path, which only
//! offload uses).

use std::collections::HashMap;
use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use super::host::{key_of, uid_of};
use crate::crd::catalog::{Catalog, ServedResource};
use crate::crd::conversion::{Conversion, ConverterFactory};
use crate::error::ApiError;
use crate::handlers::AppState;
use crate::offload::StepError;
use crate::storage::RangeRequest;

const PAGE: usize = 500;

/// Objects are restored at the storage version as the host stored them: no conversion.
struct AsStored;

impl ConverterFactory for AsStored {
    fn new_converter(&self, _: &CustomResourceDefinition) -> Result<Conversion, String> {
        Ok(Conversion::None)
    }
}

/// The unit's definitions as served resources, for the restore path (before they are
/// served, the live catalog does not have them).
pub fn compile(crds: &[CustomResourceDefinition]) -> Result<Vec<Arc<ServedResource>>, StepError> {
    let catalog = Catalog::build_with(crds, &AsStored)
        .map_err(|e| StepError::Refused(format!("compiling the definitions: {e}")))?;
    Ok(catalog.resources().to_vec())
}

/// Our stored objects of `group`/`plural` (stored form: storage apiVersion, no
/// resourceVersion), read at one revision page by page.
pub async fn list(state: &AppState, group: &str, plural: &str) -> Result<Vec<Value>, StepError> {
    let prefix = state.keys.resource_prefix(group, plural);
    let mut objects = Vec::new();
    let mut start_key = None;
    let mut revision = 0;
    loop {
        let page = state
            .store
            .range(RangeRequest {
                prefix: prefix.clone(),
                start_key: start_key.take(),
                limit: PAGE,
                revision,
                not_older_than: None,
            })
            .await
            .map_err(|e| StepError::Transient(format!("listing {prefix} here: {e}")))?;
        revision = page.revision;
        for kv in &page.kvs {
            let object: Value = serde_json::from_slice(&kv.value)
                .map_err(|e| StepError::Transient(format!("decoding {} here: {e}", kv.key)))?;
            objects.push(object);
        }
        match (page.more, page.kvs.last()) {
            (true, Some(last)) => start_key = Some(format!("{}\0", last.key)),
            _ => return Ok(objects),
        }
    }
}

/// `(namespace, name)` → uid of our stored objects of `group`/`plural`.
pub async fn uids(
    state: &AppState,
    group: &str,
    plural: &str,
) -> Result<HashMap<(String, String), String>, StepError> {
    let objects = list(state, group, plural).await?;
    Ok(objects
        .iter()
        .map(|o| (key_of(o), uid_of(o).to_string()))
        .collect())
}

pub use crate::handlers::restore::Restored;

/// Stores `object` here exactly as the host has it (handlers' restore path); an object
/// here under the same key with another uid (the restore path's 409) refuses the move.
pub async fn restore(
    state: &AppState,
    resource: &ServedResource,
    object: Value,
) -> Result<Restored, StepError> {
    let (namespace, name) = key_of(&object);
    restored(
        resource,
        &namespace,
        &name,
        crate::handlers::restore::restore(state, resource, object).await,
    )
}

/// The step error of a restore: a uid clash refuses the move, the rest is retried.
fn restored<T>(
    resource: &ServedResource,
    namespace: &str,
    name: &str,
    result: Result<T, ApiError>,
) -> Result<T, StepError> {
    result.map_err(|e| {
        let shown = format!("{}.{} {namespace}/{name}", resource.plural, resource.group);
        match e {
            ApiError::Conflict { .. } => StepError::Refused(format!("restoring {shown}: {e}")),
            other => StepError::Transient(format!("restoring {shown}: {other}")),
        }
    })
}

/// Deletes the object here that the host no longer has (uid precondition; absent is done).
pub async fn restore_delete(
    state: &AppState,
    resource: &ServedResource,
    namespace: &str,
    name: &str,
    uid: &str,
) -> Result<(), StepError> {
    let scoped = (!namespace.is_empty()).then_some(namespace);
    let result = crate::handlers::restore::restore_delete(state, resource, scoped, name, uid).await;
    restored(resource, namespace, name, result).map(|_| ())
}
