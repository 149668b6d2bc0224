//! `--register-apiservices`: our APIServices kept as [`Desired`] says, for every served
//! group/version. A reconcile lists the host's APIServices, then creates (POST, field
//! manager [`FIELD_MANAGER`]) those absent, applies (server-side apply, force, with the
//! listed uid and resourceVersion as preconditions) ours that differ, warns once about
//! each not ours, and deletes ours this process served and no longer serves (uid
//! precondition). A 409 (someone wrote in between) is no error: the next round plans
//! again from a new list. Every action runs; the failed ones are logged each and the
//! round counts as an error. It runs when the catalog changes, when the CA bundle
//! changes, on every watch event of our APIServices (someone edited or deleted one), and
//! every [`PERIOD`]; a failed or conflicted reconcile is retried with a backoff (1 s
//! doubling to 30 s).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, Preconditions};
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
    /// The APIService names this process has served at some point: only those are
    /// deleted once no longer served (offload's switched APIServices carry our label
    /// before offload serves their group again after a restart).
    ever_served: BTreeSet<String>,
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
            ever_served: BTreeSet::new(),
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

    /// One reconcile: every action planned is attempted, whatever the others gave.
    pub async fn reconcile(&mut self) -> Result<Round, kube::Error> {
        if self.desired.ca_bundle.borrow().is_empty() {
            tracing::warn!("registration: no CA bundle yet; APIServices are not applied");
            return Ok(Round::default());
        }
        let served = served(&self.catalog.borrow_and_update());
        self.ever_served
            .extend(served.iter().map(|(g, v)| Desired::name(g, v)));
        let existing = self.api.list(&ListParams::default()).await?.items;
        self.check_bundles(&existing);
        let mut round = Round::default();
        let mut not_owned = BTreeSet::new();
        for action in plan(&served, &self.ever_served, &existing, &self.desired) {
            let name = match &action {
                Action::Create { group, version } | Action::Apply { group, version, .. } => {
                    Desired::name(group, version)
                }
                Action::Delete { name, .. } | Action::NotOwned { name, .. } => name.clone(),
            };
            let done = match action {
                Action::Create { group, version } => self.create(&group, &version).await,
                Action::Apply {
                    group,
                    version,
                    uid,
                    resource_version,
                } => self.apply(&group, &version, uid, resource_version).await,
                Action::Delete { name, uid } => self.delete(&name, uid).await,
                Action::NotOwned { name, owner } => {
                    self.not_owned(&existing, &name, owner);
                    not_owned.insert(name);
                    Ok(Done::Nothing)
                }
            };
            round.add(&name, done);
        }
        self.warned.retain(&not_owned);
        Ok(round)
    }

    fn not_owned(&mut self, existing: &[APIService], name: &str, owner: Option<String>) {
        let uid = existing
            .iter()
            .find(|a| a.metadata.name.as_deref() == Some(name))
            .and_then(|a| a.metadata.uid.clone());
        if self.warned.first(name, uid, owner.clone()) {
            tracing::warn!(apiservice = %name, owner = owner.as_deref().unwrap_or(""), "registration: the APIService exists and is not ours ({OWNER_LABEL} is not {}); left alone", self.desired.route.owner());
        }
    }

    /// POST: an APIService made by someone else since our list is a 409, never taken over.
    async fn create(&self, group: &str, version: &str) -> Result<Done, kube::Error> {
        let apiservice = self.desired.apiservice(group, version);
        let params = PostParams {
            field_manager: Some(FIELD_MANAGER.to_string()),
            ..PostParams::default()
        };
        written(self.api.create(&params, &apiservice).await, "created")
    }

    /// Server-side apply over ours as listed: its uid and resourceVersion in the body
    /// make kube answer 409 when it changed since (replaced, or edited by someone).
    async fn apply(
        &self,
        group: &str,
        version: &str,
        uid: Option<String>,
        resource_version: Option<String>,
    ) -> Result<Done, kube::Error> {
        let mut apiservice = self.desired.apiservice(group, version);
        apiservice.metadata.uid = uid;
        apiservice.metadata.resource_version = resource_version;
        let name = Desired::name(group, version);
        let params = PatchParams::apply(FIELD_MANAGER).force();
        let result = self
            .api
            .patch(&name, &params, &Patch::Apply(&apiservice))
            .await;
        written(result, "applied")
    }

    async fn delete(&self, name: &str, uid: String) -> Result<Done, kube::Error> {
        let params = DeleteParams {
            preconditions: Some(Preconditions {
                uid: Some(uid),
                resource_version: None,
            }),
            ..DeleteParams::default()
        };
        match self.api.delete(name, &params).await {
            Ok(_) => Ok(Done::Wrote(
                "deleted (its group/version is no longer served)",
            )),
            // Gone already, or replaced by another object meanwhile: nothing to do.
            Err(kube::Error::Api(s)) if s.code == 404 || s.code == 409 => Ok(Done::Nothing),
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
        // The first tick a period from now: the loop reconciles at once by itself.
        let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + PERIOD, PERIOD);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut backoff: Option<Duration> = None;
        loop {
            bundle.borrow_and_update();
            catalog.borrow_and_update();
            let retry_soon = match self.reconcile().await {
                Ok(round) if round.failed == 0 => {
                    self.metrics.count("success");
                    round.conflicts > 0
                }
                Ok(round) => {
                    self.metrics.count("error");
                    tracing::warn!(
                        failed = round.failed,
                        "registration: reconcile failed in part; retrying"
                    );
                    true
                }
                Err(e) => {
                    self.metrics.count("error");
                    tracing::warn!(error = %e, "registration: listing APIServices failed; retrying");
                    true
                }
            };
            backoff = match retry_soon {
                true => Some(backoff.map_or(Duration::from_secs(1), |b| (b * 2).min(MAX_BACKOFF))),
                false => None,
            };
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

/// What one action did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done {
    /// Written (`what` for the log: created, applied, deleted).
    Wrote(&'static str),
    /// Nothing to write (gone already, or not ours).
    Nothing,
    /// A 409: someone wrote in between; the next round plans again.
    Conflict,
}

/// The outcome of one reconcile's actions.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Round {
    pub writes: usize,
    pub conflicts: usize,
    pub failed: usize,
}

impl Round {
    /// Counts (and logs) one action's result on the APIService `name`.
    pub fn add(&mut self, name: &str, done: Result<Done, kube::Error>) {
        match done {
            Ok(Done::Wrote(what)) => {
                self.writes += 1;
                tracing::info!(apiservice = %name, "registration: {what}");
            }
            Ok(Done::Nothing) => {}
            Ok(Done::Conflict) => {
                self.conflicts += 1;
                tracing::info!(apiservice = %name, "registration: changed by someone else meanwhile (409); planned again next round");
            }
            Err(e) => {
                self.failed += 1;
                tracing::warn!(apiservice = %name, error = %e, "registration: writing the APIService failed");
            }
        }
    }
}

/// A write's answer: [`Done::Wrote`] `what`, a 409 as [`Done::Conflict`], else the error.
fn written<T>(result: Result<T, kube::Error>, what: &'static str) -> Result<Done, kube::Error> {
    match result {
        Ok(_) => Ok(Done::Wrote(what)),
        Err(kube::Error::Api(s)) if s.code == 409 => Ok(Done::Conflict),
        Err(e) => Err(e),
    }
}

/// A change of `rx`; never, once its sender is gone.
async fn changed<T>(rx: &mut watch::Receiver<T>) {
    if rx.changed().await.is_err() {
        std::future::pending::<()>().await;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn round_each_result_counted_failures_do_not_stop_counting() {
        let failed = || {
            Err(kube::Error::Api(
                serde_json::from_value(serde_json::json!({"code": 500, "message": "boom",
                    "reason": "InternalError", "status": "Failure"}))
                .unwrap(),
            ))
        };
        let mut round = Round::default();
        round.add("v1.a", failed());
        round.add("v1.b", Ok(Done::Wrote("created")));
        round.add("v1.c", Ok(Done::Conflict));
        round.add("v1.d", failed());
        round.add("v1.e", Ok(Done::Nothing));
        let want = Round {
            writes: 1,
            conflicts: 1,
            failed: 2,
        };
        assert_eq!(round, want);
    }
}
