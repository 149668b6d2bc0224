//! The end-to-end test's cluster: a real etcd; the fake core API (tests/common/fake_kube*:
//! SubjectAccessReview, TokenReview, SelfSubjectReview, namespaces, admission policies,
//! Services and EndpointSlices, Events, Leases); the reference apiextensions-apiserver as the
//! host's CRD store (its admission, the real ValidatingAdmissionPolicy plugin, reads the
//! fake's policies); the real kube-aggregator (APIServices in etcd, routing by the fake's
//! Services); the front (front.rs) that makes them one host address; and our server
//! (`crd-apiserver`, not dev mode) with `--kubeconfig` → the front, serving with a CA of its
//! own, started and stopped by the test.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use base64::Engine;
use crd_apiserver::server::pki::{self, Authority, Leaf, Pem};
use serde_json::{Value, json};

use crate::common::process_log::ProcessLog;
use crate::etcd::Etcd;
use crate::fake_kube::collections::Resource;
use crate::fake_kube::{FakeKube, SERVICE_ACCOUNT_TOKEN};
use crate::front::{Front, HOST_USER, Routes, Upstream};
use crate::peers::{self, Peer, Pki};

pub const SERVICES: Resource = Resource {
    group: "",
    version: "v1",
    plural: "services",
    kind: "Service",
    namespaced: true,
    status: false,
};
pub const ENDPOINT_SLICES: Resource = Resource {
    group: "discovery.k8s.io",
    version: "v1",
    plural: "endpointslices",
    kind: "EndpointSlice",
    namespaced: true,
    status: false,
};
/// Listed (empty) so the peers' priority-and-fairness informers sync.
const FLOW_SCHEMAS: Resource = Resource {
    group: "flowcontrol.apiserver.k8s.io",
    version: "v1",
    plural: "flowschemas",
    kind: "FlowSchema",
    namespaced: false,
    status: false,
};
const PRIORITY_LEVELS: Resource = Resource {
    group: "flowcontrol.apiserver.k8s.io",
    version: "v1",
    plural: "prioritylevelconfigurations",
    kind: "PriorityLevelConfiguration",
    namespaced: false,
    status: false,
};

/// Our Service, as the APIServices name it.
pub const OUR_SERVICE: (&str, &str) = ("default", "crd-apiserver");
const REFERENCE_SERVICE: (&str, &str) = ("default", "apiext");

/// Everything running; dropped in field order (our server first, etcd last).
pub struct Cluster {
    pub server: Option<Ours>,
    pub aggregator: Peer,
    pub reference: Peer,
    pub front: Front,
    pub fake: FakeKube,
    /// Held for the Go servers (stopped on drop).
    #[allow(dead_code)]
    pub etcd: Etcd,
    pub pki: Pki,
    /// Our serving CA: what our APIServices' caBundle must hold.
    pub our_ca: Authority,
    pub our_port: u16,
    /// `CN=admin, O=system:masters` from the client CA (also `pki/admin.crt`).
    admin: Pem,
    pub dir: tempfile::TempDir,
}

/// Our server's process.
pub struct Ours {
    child: Child,
    pub log: ProcessLog,
}

