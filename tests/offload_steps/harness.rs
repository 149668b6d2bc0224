//! The steps' harness: the fake host cluster, our serving state built in-process as
//! `server::run` builds it (an embedded store in a temporary directory, the live
//! definitions, an admission chain that is empty or holds the ValidatingAdmissionPolicy
//! plugin following the fake host's policies), and the real `Mover` between them.

use std::sync::Arc;
use std::time::Duration;

use crd_apiserver::admission::metrics::AdmissionMetrics;
use crd_apiserver::admission::namespace::NamespaceLifecycle;
use crd_apiserver::admission::policy::generic::kinds::ValidatingPolicies;
use crd_apiserver::admission::policy::generic::params::host::HostParams;
use crd_apiserver::admission::policy::generic::plugin::Policies;
use crd_apiserver::admission::policy::generic::source::Source;
use crd_apiserver::admission::{Chain, Plugin};
use crd_apiserver::cel::lib::authz::{Answer, Attributes, Authorizer, Decision};
use crd_apiserver::crd::catalog::Catalog;
use crd_apiserver::crd::live::Definitions;
use crd_apiserver::error::ApiError;
use crd_apiserver::handlers::AppState;
use crd_apiserver::handlers::state::{Authorize, Authorizing, Lifecycle};
use crd_apiserver::inflight::InFlight;
use crd_apiserver::metrics::Metrics;
use crd_apiserver::offload::Unit;
use crd_apiserver::offload::steps::Mover;
use crd_apiserver::register::desired::{Desired, Route};
use crd_apiserver::request::info::RequestInfo;
use crd_apiserver::request::user::UserInfo;
use crd_apiserver::storage::key::KeyLayout;
use crd_apiserver::storage::{Store, embedded::EmbeddedStore};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::fake_kube::FakeKube;
use crate::fake_kube::host::CRDS;

pub const GROUP: &str = "widgets.example.com";
pub const CRD_NAME: &str = "widgets.widgets.example.com";
pub const PREFIX: &str = "/registry";

struct AllowAll;

impl Authorize for AllowAll {
    fn authorize<'a>(&'a self, _: &'a UserInfo, _: &'a RequestInfo) -> Authorizing<'a> {
        Box::pin(async { Ok::<(), ApiError>(()) })
    }
}

struct CelAllowAll;

impl Authorizer for CelAllowAll {
    fn authorize(&self, _: &Attributes) -> Answer {
        Answer {
            decision: Decision::Allow,
            reason: String::new(),
            error: None,
        }
    }
}

/// Our admission: none, or kube's ValidatingAdmissionPolicy plugin following the host's
/// policies as `server::run` builds it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    None,
    HostPolicies,
}

async fn plugins(admission: Admission, client: &kube::Client, host: &FakeKube) -> Vec<Plugin> {
    if admission == Admission::None {
        return Vec::new();
    }
    let mut metrics = Metrics::new();
    let source: Source<ValidatingPolicies> =
        Source::follow(client.clone(), Arc::new(HostParams::new(client.clone())));
    let namespaces = NamespaceLifecycle::from_cluster(Some(&host.kubeconfig()))
        .await
        .unwrap();
    let policies = Policies {
        source,
        namespaces,
        authorizer: Arc::new(CelAllowAll),
        metrics: AdmissionMetrics::register(&mut metrics),
    };
    vec![Plugin::ValidatingPolicy(Arc::new(policies))]
}

/// The host's Widget CRD: namespaced, `v1` stored with `/status`, `v1beta1` served too.
pub fn widget_crd() -> Value {
    let schema = json!({"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": CRD_NAME, "labels": {"crd-apiserver.io/offload": "true"}},
        "spec": {"group": GROUP, "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": schema, "subresources": {"status": {}}},
                {"name": "v1beta1", "served": true, "storage": false, "schema": schema, "subresources": {"status": {}}},
            ]},
    })
}

