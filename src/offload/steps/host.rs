//! The host cluster's side of the steps: which resource a host CRD serves (group, plural,
//! storage version, scope, `/status`), and the raw JSON requests made to it through kube's
//! client (objects stay [`Value`]s, so every field the host has is kept as it is).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{DeleteParams, ListParams, PostParams, Preconditions};
use kube::core::{Request, Status};
use serde_json::Value;

use crate::offload::StepError;

/// kube's default page size for a chunked list is the client's; 500 is kubectl's.
pub const PAGE: u32 = 500;

/// The resource one host CRD serves, at its storage version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostResource {
    pub crd_name: String,
    pub group: String,
    pub plural: String,
    pub kind: String,
    /// The version marked `storage: true`.
    pub version: String,
    pub namespaced: bool,
    /// Whether the storage version has the `/status` subresource.
    pub status: bool,
}

impl HostResource {
    /// The CRD's resource; `None` when it has no storage version (kube's validation
    /// requires exactly one).
    pub fn of(crd: &CustomResourceDefinition) -> Option<HostResource> {
        let spec = &crd.spec;
        let storage = spec.versions.iter().find(|v| v.storage)?;
        Some(HostResource {
            crd_name: crd.metadata.name.clone().unwrap_or_default(),
            group: spec.group.clone(),
            plural: spec.names.plural.clone(),
            kind: spec.names.kind.clone(),
            version: storage.name.clone(),
            namespaced: spec.scope == "Namespaced",
            status: storage
                .subresources
                .as_ref()
                .is_some_and(|s| s.status.is_some()),
        })
    }

    /// Every resource of `crds`; a CRD without a storage version is refused.
    pub fn all(crds: &[CustomResourceDefinition]) -> Result<Vec<HostResource>, StepError> {
        crds.iter()
            .map(|crd| {
                HostResource::of(crd).ok_or_else(|| {
                    let name = crd.metadata.name.as_deref().unwrap_or_default();
                    StepError::Refused(format!("{name}: no version has storage: true"))
                })
            })
            .collect()
    }

    pub fn api_version(&self) -> String {
        format!("{}/{}", self.group, self.version)
    }

    /// The collection's path: across namespaces (`None`) or in one.
    pub fn collection(&self, namespace: Option<&str>) -> String {
        let base = format!("/apis/{}/{}", self.group, self.version);
        match namespace.filter(|ns| self.namespaced && !ns.is_empty()) {
            Some(ns) => format!("{base}/namespaces/{ns}/{}", self.plural),
            None => format!("{base}/{}", self.plural),
        }
    }

    /// The collection `object` belongs to (its namespace's, for a namespaced kind).
    pub fn collection_of(&self, object: &Value) -> String {
        self.collection(object["metadata"]["namespace"].as_str())
    }
}

/// `(namespace, name)` of an object (`""` namespace for cluster scope).
pub fn key_of(object: &Value) -> (String, String) {
    let text = |f: &str| {
        object["metadata"][f]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    (text("namespace"), text("name"))
}

pub fn uid_of(object: &Value) -> &str {
    object["metadata"]["uid"].as_str().unwrap_or_default()
}

/// The host's answer when it is a Status (`None` for transport and decoding errors).
pub fn status(error: &kube::Error) -> Option<&Status> {
    match error {
        kube::Error::Api(status) => Some(status),
        _ => None,
    }
}

pub fn code(error: &kube::Error) -> Option<u16> {
    status(error).map(|s| s.code)
}

/// A failed host request as a transient step error, saying what was asked.
pub fn transient(what: &str, error: impl std::fmt::Display) -> StepError {
    StepError::Transient(format!("{what}: {error}"))
}

fn built(
    request: Result<http::Request<Vec<u8>>, kube::core::request::Error>,
) -> Result<http::Request<Vec<u8>>, kube::Error> {
    request.map_err(kube::Error::BuildRequest)
}

/// One page of a consistent list (`resourceVersion` unset): the items and the continue
/// token of the next page.
pub async fn list_page(
    client: &kube::Client,
    collection: &str,
    limit: u32,
    continue_token: Option<&str>,
) -> Result<(Vec<Value>, Option<String>), kube::Error> {
    let mut params = ListParams::default().limit(limit);
    if let Some(token) = continue_token {
        params = params.continue_token(token);
    }
    let request = built(Request::new(collection).list(&params))?;
    let mut list: Value = client.request(request).await?;
    let next = list["metadata"]["continue"]
        .as_str()
        .filter(|t| !t.is_empty())
        .map(str::to_string);
    let items = match list.get_mut("items").map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    Ok((items, next))
}

/// The object, `None` when the host has none (404).
pub async fn get(
    client: &kube::Client,
    collection: &str,
    name: &str,
) -> Result<Option<Value>, kube::Error> {
    let request = built(Request::new(collection).get(name, &Default::default()))?;
    match client.request::<Value>(request).await {
        Ok(object) => Ok(Some(object)),
        Err(e) if code(&e) == Some(404) => Ok(None),
        Err(e) => Err(e),
    }
}

fn post_params(dry_run: bool) -> PostParams {
    PostParams {
        dry_run,
        field_manager: Some(crate::offload::FIELD_MANAGER.to_string()),
    }
}

fn body(object: &Value) -> Result<Vec<u8>, kube::Error> {
    serde_json::to_vec(object).map_err(kube::Error::SerdeError)
}

/// POST `object` into `collection`.
pub async fn create(
    client: &kube::Client,
    collection: &str,
    object: &Value,
    dry_run: bool,
) -> Result<Value, kube::Error> {
    let request = Request::new(collection).create(&post_params(dry_run), body(object)?);
    client.request(built(request)?).await
}

/// PUT `object` (its `metadata.resourceVersion` the precondition), or its `/status`.
pub async fn replace(
    client: &kube::Client,
    collection: &str,
    object: &Value,
    subresource: Option<&str>,
    dry_run: bool,
) -> Result<Value, kube::Error> {
    let (_, name) = key_of(object);
    let params = post_params(dry_run);
    let request = match subresource {
        Some(sub) => {
            Request::new(collection).replace_subresource(sub, &name, &params, body(object)?)
        }
        None => Request::new(collection).replace(&name, &params, body(object)?),
    };
    client.request(built(request)?).await
}

/// DELETE `name` with a uid precondition (when `uid` is not empty); absent is done.
pub async fn delete(
    client: &kube::Client,
    collection: &str,
    name: &str,
    uid: &str,
) -> Result<(), kube::Error> {
    let params = DeleteParams {
        preconditions: (!uid.is_empty()).then(|| Preconditions {
            uid: Some(uid.to_string()),
            resource_version: None,
        }),
        ..DeleteParams::default()
    };
    let request = built(Request::new(collection).delete(name, &params))?;
    match client.request_text(request).await {
        Ok(_) => Ok(()),
        Err(e) if code(&e) == Some(404) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Every object of `resource` at the host, by a consistent paged list.
pub async fn list_all(
    client: &kube::Client,
    resource: &HostResource,
) -> Result<Vec<Value>, StepError> {
    let collection = resource.collection(None);
    let mut all = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let (items, next) = list_page(client, &collection, PAGE, token.as_deref())
            .await
            .map_err(|e| transient(&format!("listing {collection} at the host"), e))?;
        all.extend(items);
        match next {
            Some(next) => token = Some(next),
            None => return Ok(all),
        }
    }
}

#[cfg(test)]
#[path = "host_tests.rs"]
mod tests;
