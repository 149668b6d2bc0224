//! The health of one KMS v2 provider and the freshness of its write DEK (kube's
//! `kmsv2PluginProbe`): a Status call checks `healthz`, `version` and the key ID; a key ID
//! other than the state's makes a new DEK seed (one plugin Encrypt), the same one extends
//! the state's write deadline. Results are reused for 20 s when healthy, 3 s when not.
//! [`poll`] runs the check every minute, every 10 s while it fails (and at start-up
//! until it first succeeds), for as long as the provider lives.

use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

use super::api::StatusResponse;
use super::metrics::METRICS;
use super::service::Service;
use super::state::{self, NO_STATE, State, StateCell};
use super::validate::{self, aggregate, hash_if_not_empty};
use crate::gofmt::quote;

const POSITIVE_TTL: Duration = Duration::from_secs(20);
const NEGATIVE_TTL: Duration = Duration::from_secs(3);
pub const POSITIVE_INTERVAL: Duration = Duration::from_secs(60);
pub const NEGATIVE_INTERVAL: Duration = Duration::from_secs(10);

#[derive(Default)]
struct Last {
    result: Option<(Instant, Duration, Result<(), String>)>,
    /// The plugin's API version at its first answer (it may not change).
    version: String,
}

pub struct Probe {
    name: String,
    service: Arc<dyn Service>,
    state: Arc<StateCell>,
    last: Mutex<Last>,
}

impl Probe {
    pub fn new(name: &str, service: Arc<dyn Service>, state: Arc<StateCell>) -> Probe {
        Probe {
            name: name.to_owned(),
            service,
            state,
            last: Mutex::new(Last::default()),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// kube's `check`: the last result while fresh, else a new Status (one at a time).
    pub async fn check(&self) -> Result<(), String> {
        let mut last = self.last.lock().await;
        if let Some((at, ttl, result)) = &last.result
            && at.elapsed() < *ttl
        {
            return result.clone();
        }
        let (result, cached) = match self.service.status().await {
            Err(e) => (
                Err(format!(
                    "failed to perform status section of the healthz check for KMS Provider {}, error: {e}",
                    self.name
                )),
                Err(e),
            ),
            Ok(response) => {
                let result = self
                    .healthy_and_maybe_rotate(&mut last.version, response)
                    .await;
                (result.clone(), result)
            }
        };
        let ttl = if result.is_ok() {
            POSITIVE_TTL
        } else {
            NEGATIVE_TTL
        };
        last.result = Some((Instant::now(), ttl, cached));
        result
    }

    /// kube's `isKMSv2ProviderHealthyAndMaybeRotateDEK`.
    pub(super) async fn healthy_and_maybe_rotate(
        &self,
        version: &mut String,
        response: StatusResponse,
    ) -> Result<(), String> {
        let mut errs = Vec::new();
        if response.healthz != "ok" {
            errs.push(format!(
                "got unexpected healthz status: {}",
                response.healthz
            ));
        }
        if response.version != "v2" && response.version != "v2beta1" {
            errs.push(format!(
                "expected KMSv2 API version v2, got {}",
                response.version
            ));
        } else {
            if version.is_empty() {
                version.clone_from(&response.version);
            }
            if *version != response.version {
                errs.push(format!(
                    "KMSv2 API version should not change after the initial status response version {version}, got {}",
                    response.version
                ));
            }
        }
        match validate::key_id(&response.key_id) {
            Err((code, e)) => {
                METRICS.invalid_status_key_id(&self.name, code.code());
                errs.push(format!(
                    "got invalid KMSv2 KeyID hash {}: {e}",
                    quote(&hash_if_not_empty(&response.key_id))
                ));
            }
            Ok(()) => {
                METRICS.status_key_id(&self.name, &response.key_id);
                if let Err(e) = self.rotate_on_key_id_change(&response.key_id).await {
                    errs.push(e);
                }
            }
        }
        match aggregate(errs) {
            None => Ok(()),
            Some(e) => Err(format!(
                "kmsv2 Provider {} is not healthy, error: {e}",
                self.name
            )),
        }
    }

    /// kube's `rotateDEKOnKeyIDChange`: the same key ID extends the state, another one
    /// makes a new seed; on failure the state is kept (writable until its deadline).
    async fn rotate_on_key_id_change(&self, status_key_id: &str) -> Result<(), String> {
        let current = self.state.load();
        if let Some(state) = &current
            && state.key_id == status_key_id
        {
            self.state.store(state.extended());
            return Ok(());
        }
        let uid = uuid::Uuid::new_v4().to_string();
        let generated = state::generate(self.service.as_ref(), &uid).await;
        let err_gen = match generated {
            Ok(new) if new.key_id == status_key_id => {
                tracing::info!(
                    name = %self.name,
                    uid,
                    new_key_id_hash = %new.key_id_hash,
                    old_key_id_hash = %current.as_ref().map(|s| s.key_id_hash.as_str()).unwrap_or(""),
                    "successfully rotated DEK"
                );
                self.state.store(new);
                return Ok(());
            }
            Ok(new) => (String::from("<nil>"), new.key_id_hash),
            Err(e) => (e, String::new()),
        };
        Err(rotate_error(
            &uid,
            current.as_deref(),
            status_key_id,
            err_gen,
        ))
    }
}

fn rotate_error(
    uid: &str,
    current: Option<&State>,
    status_key_id: &str,
    (err_gen, encrypt_key_id_hash): (String, String),
) -> String {
    let err_state = if current.is_some() { "<nil>" } else { NO_STATE };
    let (state_hash, expiration) = match current {
        Some(s) => (s.key_id_hash.clone(), state::rfc3339(s.expires_at)),
        None => (String::new(), "0001-01-01T00:00:00Z".to_owned()),
    };
    format!(
        "failed to rotate DEK uid={}, useSeed=true, errState={err_state}, errGen={err_gen}, statusKeyIDHash={}, encryptKeyIDHash={}, stateKeyIDHash={}, expirationTimestamp={expiration}",
        quote(uid),
        quote(&hash_if_not_empty(status_key_id)),
        quote(&encrypt_key_id_hash),
        quote(&state_hash),
    )
}

/// kube's `primeAndProbeKMSv2` after its inline first check (`primed` says whether that
/// one succeeded): every [`NEGATIVE_INTERVAL`] until a check succeeds, then every
/// [`POSITIVE_INTERVAL`], back to the fast pace on a failure. Ends when the provider is
/// dropped.
pub async fn poll(probe: Weak<Probe>, primed: bool) {
    if !primed && !until_healthy(&probe).await {
        return;
    }
    loop {
        tokio::time::sleep(POSITIVE_INTERVAL).await;
        let Some(p) = probe.upgrade() else { return };
        let ok = check_and_log(&p).await;
        drop(p);
        if !ok && !until_healthy(&probe).await {
            return;
        }
    }
}

/// Checks every [`NEGATIVE_INTERVAL`] until a check succeeds (true) or the provider is
/// gone (false).
async fn until_healthy(probe: &Weak<Probe>) -> bool {
    loop {
        tokio::time::sleep(NEGATIVE_INTERVAL).await;
        let Some(p) = probe.upgrade() else {
            return false;
        };
        if check_and_log(&p).await {
            return true;
        }
    }
}

/// One check; a failure is logged (kube logs each).
pub async fn check_and_log(probe: &Probe) -> bool {
    match probe.check().await {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(name = %probe.name, error = %e, "kms plugin failed health check probe");
            false
        }
    }
}
