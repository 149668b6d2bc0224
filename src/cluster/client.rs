//! The client that talks to the cluster for delegated authentication and authorization:
//! which kubeconfig it comes from, and how one review call is bounded and retried.
//!
//! Resolution, for each of authentication and authorization: the stage's own flag
//! (`--authentication-kubeconfig` / `--authorization-kubeconfig`), else `--kubeconfig`,
//! else the in-cluster service account when `KUBERNETES_SERVICE_HOST` is set, else none.
//! "None" (an unreadable in-cluster configuration too, which is logged) is not an error:
//! as k8s.io/apiserver with an optional remote kubeconfig, the server warns and runs
//! without the cluster (no ConfigMap lookup, no TokenReview, no SubjectAccessReview) —
//! that is dev mode and a laptop.

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};

/// How long one review may take in all, retries included (upstream's 10s client timeout).
pub const REVIEW_TIMEOUT: Duration = Duration::from_secs(10);
/// Attempts per review: transport errors, 429 and 5xx are retried with a short backoff.
const ATTEMPTS: u32 = 3;

/// Why a client could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("reading kubeconfig {path}: {source}")]
    Kubeconfig {
        path: String,
        source: kube::config::KubeconfigError,
    },
    #[error("building the client: {0}")]
    Build(#[from] kube::Error),
}

/// A client from `explicit`, else `fallback`, else in-cluster, else `None`.
pub async fn delegation_client(
    explicit: Option<&Path>,
    fallback: Option<&Path>,
) -> Result<Option<kube::Client>, ClientError> {
    let config = match explicit.or(fallback) {
        Some(path) => {
            let err = |source| ClientError::Kubeconfig {
                path: path.display().to_string(),
                source,
            };
            let kubeconfig = Kubeconfig::read_from(path).map_err(err)?;
            kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
                .await
                .map_err(err)?
        }
        None if in_cluster() => match kube::Config::incluster() {
            Ok(config) => config,
            Err(e) => {
                // As upstream with an optional remote kubeconfig: warn and go on without.
                tracing::warn!(error = %e, "failed to read the in-cluster kubeconfig for delegated authentication and authorization");
                return Ok(None);
            }
        },
        None => return Ok(None),
    };
    Ok(Some(kube::Client::try_from(config)?))
}

/// Whether this process runs in a pod (client-go's `rest.ErrNotInCluster` test).
fn in_cluster() -> bool {
    let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
    set("KUBERNETES_SERVICE_HOST") && set("KUBERNETES_SERVICE_PORT")
}

/// Why a review call failed.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("the review did not answer within {0:?}")]
    Timeout(Duration),
    #[error(transparent)]
    Api(#[from] kube::Error),
}

impl ReviewError {
    /// The result label `/metrics` counts it under.
    pub fn label(&self) -> &'static str {
        match self {
            ReviewError::Timeout(_) => "timeout",
            ReviewError::Api(_) => "error",
        }
    }
}

fn retriable(err: &kube::Error) -> bool {
    match err {
        kube::Error::Api(status) => status.code == 429 || status.code >= 500,
        kube::Error::HyperError(_) | kube::Error::Service(_) => true,
        _ => false,
    }
}

/// Runs `call` with retries, all within [`REVIEW_TIMEOUT`].
pub async fn review<T, F, Fut>(mut call: F) -> Result<T, ReviewError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, kube::Error>>,
{
    let attempts = async {
        let mut delay = Duration::from_millis(200);
        let mut attempt = 1;
        loop {
            match call().await {
                Err(e) if attempt < ATTEMPTS && retriable(&e) => {
                    tracing::debug!(attempt, error = %e, "review failed; retrying");
                    tokio::time::sleep(delay).await;
                    delay *= 2;
                    attempt += 1;
                }
                other => return other,
            }
        }
    };
    match tokio::time::timeout(REVIEW_TIMEOUT, attempts).await {
        Ok(result) => Ok(result?),
        Err(_) => Err(ReviewError::Timeout(REVIEW_TIMEOUT)),
    }
}

/// The client of a command's `--kubeconfig`, else kube's inference (KUBECONFIG,
/// ~/.kube/config, in-cluster): `crd-apiserver migrate` and `unregister`.
pub async fn command_client(kubeconfig: Option<&Path>) -> Result<kube::Client, String> {
    let config = match kubeconfig {
        Some(path) => {
            let kubeconfig = Kubeconfig::read_from(path)
                .map_err(|e| format!("reading {}: {e}", path.display()))?;
            kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
                .await
                .map_err(|e| e.to_string())?
        }
        None => kube::Config::infer().await.map_err(|e| e.to_string())?,
    };
    kube::Client::try_from(config).map_err(|e| e.to_string())
}