impl Drop for Ours {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Cluster {
    /// Starts etcd, the fake, the reference and the aggregator (ready), routes
    /// `apiextensions.k8s.io` to the reference, and the front routing `crd_groups` by their
    /// APIServices. Our server is not started.
    pub async fn start(crd_groups: &[&str]) -> Cluster {
        // Missing components fail here, loudly, before anything starts.
        peers::binary("apiextensions-apiserver");
        peers::binary("kube-aggregator");
        let dir = tempfile::tempdir().unwrap();
        let pki = Pki::new(&dir.path().join("pki"));
        let etcd = Etcd::start();
        let fake = FakeKube::start();
        for r in [SERVICES, ENDPOINT_SLICES, FLOW_SCHEMAS, PRIORITY_LEVELS] {
            fake.serve_resource(r);
        }
        let reference = peers::reference(&pki, &etcd.endpoint, &fake.kubeconfig());
        let aggregator = peers::aggregator(&pki, &etcd.endpoint, &fake.kubeconfig());
        let admin_pem = pki.user("admin", "admin", &["system:masters"]);
        pki.kubeconfig("aggregator.kubeconfig", aggregator.port, "admin");
        let admin = Upstream::new(
            aggregator.url(""),
            &pki.serving_ca.pem.cert,
            Some(&admin_pem),
        );
        peers::wait_ready(&reference, &admin.client).await;
        peers::wait_ready(&aggregator, &admin.client).await;
        put_service(&fake, REFERENCE_SERVICE, reference.port);
        let apiext = apiservice(
            "apiextensions.k8s.io",
            "v1",
            REFERENCE_SERVICE,
            reference.port,
            &pki.serving_ca.pem.cert,
            (16700, 15),
            false,
        );
        create(&admin, APISERVICES, &apiext).await;
        let front = front(&pki, &fake, &reference, &aggregator, admin, crd_groups);
        let our_port = peers::free_port();
        put_service(&fake, OUR_SERVICE, our_port);
        let our_ca = pki::new_authority("crd-apiserver-e2e-serving-ca").unwrap();
        let cluster = Cluster {
            server: None,
            aggregator,
            reference,
            front,
            fake,
            etcd,
            pki,
            our_ca,
            our_port,
            admin: admin_pem,
            dir,
        };
        cluster.write_front_kubeconfig();
        cluster
            .wait_available("v1.apiextensions.k8s.io", Duration::from_secs(60))
            .await;
        cluster
    }

    /// The aggregator as the admin (`system:masters`).
    pub fn admin(&self) -> Upstream {
        Upstream::new(
            self.aggregator.url(""),
            &self.pki.serving_ca.pem.cert,
            Some(&self.admin),
        )
    }

    /// Our server directly (trusting our CA), as the admin.
    pub fn ours_client(&self) -> Upstream {
        Upstream::new(
            format!("https://127.0.0.1:{}", self.our_port),
            &self.our_ca.pem.cert,
            Some(&self.admin),
        )
    }

    /// The aggregator as `user` (no groups beyond `system:authenticated`).
    pub fn user(&self, user: &str) -> Upstream {
        Upstream::new(
            self.aggregator.url(""),
            &self.pki.serving_ca.pem.cert,
            Some(&self.pki.user(user, user, &[])),
        )
    }

    /// The host as our server sees it: the front, with the fake's kubeconfig token.
    pub fn as_our_server(&self) -> Upstream {
        Upstream::with_token(
            format!("https://{}", self.front.addr),
            &self.pki.serving_ca.pem.cert,
            SERVICE_ACCOUNT_TOKEN,
        )
    }

    /// The reference apiextensions-apiserver directly, as the admin.
    pub fn reference_admin(&self) -> Upstream {
        Upstream::new(
            self.reference.url(""),
            &self.pki.serving_ca.pem.cert,
            Some(&self.admin),
        )
    }

    /// kubectl's kubeconfig for the aggregator as the admin.
    pub fn aggregator_kubeconfig(&self) -> PathBuf {
        self.pki.path("aggregator.kubeconfig")
    }

    /// The kubeconfig our server uses for the host: the front, the fake's token.
    pub fn front_kubeconfig(&self) -> PathBuf {
        self.pki.path("front.kubeconfig")
    }

    fn write_front_kubeconfig(&self) {
        let ca = base64::engine::general_purpose::STANDARD.encode(&self.pki.serving_ca.pem.cert);
        let text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: host\n  cluster:\n    server: https://{}\n    certificate-authority-data: {ca}\nusers:\n- name: crd-apiserver\n  user:\n    token: {SERVICE_ACCOUNT_TOKEN}\ncontexts:\n- name: host\n  context:\n    cluster: host\n    user: crd-apiserver\ncurrent-context: host\n",
            self.front.addr
        );
        std::fs::write(self.front_kubeconfig(), text).unwrap();
    }