pub fn desired() -> Desired {
    let (_tx, rx) = watch::channel(Arc::new(b"CA PEM".to_vec()));
    Desired {
        route: Route {
            service_namespace: "crd-system".into(),
            service_name: "crd-apiserver".into(),
            service_port: 443,
            group_priority_minimum: 1000,
            version_priority: 100,
        },
        ca_bundle: rx,
    }
}

pub struct Harness {
    pub host: FakeKube,
    pub client: kube::Client,
    pub state: Arc<AppState>,
    pub store: Arc<dyn Store>,
    pub mover: Mover,
    _dir: tempfile::TempDir,
}

impl Harness {
    /// The fake host with the Widget CRD, our empty state without admission, the mover.
    pub async fn start() -> Harness {
        Harness::with(Admission::None).await
    }

    pub async fn with(admission: Admission) -> Harness {
        let host = FakeKube::start();
        host.put_crd(widget_crd());
        let client = host.client().await;
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> = EmbeddedStore::open(dir.path()).unwrap();
        let mut metrics = Metrics::new();
        let plugins = plugins(admission, &client, &host).await;
        let admission = Chain::new(plugins, AdmissionMetrics::register(&mut metrics));
        let metrics = Arc::new(metrics);
        let state = Arc::new(AppState {
            definitions: Arc::new(Definitions::fixed(Catalog::default())),
            store: store.clone(),
            cache: None,
            keys: KeyLayout::new(PREFIX),
            encrypted: false,
            authorizer: Arc::new(AllowAll),
            metrics: metrics.clone(),
            lifecycle: Lifecycle::default(),
            bookmark_interval: Duration::from_secs(60),
            max_object_size: 3 * 1024 * 1024,
            inflight: InFlight::new(400, 200, &metrics),
            watches: crd_apiserver::watch::limit::WatchLimit::new(0),
            storage_probe: Default::default(),
            admission,
        });
        let mover = Mover::new(client.clone(), state.clone(), desired())
            .await
            .unwrap();
        Harness {
            host,
            client,
            state,
            store,
            mover,
            _dir: dir,
        }
    }

    /// The unit of the Widget group, as the host serves its CRD now.
    pub fn unit(&self) -> Unit {
        let crd = self.host.object(&CRDS, None, CRD_NAME).unwrap();
        let crd: CustomResourceDefinition = serde_json::from_value(crd).unwrap();
        Unit {
            group: GROUP.into(),
            crds: vec![crd],
        }
    }

    /// Our stored key of a widget.
    pub fn key(namespace: &str, name: &str) -> String {
        format!("{PREFIX}/{GROUP}/widgets/{namespace}/{name}")
    }

    /// Our stored widget (stored form), if any.
    pub async fn here(&self, namespace: &str, name: &str) -> Option<Value> {
        let kv = self
            .store
            .get(&Harness::key(namespace, name))
            .await
            .unwrap()?;
        Some(serde_json::from_slice(&kv.value).unwrap())
    }

    /// Stores `object` here directly, as a write of ours would have.
    pub async fn put_here(&self, object: &Value) {
        let meta = &object["metadata"];
        let key = Harness::key(
            meta["namespace"].as_str().unwrap(),
            meta["name"].as_str().unwrap(),
        );
        self.store
            .create(&key, serde_json::to_vec(object).unwrap())
            .await
            .unwrap();
    }

    pub async fn revision(&self) -> i64 {
        self.store.current_revision().await.unwrap()
    }
}

/// A widget as the host has it: every metadata field the copy must keep.
pub fn widget(name: &str) -> Value {
    json!({
        "apiVersion": format!("{GROUP}/v1"), "kind": "Widget",
        "metadata": {
            "name": name, "namespace": "default",
            "labels": {"app": "w"}, "annotations": {"note": "kept"},
            "finalizers": ["example.com/keep"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
                "uid": "3c6d7f5e-0000-4000-8000-000000000001", "controller": true}],
            "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": format!("{GROUP}/v1"),
                "time": "2025-01-01T00:00:00Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:size": {}}}}],
        },
        "spec": {"size": 3},
        "status": {"phase": "Ready"},
    })
}
