//! `--serving-ca-secret <ns>/<name>`: our own serving CA and certificate kept in a Secret
//! of the host cluster. Replicas agree through the API server: the Secret is created if
//! absent (POST; a 409 means another replica won: theirs is used) and renewed with PUT
//! and its resourceVersion (a 409: re-read, and theirs is used if it needs nothing
//! more). The serving pair is written to `--cert-dir/serving-ca-secret/{tls.crt,tls.key}`
//! for the serving-certificate reloader, and the bundle (`ca.crt`) is published for the
//! APIServices' caBundle. A Secret of that name without our label
//! `app.kubernetes.io/managed-by=crd-apiserver` is someone else's: it is refused (a clear
//! error) and never overwritten.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, PostParams};
use tokio::sync::{Notify, watch};

use super::ca_contents::{Contents, Lifetimes};
use super::pki::{self, PkiError};
use super::rotation::{Plan, plan, wait};

/// How often the Secret is read even when nothing is due: another replica may have
/// rotated it.
pub const POLL: Duration = Duration::from_secs(30);
/// Writes one round may make (create or renew, then a prune, with conflicts between).
const MAX_WRITES: usize = 6;
/// The directory under `--cert-dir` the serving pair is written to.
pub const DIR: &str = "serving-ca-secret";

/// Why a round failed.
#[derive(Debug, thiserror::Error)]
pub enum CaSecretError {
    #[error("--serving-ca-secret {secret}: {source}")]
    Api { secret: String, source: kube::Error },
    #[error(transparent)]
    Pki(#[from] PkiError),
    #[error("--serving-ca-secret {0}: still changing after {MAX_WRITES} writes")]
    Unsettled(String),
    #[error("--serving-ca-secret {0}: the Secret exists and is not ours (it lacks the label {MANAGED_BY}={manager}); it is never overwritten: name another Secret, or label this one if it is meant for us", manager = super::FIELD_MANAGER)]
    NotOurs(String),
}

/// The label on the Secret we create; one without it is not ours.
pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";

/// Whether `secret` carries our [`MANAGED_BY`] label.
pub fn ours(secret: &Secret) -> bool {
    secret
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(MANAGED_BY))
        .is_some_and(|v| v == super::FIELD_MANAGER)
}

/// The Secret kept, and where its pair and bundle go.
pub struct CaSecret {
    api: Api<Secret>,
    namespace: String,
    name: String,
    hosts: Vec<String>,
    lifetimes: Lifetimes,
    dir: PathBuf,
    bundle: watch::Sender<Arc<Vec<u8>>>,
    /// Wakes the renewal loop for a round now (registration saw another bundle).
    refresh: Arc<Notify>,
}

impl CaSecret {
    /// Keeps `namespace/name` for a serving certificate of `hosts`, the pair written
    /// under `cert_dir`.
    pub fn new(
        client: kube::Client,
        (namespace, name): (String, String),
        hosts: Vec<String>,
        lifetimes: Lifetimes,
        cert_dir: &Path,
    ) -> CaSecret {
        CaSecret {
            api: Api::namespaced(client, &namespace),
            namespace,
            name,
            hosts,
            lifetimes,
            dir: cert_dir.join(DIR),
            bundle: watch::Sender::new(Arc::new(Vec::new())),
            refresh: Arc::new(Notify::new()),
        }
    }

    /// Notifying it makes the next round start now, not when something is due.
    pub fn refresh(&self) -> Arc<Notify> {
        self.refresh.clone()
    }

    /// The serving pair's files (present once [`CaSecret::round`] succeeded).
    pub fn files(&self) -> (PathBuf, PathBuf) {
        (self.dir.join("tls.crt"), self.dir.join("tls.key"))
    }

    /// Follows the CA bundle (PEM) the Secret holds.
    pub fn bundle(&self) -> watch::Receiver<Arc<Vec<u8>>> {
        self.bundle.subscribe()
    }

    fn describe(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    fn api_error(&self) -> impl Fn(kube::Error) -> CaSecretError + '_ {
        move |source| CaSecretError::Api {
            secret: self.describe(),
            source,
        }
    }

