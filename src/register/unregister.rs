//! `crd-apiserver unregister`: deletes the APIServices carrying our owner label (all of
//! ours, or those of `--service <ns>/<name>`) and only those, each with its uid as
//! precondition, printing each as kubectl does. For uninstall hooks: an APIService
//! whose backend is gone stays `Available=False`, and kube's namespace controller then
//! cannot finish deleting any namespace (its discovery fails).

use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
use kube::api::{Api, DeleteParams, ListParams, Preconditions};

use super::OWNER_LABEL;
use crate::config::register::{UnregisterFlags, parse_namespaced};

/// Why unregistering failed.
#[derive(Debug, thiserror::Error)]
pub enum UnregisterError {
    #[error("--service: {0}")]
    Service(String),
    #[error("{0}")]
    Client(String),
    #[error("listing APIServices: {0}")]
    List(kube::Error),
    #[error("deleting apiservice.apiregistration.k8s.io {name:?}: {source}")]
    Delete { name: String, source: kube::Error },
}

/// The label selector of the APIServices to delete.
pub fn selector(service: Option<&str>) -> Result<String, UnregisterError> {
    match service {
        None => Ok(OWNER_LABEL.to_string()),
        Some(text) => {
            let (namespace, name) = parse_namespaced(text).map_err(UnregisterError::Service)?;
            Ok(format!("{OWNER_LABEL}={namespace}.{name}"))
        }
    }
}

/// Deletes ours; `out` gets one line per APIService deleted.
pub async fn run(
    flags: &UnregisterFlags,
    out: &mut impl std::io::Write,
) -> Result<usize, UnregisterError> {
    let selector = selector(flags.service.as_deref())?;
    let client = client(flags).await?;
    let api: Api<APIService> = Api::all(client);
    let listed = api
        .list(&ListParams::default().labels(&selector))
        .await
        .map_err(UnregisterError::List)?;
    let mut deleted = 0;
    for apiservice in listed.items {
        let name = apiservice.metadata.name.clone().unwrap_or_default();
        let params = DeleteParams {
            preconditions: Some(Preconditions {
                uid: apiservice.metadata.uid.clone(),
                resource_version: None,
            }),
            ..DeleteParams::default()
        };
        match api.delete(&name, &params).await {
            Ok(_) => {}
            // Deleted by someone else meanwhile.
            Err(kube::Error::Api(s)) if s.code == 404 => continue,
            Err(source) => return Err(UnregisterError::Delete { name, source }),
        }
        deleted += 1;
        let _ = writeln!(out, "apiservice.apiregistration.k8s.io \"{name}\" deleted");
    }
    Ok(deleted)
}

/// The client of `--kubeconfig`, else kube's inference (KUBECONFIG, ~/.kube/config,
/// in-cluster).
async fn client(flags: &UnregisterFlags) -> Result<kube::Client, UnregisterError> {
    let fail = |e: String| UnregisterError::Client(e);
    let config = match &flags.kubeconfig {
        Some(path) => {
            let kubeconfig = kube::config::Kubeconfig::read_from(path)
                .map_err(|e| fail(format!("reading {}: {e}", path.display())))?;
            let options = kube::config::KubeConfigOptions::default();
            kube::Config::from_custom_kubeconfig(kubeconfig, &options)
                .await
                .map_err(|e| fail(e.to_string()))?
        }
        None => kube::Config::infer()
            .await
            .map_err(|e| fail(e.to_string()))?,
    };
    kube::Client::try_from(config).map_err(|e| fail(e.to_string()))
}
