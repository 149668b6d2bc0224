//! Offload's controller: follows every host CRD (group completeness needs the unselected
//! ones too) into a store, and runs one task per unit (API group), serial within it, each
//! calling its [`Driver`] whenever the group's CRDs change. Only the replica holding the
//! Lease moves units; every replica serves what the records say is served.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use tokio::sync::{Notify, mpsc, watch};

use super::Steps;
use super::driver::{Driver, Outcome};
use super::events::Notice;
use super::host::Host;
use super::metrics::OffloadMetrics;
use super::record::Record;
use crate::cluster::informer::Sink;
use crate::selector::label::LabelSelector;

const MIN_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// How often "not Available yet" is looked at again.
const AVAILABLE_POLL: Duration = Duration::from_secs(2);
/// How often an idle unit is looked at anyway (definitions kept after a deletion at the
/// host are checked for remaining objects; anything missed is caught up).
const RESYNC: Duration = Duration::from_secs(30);

/// The host's CRDs by name, and the groups that changed.
pub struct Store {
    crds: Mutex<BTreeMap<String, CustomResourceDefinition>>,
    changed: mpsc::UnboundedSender<String>,
}

fn group(crd: &CustomResourceDefinition) -> String {
    crd.spec.group.clone()
}

/// Whether `new` is not older than `old` (resourceVersions compared as numbers when both
/// are; else the newcomer wins).
fn newer(new: &CustomResourceDefinition, old: &CustomResourceDefinition) -> bool {
    let version = |c: &CustomResourceDefinition| {
        c.metadata
            .resource_version
            .as_deref()
            .and_then(|v| v.parse::<u64>().ok())
    };
    match (version(new), version(old)) {
        (Some(n), Some(o)) => n >= o,
        _ => true,
    }
}

