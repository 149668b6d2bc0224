//! What the controller writes to the host cluster besides the steps: the record on each
//! CRD (a merge-patch of its annotation with `metadata.resourceVersion` as precondition;
//! a 409 re-reads the CRD and patches again) and the events. A trait, so the controller's
//! tests run against an in-memory host.

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;

use super::events::Notice;
use super::record::{ANNOTATION, Record};
use super::{FIELD_MANAGER, UNDO_ANNOTATION};

/// Conflicts retried per record write before giving up (the step is then retried).
const CONFLICT_ATTEMPTS: usize = 5;

/// The host cluster as the controller writes to it.
#[async_trait::async_trait]
pub trait Host: Send + Sync {
    /// Writes `record` on `crd` (`None`: removes it and the undo annotation); the CRD as
    /// written.
    async fn write_record(
        &self,
        crd: &CustomResourceDefinition,
        record: Option<&Record>,
    ) -> Result<CustomResourceDefinition, String>;
    /// Emits an event (best effort: a failure is logged, never retried).
    async fn emit(&self, notice: Notice);
}

/// The host through its API.
pub struct KubeHost {
    crds: Api<CustomResourceDefinition>,
    events: Api<Event>,
    /// The events' `reportingInstance`.
    instance: String,
}

impl KubeHost {
    pub fn new(client: kube::Client, instance: String) -> KubeHost {
        KubeHost {
            crds: Api::all(client.clone()),
            // kube's namespace for the events of cluster-scoped objects.
            events: Api::namespaced(client, "default"),
            instance,
        }
    }
}

/// The merge-patch writing `record` (or removing it and the undo annotation), with the
/// resourceVersion the write is conditioned on.
pub fn record_patch(record: Option<&Record>, resource_version: &str) -> serde_json::Value {
    let annotations = match record.map(serde_json::to_string) {
        Some(Ok(text)) => json!({ ANNOTATION: text }),
        _ => json!({ ANNOTATION: null, UNDO_ANNOTATION: null }),
    };
    json!({"metadata": {"resourceVersion": resource_version, "annotations": annotations}})
}

#[async_trait::async_trait]
impl Host for KubeHost {
    async fn write_record(
        &self,
        crd: &CustomResourceDefinition,
        record: Option<&Record>,
    ) -> Result<CustomResourceDefinition, String> {
        let name = crd.metadata.name.clone().unwrap_or_default();
        let mut current = crd.clone();
        let params = PatchParams {
            field_manager: Some(FIELD_MANAGER.to_string()),
            ..PatchParams::default()
        };
        for _ in 0..CONFLICT_ATTEMPTS {
            let version = current
                .metadata
                .resource_version
                .clone()
                .unwrap_or_default();
            let patch = record_patch(record, &version);
            match self.crds.patch(&name, &params, &Patch::Merge(&patch)).await {
                Ok(written) => return Ok(written),
                Err(kube::Error::Api(s)) if s.code == 409 => {
                    let read = self.crds.get(&name).await.map_err(|e| e.to_string())?;
                    if read.metadata.uid != crd.metadata.uid {
                        return Err(format!("{name} was deleted and created again"));
                    }
                    current = read;
                }
                Err(e) => return Err(format!("writing the record on {name}: {e}")),
            }
        }
        Err(format!("writing the record on {name}: conflicts"))
    }

    async fn emit(&self, notice: Notice) {
        let event = notice.event(&self.instance, jiff::Timestamp::now());
        if let Err(e) = self.events.create(&PostParams::default(), &event).await {
            tracing::warn!(error = %e, reason = %notice.reason, "emitting an offload event failed");
        }
    }
}
