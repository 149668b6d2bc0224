//! `--register-apiservices`: our APIServices kept as [`Desired`] says, for every served
//! group/version. A reconcile lists the host's APIServices, then applies (server-side
//! apply, field manager [`FIELD_MANAGER`], force) those absent or ours that differ,
//! warns once about each not ours, and deletes ours no longer served (uid
//! precondition). It runs when the catalog changes, when the CA bundle changes, on every
//! watch event of our APIServices (someone edited or deleted one), and every
//! [`PERIOD`]; a failed reconcile is retried with a backoff (1 s doubling to 30 s).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, Preconditions};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use tokio::sync::{Notify, watch};

use super::desired::Desired;
use super::plan::{Action, Warned, plan};
use super::{FIELD_MANAGER, OWNER_LABEL};
use crate::cluster::informer::{Reflector, Sink};
use crate::crd::catalog::Catalog;
use crate::metrics::Metrics;

/// How often a reconcile runs with nothing else waking it.
pub const PERIOD: Duration = Duration::from_secs(60);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// The shortest time between two reconciles woken by watch events, so that two writers
/// disagreeing (another replica with an older CA bundle, say) cannot spin.
const MIN_SPACING: Duration = Duration::from_millis(500);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    result: &'static str,
}

/// `crd_apiserver_apiservice_reconciles_total{result}`: `success` or `error`.
#[derive(Clone, Default)]
pub struct ReconcileMetrics {
    reconciles: Family<ResultLabels, Counter>,
}

impl ReconcileMetrics {
    pub fn register(metrics: &mut Metrics) -> ReconcileMetrics {
        let families = ReconcileMetrics::default();
        metrics.register(
            "crd_apiserver_apiservice_reconciles",
            "Reconciles of this server's APIServices in the host cluster, by result.",
            families.reconciles.clone(),
        );
        families
    }

    fn count(&self, result: &'static str) {
        self.reconciles
            .get_or_create(&ResultLabels { result })
            .inc();
    }
}

/// The reconcile loop's state.
pub struct Registrar {
    api: Api<APIService>,
    desired: Desired,
    catalog: watch::Receiver<Arc<Catalog>>,
    metrics: ReconcileMetrics,
    warned: Warned,
    /// Told when one of ours carries another caBundle than ours: the bundle's source
    /// (the serving CA Secret) is read again, as another replica may have rotated it.
    bundle_check: Option<Arc<Notify>>,
}

/// Wakes the loop on every event of our APIServices.
struct Wake(Arc<Notify>);

impl Sink<APIService> for Wake {
    fn replace(&self, _: Vec<APIService>) {
        self.0.notify_one();
    }
    fn upsert(&self, _: APIService) {
        self.0.notify_one();
    }
    fn remove(&self, _: APIService) {
        self.0.notify_one();
    }
}

/// The served (group, version) pairs of `catalog`.
pub fn served(catalog: &Catalog) -> BTreeSet<(String, String)> {
    catalog
        .groups()
        .iter()
        .flat_map(|g| {
            g.versions
                .iter()
                .map(|v| (g.group.to_string(), v.to_string()))
        })
        .collect()
}

impl Registrar {
    pub fn new(
        client: kube::Client,
        desired: Desired,
        catalog: watch::Receiver<Arc<Catalog>>,
        metrics: ReconcileMetrics,
    ) -> Registrar {
        Registrar {
            api: Api::all(client),
            desired,
            catalog,
            metrics,
            warned: Warned::default(),
            bundle_check: None,
        }
    }

    /// Tells `check` whenever one of ours carries a caBundle other than ours.
    pub fn with_bundle_check(mut self, check: Arc<Notify>) -> Registrar {
        self.bundle_check = Some(check);
        self
    }

    fn check_bundles(&self, existing: &[APIService]) {
        let Some(check) = &self.bundle_check else {
            return;
        };
        let ours = self.desired.ca_bundle.borrow().clone();
        let differs = existing.iter().filter(|a| self.desired.owns(a)).any(|a| {
            let theirs = a.spec.as_ref().and_then(|s| s.ca_bundle.as_ref());
            theirs.map_or(&[][..], |b| b.0.as_slice()) != ours.as_slice()
        });
        if differs {
            check.notify_one();
        }
    }

