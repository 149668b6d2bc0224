//! Start-up of the authentication stage, as k8s.io/apiserver's
//! `DelegatingAuthenticationOptions.ApplyTo`: flags first, the cluster's ConfigMap for
//! what the flags leave open, TokenReview whenever there is a cluster to ask.
//!
//! Without a kubeconfig and outside a cluster there is nothing to look up: the server
//! warns (upstream's words) and runs with what the flags give — dev mode's client CA.
//! With a cluster, the ConfigMap is read once before serving; a failed lookup stops
//! start-up unless `--authentication-tolerate-lookup-failure`, in which case the server
//! starts without it and the watcher keeps trying. CA bundles from files are followed
//! too ([`CaFiles`]).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::Authenticator;
use super::cafile::CaFiles;
use super::configmap::Watcher;
use super::live::{CONFIGMAP_NAME, CONFIGMAP_NAMESPACE, CertAuthenticators, LiveCerts, Sources};
use super::requestheader::{HeaderNames, RequestHeaderAuthenticator};
use super::token::TokenAuthenticator;
use super::x509::{CertVerifier, X509Authenticator};
use crate::cluster::client::{ClientError, delegation_client};
use crate::config::auth::{AuthFlags, non_empty};
use crate::metrics::Metrics;

/// How long the start-up ConfigMap lookup may take.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(30);

/// Why the authentication stage could not be configured.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("failed to get delegated authentication kubeconfig: {0}")]
    Client(#[from] ClientError),
    #[error("{path}: {message}")]
    CaFile { path: String, message: String },
    #[error("unable to load configmap based request-header-client-ca-file: {0}")]
    Lookup(String),
}

fn verifier_from_file(path: &Path) -> Result<CertVerifier, SetupError> {
    let err = |message: String| SetupError::CaFile {
        path: path.display().to_string(),
        message,
    };
    let pem = std::fs::read(path).map_err(|e| err(e.to_string()))?;
    CertVerifier::from_pem(&pem).map_err(|e| err(e.to_string()))
}

/// The certificate authenticators the flags configure.
fn from_flags(flags: &AuthFlags) -> Result<CertAuthenticators, SetupError> {
    let x509 = match &flags.client_ca_file {
        Some(path) => Some(X509Authenticator::new(verifier_from_file(path)?)),
        None => None,
    };
    let requestheader = match &flags.requestheader_client_ca_file {
        Some(path) => Some(RequestHeaderAuthenticator {
            verifier: verifier_from_file(path)?,
            allowed_names: non_empty(&flags.requestheader_allowed_names),
            names: HeaderNames::new(
                &flags.requestheader_username_headers,
                &flags.requestheader_uid_headers,
                &flags.requestheader_group_headers,
                &flags.requestheader_extra_headers_prefix,
            ),
        }),
        None => None,
    };
    Ok(CertAuthenticators {
        requestheader,
        x509,
    })
}

/// What keeps the certificate configuration live while serving.
pub struct Followers {
    /// The ConfigMap watcher, when the cluster is followed.
    pub configmap: Option<Watcher>,
    /// The CA files' reloader, when the flags name CA files.
    pub files: Option<CaFiles>,
}

impl Followers {
    /// Starts them on the current runtime.
    pub fn spawn(self) {
        if let Some(watcher) = self.configmap {
            tokio::spawn(watcher.run());
        }
        if let Some(files) = self.files {
            tokio::spawn(files.run());
        }
    }
}

/// The authenticator, and what follows the ConfigMap and the CA files.
pub async fn authenticator(
    flags: &AuthFlags,
    metrics: Arc<Metrics>,
) -> Result<(Authenticator, Followers), SetupError> {
    let client = delegation_client(
        flags.authentication_kubeconfig.as_deref(),
        flags.kubeconfig.as_deref(),
    )
    .await?;
    let certs = from_flags(flags)?;
    let lookup = !flags.authentication_skip_lookup;
    if lookup && client.is_none() {
        warn_no_lookup(&certs);
    }
    let follow = lookup && client.is_some();
    let sources = Sources {
        client_ca_from_cluster: follow && certs.x509.is_none(),
        requestheader_from_cluster: follow && certs.requestheader.is_none(),
    };
    let live = Arc::new(LiveCerts::new(certs, sources).with_metrics(metrics.clone()));
    let files = CaFiles::new(
        live.clone(),
        flags.client_ca_file.as_deref(),
        flags.requestheader_client_ca_file.as_deref(),
    );
    let watcher = match &client {
        Some(c) if sources.client_ca_from_cluster || sources.requestheader_from_cluster => {
            let mut watcher = Watcher::new(c.clone(), live.clone());
            initial_lookup(&mut watcher, flags.authentication_tolerate_lookup_failure).await?;
            Some(watcher)
        }
        _ => None,
    };
    let ttl = flags.authentication_token_webhook_cache_ttl;
    let token = client.map(|c| TokenAuthenticator::new(c, ttl, metrics.clone()));
    let authenticator = Authenticator::new(live, token, flags.anonymous_auth, metrics);
    let followers = Followers {
        configmap: watcher,
        files,
    };
    Ok((authenticator, followers))
}

fn warn_no_lookup(certs: &CertAuthenticators) {
    if certs.x509.is_none() {
        tracing::warn!(
            "No authentication-kubeconfig provided in order to lookup client-ca-file in configmap/{CONFIGMAP_NAME} in {CONFIGMAP_NAMESPACE}, so client certificate authentication won't work."
        );
    }
    if certs.requestheader.is_none() {
        tracing::warn!(
            "No authentication-kubeconfig provided in order to lookup requestheader-client-ca-file in configmap/{CONFIGMAP_NAME} in {CONFIGMAP_NAMESPACE}, so request-header client certificate authentication won't work."
        );
    }
}

async fn initial_lookup(watcher: &mut Watcher, tolerate: bool) -> Result<(), SetupError> {
    let error = match tokio::time::timeout(LOOKUP_TIMEOUT, watcher.sync()).await {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(e)) => {
            if matches!(&e, kube::Error::Api(s) if s.is_forbidden()) {
                tracing::warn!(
                    "Unable to get configmap/{CONFIGMAP_NAME} in {CONFIGMAP_NAMESPACE}.  Usually fixed by 'kubectl create rolebinding -n {CONFIGMAP_NAMESPACE} ROLEBINDING_NAME --role=extension-apiserver-authentication-reader --serviceaccount=YOUR_NS:YOUR_SA'"
                );
            }
            e.to_string()
        }
        Err(_) => format!("no answer within {LOOKUP_TIMEOUT:?}"),
    };
    if !tolerate {
        return Err(SetupError::Lookup(error));
    }
    tracing::warn!("Error looking up in-cluster authentication configuration: {error}");
    tracing::warn!(
        "Continuing without authentication configuration. This may treat all requests as anonymous."
    );
    tracing::warn!(
        "To require authentication configuration lookup to succeed, set --authentication-tolerate-lookup-failure=false"
    );
    Ok(())
}