impl Store {
    pub fn new() -> (Arc<Store>, mpsc::UnboundedReceiver<String>) {
        let (changed, rx) = mpsc::unbounded_channel();
        let store = Store {
            crds: Mutex::default(),
            changed,
        };
        (Arc::new(store), rx)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, CustomResourceDefinition>> {
        self.crds.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The CRDs of `group`, sorted by name.
    pub fn group(&self, group: &str) -> Vec<CustomResourceDefinition> {
        self.lock()
            .values()
            .filter(|c| c.spec.group == group)
            .cloned()
            .collect()
    }

    fn changed(&self, group: String) {
        // The controller ends only with the process.
        let _ = self.changed.send(group);
    }
}

impl Sink<CustomResourceDefinition> for Store {
    fn replace(&self, listed: Vec<CustomResourceDefinition>) {
        let mut groups: Vec<String> = self.lock().values().map(group).collect();
        let next: BTreeMap<String, CustomResourceDefinition> = listed
            .into_iter()
            .map(|c| (c.metadata.name.clone().unwrap_or_default(), c))
            .collect();
        groups.extend(next.values().map(group));
        *self.lock() = next;
        groups.sort();
        groups.dedup();
        groups.into_iter().for_each(|g| self.changed(g));
    }

    fn upsert(&self, object: CustomResourceDefinition) {
        let name = object.metadata.name.clone().unwrap_or_default();
        let g = group(&object);
        {
            let mut crds = self.lock();
            match crds.get(&name) {
                Some(old) if !newer(&object, old) => return,
                _ => crds.insert(name, object),
            };
        }
        self.changed(g);
    }

    fn remove(&self, object: CustomResourceDefinition) {
        let name = object.metadata.name.clone().unwrap_or_default();
        self.lock().remove(&name);
        self.changed(group(&object));
    }
}

/// The host, with each CRD it writes put in the store at once (so the next decision sees
/// its own record without waiting for the watch).
struct Written {
    host: Arc<dyn Host>,
    store: Arc<Store>,
}

#[async_trait::async_trait]
impl Host for Written {
    async fn write_record(
        &self,
        crd: &CustomResourceDefinition,
        record: Option<&Record>,
    ) -> Result<CustomResourceDefinition, String> {
        let written = self.host.write_record(crd, record).await?;
        let name = written.metadata.name.clone().unwrap_or_default();
        let mut crds = self.store.lock();
        if crds.get(&name).is_none_or(|old| newer(&written, old)) {
            crds.insert(name, written.clone());
        }
        Ok(written)
    }

    async fn emit(&self, notice: Notice) {
        self.host.emit(notice).await
    }
}

/// What every unit's task shares.
#[derive(Clone)]
pub struct Controller {
    pub store: Arc<Store>,
    pub steps: Arc<dyn Steps>,
    pub host: Arc<dyn Host>,
    pub metrics: OffloadMetrics,
    pub selector: LabelSelector,
    /// Whether this replica holds the Lease.
    pub leader: watch::Receiver<bool>,
}

impl Controller {
    /// Routes each changed group to its unit's task (started on first sight); runs until
    /// the store's sender is gone.
    pub async fn run(self, mut changed: mpsc::UnboundedReceiver<String>) {
        let mut units: HashMap<String, Arc<Notify>> = HashMap::new();
        let mut leader = self.leader.clone();
        loop {
            tokio::select! {
                group = changed.recv() => {
                    let Some(group) = group else { return };
                    let notify = units.entry(group.clone()).or_insert_with(|| {
                        let notify = Arc::new(Notify::new());
                        tokio::spawn(self.clone().unit(group, notify.clone()));
                        notify
                    });
                    notify.notify_one();
                }
                changed = leader.changed() => {
                    if changed.is_err() { return }
                    units.values().for_each(|n| n.notify_one());
                }
            }
        }
    }

    /// One unit's task: advances its driver, waiting for a change when idle, backing off
    /// when a step failed; a step in flight is dropped when the Lease is lost.
    async fn unit(self, group: String, notify: Arc<Notify>) {
        let host: Arc<dyn Host> = Arc::new(Written {
            host: self.host.clone(),
            store: self.store.clone(),
        });
        let mut driver = Driver::new(
            group.clone(),
            self.steps.clone(),
            host,
            self.metrics.clone(),
            self.selector.clone(),
        );
        let mut leader = self.leader.clone();
        let mut backoff = MIN_BACKOFF;
        loop {
            let leading = *leader.borrow_and_update();
            let crds = self.store.group(&group);
            let outcome = tokio::select! {
                outcome = driver.advance(&crds, leading) => outcome,
                _ = lost(&mut leader), if leading => continue,
            };
            let wait = match outcome {
                Outcome::Progressed => {
                    backoff = MIN_BACKOFF;
                    continue;
                }
                Outcome::Idle => {
                    backoff = MIN_BACKOFF;
                    RESYNC
                }
                Outcome::NotYet => AVAILABLE_POLL,
                Outcome::Retry(message) => {
                    tracing::warn!(group = %group, error = %message, retry_in = ?backoff, "offload step failed");
                    let wait = backoff;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                    tokio::time::sleep(wait).await;
                    continue;
                }
            };
            tokio::select! {
                _ = notify.notified() => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }
}

/// Resolves once this replica no longer leads.
async fn lost(leader: &mut watch::Receiver<bool>) {
    if leader.wait_for(|l| !*l).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Starts offload mode (`--offload-selector`): the reflector over the host's CRDs, the
/// Lease election in `namespace`, and the controller, all as background tasks.
pub fn start(
    client: kube::Client,
    steps: Arc<dyn Steps>,
    selector: LabelSelector,
    namespace: &str,
    metrics: OffloadMetrics,
) {
    let (store, changed) = Store::new();
    let crds: kube::Api<CustomResourceDefinition> = kube::Api::all(client.clone());
    let reflector =
        crate::cluster::informer::Reflector::new(crds, store.clone(), "customresourcedefinitions");
    tokio::spawn(reflector.run());
    let (leading, leader) = watch::channel(false);
    let election = super::lease::Election::new(client.clone(), namespace, super::lease::identity());
    tokio::spawn(election.run(leading));
    let controller = Controller {
        store,
        steps,
        host: Arc::new(super::host::KubeHost::new(client, super::lease::hostname())),
        metrics,
        selector,
        leader,
    };
    tokio::spawn(controller.run(changed));
}