    /// One reconcile; the writes it made.
    pub async fn reconcile(&mut self) -> Result<usize, kube::Error> {
        if self.desired.ca_bundle.borrow().is_empty() {
            tracing::warn!("registration: no CA bundle yet; APIServices are not applied");
            return Ok(0);
        }
        let served = served(&self.catalog.borrow_and_update());
        let existing = self.api.list(&ListParams::default()).await?.items;
        self.check_bundles(&existing);
        let mut writes = 0;
        let mut not_owned = BTreeSet::new();
        for action in plan(&served, &existing, &self.desired) {
            match action {
                Action::Apply { group, version } => {
                    self.apply(&group, &version).await?;
                    writes += 1;
                }
                Action::Delete { name, uid } => {
                    self.delete(&name, uid).await?;
                    writes += 1;
                }
                Action::NotOwned { name, owner } => {
                    let uid = existing
                        .iter()
                        .find(|a| a.metadata.name.as_deref() == Some(&name))
                        .and_then(|a| a.metadata.uid.clone());
                    if self.warned.first(&name, uid, owner.clone()) {
                        tracing::warn!(apiservice = %name, owner = owner.as_deref().unwrap_or(""), "registration: the APIService exists and is not ours ({OWNER_LABEL} is not {}); left alone", self.desired.route.owner());
                    }
                    not_owned.insert(name);
                }
            }
        }
        self.warned.retain(&not_owned);
        Ok(writes)
    }

    async fn apply(&self, group: &str, version: &str) -> Result<(), kube::Error> {
        let apiservice = self.desired.apiservice(group, version);
        let name = Desired::name(group, version);
        let params = PatchParams::apply(FIELD_MANAGER).force();
        self.api
            .patch(&name, &params, &Patch::Apply(&apiservice))
            .await?;
        tracing::info!(apiservice = %name, "registration: applied");
        Ok(())
    }

    async fn delete(&self, name: &str, uid: String) -> Result<(), kube::Error> {
        let params = DeleteParams {
            preconditions: Some(Preconditions {
                uid: Some(uid),
                resource_version: None,
            }),
            ..DeleteParams::default()
        };
        match self.api.delete(name, &params).await {
            Ok(_) => {
                tracing::info!(apiservice = %name, "registration: deleted (its group/version is no longer served)");
                Ok(())
            }
            // Gone already, or replaced by another object meanwhile: nothing to do.
            Err(kube::Error::Api(s)) if s.code == 404 || s.code == 409 => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Runs until the process ends.
    pub async fn run(mut self) {
        let wake = Arc::new(Notify::new());
        let selector = format!("{OWNER_LABEL}={}", self.desired.route.owner());
        let reflector = Reflector::new(
            self.api.clone(),
            Arc::new(Wake(wake.clone())),
            "apiservices",
        )
        .with_label_selector(&selector);
        tokio::spawn(reflector.run());
        let mut bundle = self.desired.ca_bundle.clone();
        let mut catalog = self.catalog.clone();
        let mut ticker = tokio::time::interval(PERIOD);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut backoff: Option<Duration> = None;
        loop {
            bundle.borrow_and_update();
            catalog.borrow_and_update();
            match self.reconcile().await {
                Ok(_) => {
                    self.metrics.count("success");
                    backoff = None;
                }
                Err(e) => {
                    self.metrics.count("error");
                    tracing::warn!(error = %e, "registration: reconcile failed; retrying");
                    backoff =
                        Some(backoff.map_or(Duration::from_secs(1), |b| (b * 2).min(MAX_BACKOFF)));
                }
            }
            let retry = async {
                match backoff {
                    Some(b) => tokio::time::sleep(b).await,
                    None => std::future::pending().await,
                }
            };
            let spaced = async {
                tokio::time::sleep(MIN_SPACING).await;
                wake.notified().await;
            };
            tokio::select! {
                _ = changed(&mut catalog) => {}
                _ = changed(&mut bundle) => {}
                _ = spaced => {}
                _ = ticker.tick() => {}
                _ = retry => {}
            }
        }
    }
}

/// A change of `rx`; never, once its sender is gone.
async fn changed<T>(rx: &mut watch::Receiver<T>) {
    if rx.changed().await.is_err() {
        std::future::pending::<()>().await;
    }
}
