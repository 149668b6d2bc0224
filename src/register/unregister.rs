//! `crd-apiserver unregister`: deletes the APIServices whose owner label names our
//! Service (`--service <ns>/<name>`, default the serve flags' `<pod namespace or
//! default>/crd-apiserver`) and only those, each with its uid as precondition, printing
//! each as kubectl does. For uninstall hooks: an APIService whose backend is gone stays
//! `Available=False`, and kube's namespace controller then cannot finish deleting any
//! namespace (its discovery fails). An APIService whose group offload is moving or has
//! moved here (a host CRD of the group carries a live offload record) is refused
//! without `--force`, and then nothing is deleted: with the switched APIService gone,
//! kube's autoregister re-creates the host's local one and the host serves its old
//! copies (the writes made here since the take-over are not there) — give the group
//! back first (`crd-apiserver offload --undo`).

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
use kube::api::{Api, DeleteParams, ListParams, Preconditions};

use super::OWNER_LABEL;
use crate::config::register::{UnregisterFlags, default_service, parse_namespaced};

/// offload's progress record on a host CRD (`offload::record::ANNOTATION`; registration
/// sits below offload in the layering, so the name is repeated here and a test keeps
/// the two equal).
pub const OFFLOAD_RECORD: &str = "crd-apiserver.io/offload";
/// Record phases in which the group is not (or no longer) routed to us.
const SETTLED_PHASES: [&str; 3] = ["Returned", "Failed", "Pending"];

/// Why unregistering failed.
#[derive(Debug, thiserror::Error)]
pub enum UnregisterError {
    #[error("--service: {0}")]
    Service(String),
    #[error("{0}")]
    Client(String),
    #[error("listing APIServices: {0}")]
    List(kube::Error),
    #[error("deleting apiservice.apiregistration.k8s.io {name:?}: {source}")]
    Delete { name: String, source: kube::Error },
    #[error(
        "listing CustomResourceDefinitions (to find the groups offload moves; --force skips this): {0}"
    )]
    ListCrds(kube::Error),
    #[error("nothing deleted: offload is moving or has moved the groups of these APIServices here, and deleting them would make the host serve its old copies; give the groups back first (crd-apiserver offload --undo NAME) or use --force: {}", .0.join("; "))]
    Offloaded(Vec<String>),
}

/// The label selector of the APIServices of Service `service` (`<namespace>/<name>`).
pub fn selector(service: &str) -> Result<String, UnregisterError> {
    let (namespace, name) = parse_namespaced(service).map_err(UnregisterError::Service)?;
    Ok(format!("{OWNER_LABEL}={namespace}.{name}"))
}

/// The phase of the offload record on `crd`, if it carries one that is not settled
/// (a record that does not parse counts as live: we cannot tell).
fn live_record(crd: &CustomResourceDefinition) -> Option<String> {
    let record = crd.metadata.annotations.as_ref()?.get(OFFLOAD_RECORD)?;
    let phase = serde_json::from_str::<serde_json::Value>(record)
        .ok()
        .and_then(|v| v["phase"].as_str().map(str::to_string));
    match phase {
        Some(phase) if SETTLED_PHASES.contains(&phase.as_str()) => None,
        Some(phase) => Some(phase),
        None => Some("unreadable record".to_string()),
    }
}

/// The APIServices of `apiservices` whose group has a host CRD with a live offload
/// record, each described with that CRD and its phase.
pub fn refused(apiservices: &[APIService], crds: &[CustomResourceDefinition]) -> Vec<String> {
    let mut moving: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for crd in crds {
        if let (Some(phase), Some(name)) = (live_record(crd), crd.metadata.name.as_deref()) {
            let entry = moving.entry(crd.spec.group.as_str()).or_default();
            entry.push(format!(
                "customresourcedefinition {name:?} in phase {phase}"
            ));
        }
    }
    apiservices
        .iter()
        .filter_map(|a| {
            let group = a.spec.as_ref()?.group.as_deref()?;
            let crds = moving.get(group)?;
            let name = a.metadata.name.as_deref()?;
            Some(format!(
                "apiservice.apiregistration.k8s.io {name:?} ({})",
                crds.join(", ")
            ))
        })
        .collect()
}

/// Deletes ours; `out` gets one line per APIService deleted.
pub async fn run(
    flags: &UnregisterFlags,
    out: &mut impl std::io::Write,
) -> Result<usize, UnregisterError> {
    let service = flags.service.clone().unwrap_or_else(default_service);
    let selector = selector(&service)?;
    let client = client(flags).await?;
    let api: Api<APIService> = Api::all(client.clone());
    let listed = api
        .list(&ListParams::default().labels(&selector))
        .await
        .map_err(UnregisterError::List)?;
    if !flags.force && !listed.items.is_empty() {
        let crds = Api::<CustomResourceDefinition>::all(client)
            .list(&ListParams::default())
            .await
            .map_err(UnregisterError::ListCrds)?;
        let refused = refused(&listed.items, &crds.items);
        if !refused.is_empty() {
            return Err(UnregisterError::Offloaded(refused));
        }
    }
    let mut deleted = 0;
    for apiservice in listed.items {
        let name = apiservice.metadata.name.clone().unwrap_or_default();
        let params = DeleteParams {
            preconditions: Some(Preconditions {
                uid: apiservice.metadata.uid.clone(),
                resource_version: None,
            }),
            ..DeleteParams::default()
        };
        match api.delete(&name, &params).await {
            Ok(_) => {}
            // Deleted by someone else meanwhile.
            Err(kube::Error::Api(s)) if s.code == 404 => continue,
            Err(source) => return Err(UnregisterError::Delete { name, source }),
        }
        deleted += 1;
        let _ = writeln!(out, "apiservice.apiregistration.k8s.io \"{name}\" deleted");
    }
    Ok(deleted)
}

/// The client of `--kubeconfig`, else kube's inference (KUBECONFIG, ~/.kube/config,
/// in-cluster).
async fn client(flags: &UnregisterFlags) -> Result<kube::Client, UnregisterError> {
    crate::cluster::client::command_client(flags.kubeconfig.as_deref())
        .await
        .map_err(UnregisterError::Client)
}

#[cfg(test)]
#[path = "unregister_tests.rs"]
mod tests;
