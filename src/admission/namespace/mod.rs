//! kube's NamespaceLifecycle admission plugin, fed by a list+watch of the host
//! cluster's namespaces. Writes into a namespace that does not exist answer 404
//! (`namespaces "x" not found`), creates into a terminating one 403, and writes wait
//! (up to kube's 10 s) for the first list, then answer 403 `not yet ready to handle
//! request`. Reads and deletes are not checked, as in kube.
//!
//! The cluster is the one of k8s.io/apiserver's core API options: `--kubeconfig`, else
//! the in-cluster service account. Without either (dev mode on a laptop) namespaces
//! are not checked.
//!
//! - [`decision`]: the plugin's decision, pure.
//! - [`cache`]: namespace phases and labels, and whether the first list arrived.
//! - [`informer`]: the list+watch loop that fills the cache.
//! - [`refusal`]: the refusals as kube's Status.

pub mod cache;
pub mod decision;
pub mod informer;
pub mod refusal;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use kube::api::Api;

use super::{Attributes, Operation};
use crate::cluster::client::{ClientError, delegation_client};
use crate::error::ApiError;
use cache::Cache;
use decision::{Phase, Refusal, Seen, Step};

/// kube's `timeToWaitForReady`: how long a write waits for the first list.
const READY_WAIT: Duration = Duration::from_secs(10);
/// kube's `missingNamespaceWait`: time for the watch to deliver a just-created namespace.
const MISSING_NAMESPACE_WAIT: Duration = Duration::from_millis(50);
/// Bound of the live lookup (client-go's default client timeout is unset; ours is not).
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(10);

/// The namespace check of this server: followed from a cluster, or off.
#[derive(Clone, Default)]
pub struct NamespaceLifecycle(Option<Arc<Followed>>);

impl NamespaceLifecycle {
    /// No cluster: namespaces are not checked.
    pub fn unchecked() -> Self {
        NamespaceLifecycle(None)
    }

    /// Follows the namespaces of the cluster `--kubeconfig` (else in-cluster) names,
    /// spawning the informer; unchecked when there is no cluster.
    pub async fn from_cluster(kubeconfig: Option<&Path>) -> Result<Self, ClientError> {
        let Some(client) = delegation_client(kubeconfig, None).await? else {
            tracing::warn!(
                "no --kubeconfig and not in a cluster: namespaces are not checked (NamespaceLifecycle is off)"
            );
            return Ok(Self::unchecked());
        };
        let followed = Arc::new(Followed {
            cache: Arc::default(),
            api: Api::all(client),
        });
        let informer = informer::informer(followed.api.clone(), followed.cache.clone());
        tokio::spawn(informer.run());
        Ok(NamespaceLifecycle(Some(followed)))
    }

    pub fn followed(&self) -> Option<&Followed> {
        self.0.as_deref()
    }

    /// The plugin's `Admit`: `Ok` when unchecked (no cluster) or admitted. The common
    /// write pays one map lookup: only a namespace the cache cannot admit at once (missing,
    /// terminating, or no list yet) waits, looks again or asks the cluster.
    pub async fn admit(
        &self,
        attributes: &Attributes<'_>,
        object: Option<&serde_json::Value>,
    ) -> Result<(), ApiError> {
        let Some(followed) = self.followed() else {
            return Ok(());
        };
        let (op, namespace) = (attributes.operation, attributes.namespace);
        if decision::first_look(op, namespace, followed.seen(namespace)) == Step::Admit {
            return Ok(());
        }
        followed
            .admit(op, namespace)
            .await
            .map_err(|refusal| refusal::refused(refusal, attributes, object))
    }
}

/// A namespace's labels, as a `namespaceSelector` needs them (kube's namespace
/// matcher: the informer's cache, else a live GET).
#[derive(Clone, Debug)]
pub enum LabelsLookup {
    /// Not needed (no selector restricts namespaces, or no namespace), or no cluster.
    NotLooked,
    Found(cache::Labels),
    NotFound,
    Failed(String),
}

impl NamespaceLifecycle {
    /// The labels of `namespace` (see [`Followed::labels`]).
    pub async fn labels(&self, namespace: &str) -> LabelsLookup {
        let Some(followed) = self.followed() else {
            return LabelsLookup::NotLooked;
        };
        match followed.labels(namespace).await {
            Ok(Some(labels)) => LabelsLookup::Found(labels),
            Ok(None) => LabelsLookup::NotFound,
            Err(text) => LabelsLookup::Failed(text),
        }
    }
}

impl NamespaceLifecycle {
    /// The namespace object of `namespace` for admission policies' `namespaceObject`
    /// (from the informer's cache; `None` without a cluster or when it is not there).
    pub fn object(&self, namespace: &str) -> Option<Arc<serde_json::Value>> {
        self.followed()?.cache.object(namespace)
    }
}

/// The cache of a followed cluster, and the client for live lookups.
pub struct Followed {
    cache: Arc<Cache>,
    api: Api<Namespace>,
}

impl Followed {
    /// What the cache knows now, without waiting.
    pub fn seen(&self, namespace: &str) -> Seen {
        self.cache.seen(namespace)
    }

    /// The plugin's `Admit`: waits for the first list, reads the cache, waits briefly
    /// for a missing namespace on create, and asks the cluster as a last resort.
    pub async fn admit(&self, op: Operation, namespace: &str) -> Result<(), Refusal> {
        if matches!(self.cache.seen(namespace), Seen::Unsynced) {
            self.cache.wait_synced(READY_WAIT).await;
        }
        let mut step = decision::first_look(op, namespace, self.cache.seen(namespace));
        if step == Step::Recheck {
            tokio::time::sleep(MISSING_NAMESPACE_WAIT).await;
            step = decision::after_recheck(op, self.cache.seen(namespace));
        }
        match step {
            Step::Admit => Ok(()),
            Step::Refuse(refusal) => Err(refusal),
            Step::Recheck | Step::LookUp => {
                decision::after_lookup(op, self.look_up(namespace).await?)
            }
        }
    }

    /// A live GET of the namespace's phase (`None` when the cluster says NotFound).
    async fn look_up(&self, namespace: &str) -> Result<Option<Phase>, Refusal> {
        let found = self.get(namespace).await.map_err(Refusal::LookupFailed)?;
        Ok(found.map(|entry| entry.phase))
    }

    /// The labels webhooks' `namespaceSelector`s read, as kube's namespace matcher finds
    /// them: from the cache, else a live GET (`None` when the cluster says NotFound).
    pub async fn labels(&self, namespace: &str) -> Result<Option<cache::Labels>, String> {
        if let Some(labels) = self.cache.labels(namespace) {
            return Ok(Some(labels));
        }
        Ok(self.get(namespace).await?.map(|entry| entry.labels))
    }

    /// Waits up to `within` for the first list; whether it has arrived (kube's webhook
    /// plugins wait for the namespace informer too).
    pub async fn wait_synced(&self, within: Duration) -> bool {
        self.cache.synced() || self.cache.wait_synced(within).await
    }

    /// A bounded live GET of the namespace (`None` when the cluster says NotFound).
    async fn get(&self, namespace: &str) -> Result<Option<cache::Entry>, String> {
        let lookup = tokio::time::timeout(LOOKUP_TIMEOUT, self.api.get_opt(namespace)).await;
        match lookup {
            Ok(Ok(found)) => Ok(found.as_ref().map(informer::entry)),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "no answer within {LOOKUP_TIMEOUT:?} looking up namespace {namespace}"
            )),
        }
    }
}