    /// Starts our server on its port with a serving certificate from our CA, the test's
    /// client CA, the aggregator's front proxy, `--crd-dir crds` and `--kubeconfig` → the
    /// front, plus `extra`; returns once it listens.
    pub fn start_ours(&mut self, crds: &std::path::Path, extra: &[&str]) {
        assert!(self.server.is_none(), "our server is already running");
        let ours = self.our_serving_pair();
        let p = |n: &str| self.pki.path(n).display().to_string();
        let kubeconfig = self.front_kubeconfig().display().to_string();
        let mut child = Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
            .arg(format!("--crd-dir={}", crds.display()))
            .arg(format!("--secure-port={}", self.our_port))
            .arg("--bind-address=127.0.0.1")
            .arg(format!("--tls-cert-file={}", ours.0))
            .arg(format!("--tls-private-key-file={}", ours.1))
            .arg(format!(
                "--data-dir={}",
                self.dir.path().join("data").display()
            ))
            .arg(format!("--client-ca-file={}", p("client-ca.crt")))
            .arg(format!(
                "--requestheader-client-ca-file={}",
                p("front-proxy-ca.crt")
            ))
            .arg("--requestheader-allowed-names=front-proxy-client")
            .arg(format!("--kubeconfig={kubeconfig}"))
            .arg("--authentication-skip-lookup=true")
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = ProcessLog::follow(child.stderr.take().unwrap());
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let line = lines.next().and_then(Result::ok).unwrap_or_else(|| {
            panic!(
                "crd-apiserver did not report its address (exit {:?}); log:\n{}",
                child.try_wait(),
                log.text()
            )
        });
        std::thread::spawn(move || lines.for_each(drop));
        let addr: SocketAddr = line
            .rsplit("https://")
            .next()
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(addr.port(), self.our_port, "{line}");
        self.server = Some(Ours { child, log });
    }

    /// `--register-apiservices` for our Service (`default/crd-apiserver` on our port) with
    /// our CA as the APIServices' caBundle (`pki/ours-ca.crt`).
    pub fn register_flags(&self) -> Vec<String> {
        let ca = self.pki.path("ours-ca.crt");
        std::fs::write(&ca, &self.our_ca.pem.cert).unwrap();
        vec![
            "--register-apiservices".to_string(),
            format!("--apiservice-ca-file={}", ca.display()),
            format!("--service-namespace={}", OUR_SERVICE.0),
            format!("--service-name={}", OUR_SERVICE.1),
            format!("--service-port={}", self.our_port),
        ]
    }

    /// Stops our server (SIGTERM, then waits).
    pub fn stop_ours(&mut self) {
        let mut ours = self.server.take().expect("our server runs");
        let pid = ours.child.id().to_string();
        assert!(
            Command::new("kill")
                .args(["-TERM", &pid])
                .status()
                .unwrap()
                .success()
        );
        let _ = ours.child.wait();
    }

    /// `<dir>/pki/ours.crt`/`.key`, issued by our CA for 127.0.0.1 (the Service's address).
    fn our_serving_pair(&self) -> (String, String) {
        let leaf = self
            .our_ca
            .issue(Leaf::Serving {
                hosts: &["127.0.0.1", "localhost", "crd-apiserver.default.svc"],
            })
            .unwrap();
        let (c, k) = pki::write_pair(&self.pki.dir, "ours", &leaf).unwrap();
        (c.display().to_string(), k.display().to_string())
    }

    /// The APIService `name` as the aggregator serves it.
    pub async fn apiservice(&self, name: &str) -> Value {
        get(&self.admin(), &format!("{APISERVICES}/{name}")).await.1
    }

    /// Waits until the APIService `name` is `Available=True`; fails with its conditions.
    pub async fn wait_available(&self, name: &str, within: Duration) -> Value {
        self.wait_condition(name, "True", within).await
    }

    /// Waits until the APIService's `Available` condition has `status`; returns the condition.
    pub async fn wait_condition(&self, name: &str, status: &str, within: Duration) -> Value {
        self.wait_reason(name, status, None, within).await
    }

