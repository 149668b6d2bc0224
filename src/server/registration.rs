//! Start-up wiring of self-registration: the host cluster's client, our serving CA
//! Secret's first round (so the serving pair is on disk before the TLS acceptor loads
//! it), the CA bundle (the Secret's or `--apiservice-ca-file`'s), the [`Desired`]
//! APIServices, and the tasks that keep them.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::watch;

use crate::config::register::service_namespace;
use crate::config::validate::{Config, Serving};
use crate::crd::catalog::Catalog;
use crate::register::ca_contents::Lifetimes;
use crate::register::ca_file::CaFile;
use crate::register::ca_secret::{CaSecret, serving_hosts};
use crate::register::desired::{Desired, Route};
use crate::register::reconcile::{ReconcileMetrics, Registrar};
use crate::server::run::StartError;

/// What start-up prepared; [`Prepared::start`] spawns its tasks.
pub struct Prepared {
    client: Option<kube::Client>,
    secret: Option<(CaSecret, std::time::Duration)>,
    ca_file: Option<CaFile>,
    /// The APIServices we want (`None` without `--register-apiservices`); offload's
    /// switch uses it too.
    pub desired: Option<Desired>,
}

fn route(config: &Config) -> Route {
    let flags = &config.flags.register;
    Route {
        service_namespace: service_namespace(flags.service_namespace.as_deref()),
        service_name: flags.service_name.clone(),
        service_port: flags.service_port,
        group_priority_minimum: flags.group_priority_minimum,
        version_priority: flags.version_priority,
    }
}

/// The client, the Secret's first round and the bundle; nothing when neither
/// `--register-apiservices` nor `--serving-ca-secret` is set.
pub async fn prepare(config: &Config) -> Result<Prepared, StartError> {
    let flags = &config.flags.register;
    let secret_name = match &config.serving {
        Serving::CaSecret {
            namespace, name, ..
        } => Some((namespace.clone(), name.clone())),
        _ => None,
    };
    if !flags.register_apiservices && secret_name.is_none() {
        return Ok(Prepared {
            client: None,
            secret: None,
            ca_file: None,
            desired: None,
        });
    }
    let kubeconfig = config.flags.auth.kubeconfig.as_deref();
    let client = crate::cluster::client::delegation_client(kubeconfig, None)
        .await
        .map_err(|e| StartError::Register(e.to_string()))?
        .ok_or_else(|| {
            StartError::Register(
                "--register-apiservices and --serving-ca-secret need a cluster: --kubeconfig, or run in-cluster".into(),
            )
        })?;
    let route = route(config);
    let (secret, ca_file, bundle) = match (secret_name, &flags.apiservice_ca_file) {
        (Some(secret_name), _) => {
            let lifetimes = Lifetimes {
                cert: flags.serving_cert_validity,
                ca: flags.serving_ca_validity,
            };
            let hosts = serving_hosts(&route.service_namespace, &route.service_name);
            let secret = CaSecret::new(
                client.clone(),
                secret_name,
                hosts,
                lifetimes,
                &config.flags.cert_dir,
            );
            let next = secret
                .round()
                .await
                .map_err(|e| StartError::Register(e.to_string()))?;
            let bundle = secret.bundle();
            (Some((secret, next)), None, bundle)
        }
        (None, Some(path)) => {
            let file = CaFile::load(path.clone()).map_err(StartError::Register)?;
            let bundle = file.bundle();
            (None, Some(file), bundle)
        }
        (None, None) => (None, None, watch::channel(Arc::new(Vec::new())).1),
    };
    let desired = flags.register_apiservices.then(|| Desired {
        route,
        ca_bundle: bundle,
    });
    Ok(Prepared {
        client: Some(client),
        secret,
        ca_file,
        desired,
    })
}

impl Prepared {
    /// The serving pair `--serving-ca-secret` keeps on disk.
    pub fn serving_pair(&self) -> Option<(PathBuf, PathBuf)> {
        self.secret.as_ref().map(|(s, _)| s.files())
    }

    /// Spawns the Secret's renewal, the CA file's follower and the reconcile loop.
    pub fn start(self, catalog: watch::Receiver<Arc<Catalog>>, metrics: ReconcileMetrics) {
        let refresh = self.secret.as_ref().map(|(secret, _)| secret.refresh());
        if let Some((secret, next)) = self.secret {
            tokio::spawn(secret.run(next));
        }
        if let Some(file) = self.ca_file {
            tokio::spawn(file.run());
        }
        if let (Some(client), Some(desired)) = (self.client, self.desired) {
            let mut registrar = Registrar::new(client, desired, catalog, metrics);
            // Another replica's rotation shows first as another caBundle on ours.
            if let Some(refresh) = refresh {
                registrar = registrar.with_bundle_check(refresh);
            }
            tokio::spawn(registrar.run());
        }
    }
}