    /// One round: read, write what is due, write the pair's files and publish the
    /// bundle; when to look again.
    pub async fn round(&self) -> Result<Duration, CaSecretError> {
        for _ in 0..MAX_WRITES {
            let current = self
                .api
                .get_opt(&self.name)
                .await
                .map_err(self.api_error())?;
            if current.as_ref().is_some_and(|s| !ours(s)) {
                return Err(CaSecretError::NotOurs(self.describe()));
            }
            let contents = Contents::from_data(current.as_ref().and_then(|s| s.data.as_ref()));
            let now = SystemTime::now();
            let next = plan(&contents.held(), &self.hosts, now);
            if let Plan::Keep { until } = next {
                self.use_contents(&contents)?;
                return Ok(wait(until, now, POLL));
            }
            tracing::info!(secret = %self.describe(), plan = ?next, "serving CA secret: writing");
            let written = contents.next(&next, &self.hosts, self.lifetimes, now)?;
            self.write(current, &written).await?;
        }
        Err(CaSecretError::Unsettled(self.describe()))
    }

    /// Creates or replaces the Secret; a conflict is not an error (the next read sees
    /// the winner's).
    async fn write(
        &self,
        current: Option<Secret>,
        contents: &Contents,
    ) -> Result<(), CaSecretError> {
        let result = match current {
            None => {
                let secret = Secret {
                    metadata: ObjectMeta {
                        name: Some(self.name.clone()),
                        namespace: Some(self.namespace.clone()),
                        labels: Some(
                            [(MANAGED_BY.to_string(), super::FIELD_MANAGER.to_string())].into(),
                        ),
                        ..ObjectMeta::default()
                    },
                    type_: Some("kubernetes.io/tls".into()),
                    data: Some(contents.to_data()),
                    ..Secret::default()
                };
                self.api.create(&PostParams::default(), &secret).await
            }
            Some(mut secret) => {
                // The read's resourceVersion stays: a replica that wrote in between
                // makes this a 409.
                secret.data = Some(contents.to_data());
                secret.string_data = None;
                self.api
                    .replace(&self.name, &PostParams::default(), &secret)
                    .await
            }
        };
        match result {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(status)) if status.code == 409 => {
                tracing::info!(secret = %self.describe(), "serving CA secret: another replica wrote first; using theirs");
                Ok(())
            }
            Err(e) => Err(self.api_error()(e)),
        }
    }

    /// Writes the pair's files when they differ (certificate first: the reloader swaps
    /// only a matching pair) and publishes the bundle when it changed.
    fn use_contents(&self, contents: &Contents) -> Result<(), PkiError> {
        let (cert, key) = self.files();
        let same =
            |path: &Path, text: &str| std::fs::read(path).is_ok_and(|b| b == text.as_bytes());
        if !(same(&cert, &contents.tls_crt) && same(&key, &contents.tls_key)) {
            pki::private_dir(&self.dir)?;
            pki::write_file(&cert, contents.tls_crt.as_bytes(), 0o644)?;
            pki::write_file(&key, contents.tls_key.as_bytes(), 0o600)?;
            tracing::info!(dir = %self.dir.display(), "serving CA secret: wrote the serving pair");
        }
        let bundle = contents.ca_crt.as_bytes();
        self.bundle.send_if_modified(|held| {
            let changed = held.as_slice() != bundle;
            if changed {
                *held = Arc::new(bundle.to_vec());
            }
            changed
        });
        Ok(())
    }

    /// Runs rounds until the process ends, starting after `first` (or a refresh); a
    /// failed round is retried with a backoff (1 s doubling to 30 s) and logged.
    pub async fn run(self, first: Duration) {
        let mut next = first;
        let mut backoff = Duration::from_secs(1);
        loop {
            tokio::select! {
                _ = tokio::time::sleep(next) => {}
                _ = self.refresh.notified() => {}
            }
            next = match self.round().await {
                Ok(after) => {
                    backoff = Duration::from_secs(1);
                    after
                }
                Err(e) => {
                    tracing::warn!(error = %e, "serving CA secret: round failed; retrying");
                    let now = backoff;
                    backoff = (backoff * 2).min(Duration::from_secs(30));
                    now
                }
            };
        }
    }
}

/// The serving certificate's names for Service `name` in `namespace`: the names the
/// aggregator and in-cluster clients use, and loopback.
pub fn serving_hosts(namespace: &str, name: &str) -> Vec<String> {
    vec![
        name.to_string(),
        format!("{name}.{namespace}"),
        format!("{name}.{namespace}.svc"),
        format!("{name}.{namespace}.svc.cluster.local"),
        "localhost".to_string(),
        "127.0.0.1".to_string(),
    ]
}