    /// Waits until the APIService's `Available` condition has `status` (and `reason` when
    /// given); returns the condition.
    pub async fn wait_reason(
        &self,
        name: &str,
        status: &str,
        reason: Option<&str>,
        within: Duration,
    ) -> Value {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let apiservice = self.apiservice(name).await;
            let available = available(&apiservice);
            if available["status"] == json!(status)
                && reason.is_none_or(|r| available["reason"] == json!(r))
            {
                return available;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "APIService {name} not Available={status} ({reason:?}) within {within:?}: {apiservice}"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
}

/// The APIService's `Available` condition (null when absent).
pub fn available(apiservice: &Value) -> Value {
    apiservice["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "Available").cloned())
        .unwrap_or(Value::Null)
}

pub const APISERVICES: &str = "/apis/apiregistration.k8s.io/v1/apiservices";

/// An APIService routing `group/version` to the Service `(namespace, name)` on `port`, as
/// kube's crdregistration labels it when `automanaged`.
pub fn apiservice(
    group: &str,
    version: &str,
    service: (&str, &str),
    port: u16,
    ca_pem: &str,
    (group_priority, version_priority): (i32, i32),
    automanaged: bool,
) -> Value {
    let ca = base64::engine::general_purpose::STANDARD.encode(ca_pem);
    let mut object = json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": format!("{version}.{group}")},
        "spec": {"group": group, "version": version, "caBundle": ca,
            "groupPriorityMinimum": group_priority, "versionPriority": version_priority,
            "service": {"namespace": service.0, "name": service.1, "port": port}}});
    if automanaged {
        object["metadata"]["labels"] = json!({"kube-aggregator.kubernetes.io/automanaged": "true"});
    }
    object
}

/// GET: (code, body).
pub async fn get(to: &Upstream, path: &str) -> (u16, Value) {
    let resp = to
        .client
        .get(format!("{}{path}", to.base))
        .send()
        .await
        .unwrap();
    let code = resp.status().as_u16();
    (code, resp.json().await.unwrap_or(Value::Null))
}

/// POST that must answer 201; returns the created object.
pub async fn create(to: &Upstream, path: &str, object: &Value) -> Value {
    let resp = to
        .client
        .post(format!("{}{path}", to.base))
        .json(object)
        .send()
        .await
        .unwrap();
    let code = resp.status().as_u16();
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    assert_eq!(code, 201, "POST {path}: {body}");
    body
}

/// A Service's EndpointSlice with no endpoints, as kube's EndpointSlice controller leaves it
/// once the Deployment's pods are gone.
pub fn empty_endpoints(fake: &FakeKube, (namespace, name): (&str, &str), port: u16) {
    fake.put_object(
        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": format!("{name}-e2e"), "namespace": namespace,
            "labels": {"kubernetes.io/service-name": name}},
        "addressType": "IPv4", "endpoints": [],
        "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}),
    );
}

/// A Service (ClusterIP 127.0.0.1, port name `https`) and its ready EndpointSlice at the fake,
/// so the aggregator routes the Service to `https://127.0.0.1:<port>`.
pub fn put_service(fake: &FakeKube, (namespace, name): (&str, &str), port: u16) {
    fake.put_object(json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"type": "ClusterIP", "clusterIP": "127.0.0.1", "clusterIPs": ["127.0.0.1"],
            "ports": [{"name": "https", "port": port, "targetPort": port, "protocol": "TCP"}]}}));
    fake.put_object(
        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": format!("{name}-e2e"), "namespace": namespace,
            "labels": {"kubernetes.io/service-name": name}},
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": true}}],
        "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}),
    );
}

fn front(
    pki: &Pki,
    fake: &FakeKube,
    reference: &Peer,
    aggregator: &Peer,
    admin: Upstream,
    crd_groups: &[&str],
) -> Front {
    let host_user = pki.user("host-user", HOST_USER, &["system:serviceaccounts"]);
    let serving = pki.serving("front");
    let fake_ca = fake_ca(fake);
    let routes = Routes {
        fake: Upstream::new(format!("https://{}", fake.addr), &fake_ca, None),
        aggregator: Upstream::new(
            aggregator.url(""),
            &pki.serving_ca.pem.cert,
            Some(&host_user),
        ),
        reference: Upstream::new(
            reference.url(""),
            &pki.serving_ca.pem.cert,
            Some(&host_user),
        ),
        admin,
        crd_groups: crd_groups.iter().map(|g| g.to_string()).collect(),
    };
    Front::start(&serving, routes)
}

/// The fake's CA, from its kubeconfig.
fn fake_ca(fake: &FakeKube) -> String {
    let text = std::fs::read_to_string(fake.kubeconfig()).unwrap();
    let data = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("certificate-authority-data: "))
        .unwrap();
    let pem = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    String::from_utf8(pem).unwrap()
}
