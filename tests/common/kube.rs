//! What the kube-crate tests share: a `kube::Client` from the dev server's kubeconfig,
//! discovery of the example groups and CronTab's ApiResource, and CronTabs written as a
//! controller named `controller` writes them. The test crate must also declare `mod common;`.
#![allow(dead_code)] // each test binary uses a part

use crate::common::{self, Server};
use kube::api::{ApiResource, DynamicObject, PatchParams, PostParams};
use kube::config::{Config, KubeConfigOptions, Kubeconfig};
use kube::discovery::Discovery;
use serde_json::json;
use std::net::SocketAddr;
use std::time::Duration;

/// A kube client from the server's dev kubeconfig, talking to `addr` (the server or a relay).
pub async fn kube_client(server: &Server, addr: SocketAddr) -> kube::Client {
    let path = server.kubeconfig();
    let kubeconfig = common::eventually(Duration::from_secs(10), "the dev kubeconfig", || {
        let read = Kubeconfig::read_from(&path).ok();
        async move { read.filter(|k| !k.clusters.is_empty() && !k.auth_infos.is_empty()) }
    })
    .await;
    let mut config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .unwrap();
    config.cluster_url = format!("https://{addr}").parse().unwrap();
    kube::Client::try_from(config).unwrap()
}

/// The example groups only: standalone, like the reference server, we serve no `/api`.
pub async fn discover(client: &kube::Client) -> Discovery {
    Discovery::new(client.clone())
        .exclude(&[""])
        .run()
        .await
        .unwrap()
}

/// CronTab's ApiResource, as discovery reports it.
pub async fn crontabs(client: &kube::Client) -> ApiResource {
    let group = discover(client).await;
    let (ar, _) = group
        .get("stable.example.com")
        .and_then(|g| g.recommended_kind("CronTab"))
        .unwrap();
    ar
}

/// A CronTab named `name` with `spec.replicas` and the label `app=<app>`.
pub fn crontab(ar: &ApiResource, name: &str, replicas: i64, app: &str) -> DynamicObject {
    let mut object = DynamicObject::new(name, ar)
        .within("default")
        .data(json!({"spec": {"cronSpec": "*/5 * * * *", "replicas": replicas}}));
    object.metadata.labels = Some([("app".to_string(), app.to_string())].into());
    object
}

/// Writes by `controller`, as a controller names itself.
pub fn post_params() -> PostParams {
    PostParams {
        field_manager: Some("controller".into()),
        ..PostParams::default()
    }
}

pub fn patch_params() -> PatchParams {
    PatchParams {
        field_manager: Some("controller".into()),
        ..PatchParams::default()
    }
}
