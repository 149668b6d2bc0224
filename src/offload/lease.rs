//! Leader election for offload: only the replica holding the `coordination.k8s.io/v1`
//! Lease [`LEASE_NAME`] in the service namespace moves units. client-go's leaderelection
//! with kube's timings: a 15 s lease, renewed every 2 s (retry period); a leader that
//! could not renew for 10 s (renew deadline) stops leading; a follower takes over a
//! lease whose record has not changed for 15 s, as observed by its own clock.

use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::api::{Api, PostParams};
use tokio::sync::watch;

pub const LEASE_NAME: &str = "crd-apiserver-offload";
const LEASE_DURATION: Duration = Duration::from_secs(15);
const RENEW_DEADLINE: Duration = Duration::from_secs(10);
const RETRY_PERIOD: Duration = Duration::from_secs(2);

/// The holder's record as last observed, and when it last changed (our clock).
struct Observed {
    record: (Option<String>, Option<MicroTime>, Option<i32>),
    since: Instant,
}

/// One replica's candidacy.
pub struct Election {
    api: Api<Lease>,
    identity: String,
    observed: Option<Observed>,
}

impl Election {
    /// `identity`: client-go's `<hostname>_<uuid>`.
    pub fn new(client: kube::Client, namespace: &str, identity: String) -> Election {
        Election {
            api: Api::namespaced(client, namespace),
            identity,
            observed: None,
        }
    }

    /// Tries to acquire or renew every retry period forever; `leader` says whether we lead.
    pub async fn run(mut self, leader: watch::Sender<bool>) {
        let mut renewed: Option<Instant> = None;
        loop {
            // One attempt may not outlast the renew deadline (client-go bounds renewals by
            // it): a hung call must not keep us leading while another replica takes over.
            let budget = renewed.map_or(RENEW_DEADLINE, |r| {
                RENEW_DEADLINE.saturating_sub(r.elapsed())
            });
            let attempt =
                tokio::time::timeout(budget.max(RETRY_PERIOD), self.try_acquire_or_renew()).await;
            match attempt.unwrap_or(Ok(false)) {
                Ok(true) => {
                    renewed = Some(Instant::now());
                    if !*leader.borrow() {
                        tracing::info!(identity = %self.identity, "offload: leading (Lease {LEASE_NAME})");
                    }
                    leader.send_if_modified(|l| !std::mem::replace(l, true));
                }
                outcome => {
                    if let Err(e) = &outcome {
                        tracing::warn!(error = %e, "offload: the Lease could not be acquired or renewed");
                    }
                    // Someone else holds it (`Ok(false)`): not leading, at once.
                    let taken = matches!(outcome, Ok(false));
                    if taken || renewed.is_none_or(|r| r.elapsed() >= RENEW_DEADLINE) {
                        if *leader.borrow() {
                            tracing::warn!(
                                "offload: no longer leading (Lease {LEASE_NAME} not renewed)"
                            );
                        }
                        renewed = None;
                        leader.send_if_modified(|l| std::mem::replace(l, false));
                    }
                }
            }
            tokio::time::sleep(RETRY_PERIOD).await;
        }
    }

    async fn try_acquire_or_renew(&mut self) -> Result<bool, kube::Error> {
        let now = MicroTime(jiff::Timestamp::now());
        let Some(mut lease) = self.api.get_opt(LEASE_NAME).await? else {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(LEASE_NAME.to_string()),
                    ..ObjectMeta::default()
                },
                spec: Some(self.spec(None, now)),
            };
            return conflict_is_false(self.api.create(&PostParams::default(), &lease).await);
        };
        let spec = lease.spec.clone().unwrap_or_default();
        let record = (
            spec.holder_identity.clone(),
            spec.renew_time.clone(),
            spec.lease_transitions,
        );
        if self.observed.as_ref().is_none_or(|o| o.record != record) {
            self.observed = Some(Observed {
                record,
                since: Instant::now(),
            });
        }
        let holder = spec.holder_identity.as_deref().unwrap_or_default();
        let fresh = self
            .observed
            .as_ref()
            .is_some_and(|o| o.since.elapsed() < LEASE_DURATION);
        if !holder.is_empty() && holder != self.identity && fresh {
            return Ok(false);
        }
        lease.spec = Some(self.spec(Some(spec), now));
        conflict_is_false(
            self.api
                .replace(LEASE_NAME, &PostParams::default(), &lease)
                .await,
        )
    }

    /// The spec naming us: renewed now; acquired now (one more transition) if it was not ours.
    fn spec(&self, old: Option<LeaseSpec>, now: MicroTime) -> LeaseSpec {
        let ours = old
            .as_ref()
            .is_some_and(|s| s.holder_identity.as_deref() == Some(&self.identity));
        let transitions = old.as_ref().and_then(|s| s.lease_transitions).unwrap_or(0);
        LeaseSpec {
            holder_identity: Some(self.identity.clone()),
            lease_duration_seconds: Some(LEASE_DURATION.as_secs() as i32),
            acquire_time: match (&old, ours) {
                (Some(s), true) => s.acquire_time.clone(),
                _ => Some(now.clone()),
            },
            renew_time: Some(now),
            lease_transitions: Some(match (&old, ours) {
                (Some(_), false) => transitions + 1,
                _ => transitions,
            }),
            ..LeaseSpec::default()
        }
    }
}

/// A write that lost a race (409) means someone else holds the Lease.
fn conflict_is_false<T>(result: Result<T, kube::Error>) -> Result<bool, kube::Error> {
    match result {
        Ok(_) => Ok(true),
        Err(kube::Error::Api(s)) if s.code == 409 => Ok(false),
        Err(e) => Err(e),
    }
}

/// client-go's leader-election identity: `<hostname>_<uuid>`.
pub fn identity() -> String {
    format!("{}_{}", hostname(), uuid::Uuid::new_v4())
}

/// The host name (events' `reportingInstance`).
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "crd-apiserver".to_string())
}
