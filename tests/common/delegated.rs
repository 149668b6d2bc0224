//! The delegated-server fixture: crd-apiserver (the real binary, dev mode) pointed at a
//! fresh [`FakeKube`] whose ConfigMap announces a front-proxy CA, plus clients acting as
//! the front proxy, the dev admin, or anyone with a certificate from a given CA.
//! A submodule of `fake_kube.rs`; the test crate must also declare `mod common;`.

use crd_apiserver::server::pki::{self, Authority};

use super::{FakeKube, client_pair, front_proxy_data};

/// crd-apiserver in dev mode delegating to a fresh fake cluster that announces a front
/// proxy CA (`CN=front-proxy-client` allowed) in its ConfigMap.
pub struct Delegated {
    // The server is declared (so dropped) first: the fake outlives it.
    pub server: crate::common::Server,
    pub fake: FakeKube,
    pub proxy_ca: Authority,
    pub certs: tempfile::TempDir,
}

impl Delegated {
    pub fn start(extra: &[&str]) -> Delegated {
        let fake = FakeKube::start();
        let proxy_ca = pki::new_authority("front-proxy-ca").unwrap();
        fake.set_configmap(Some(front_proxy_data(
            &proxy_ca.pem.cert,
            &["front-proxy-client"],
        )));
        let kubeconfig = fake.kubeconfig().display().to_string();
        let mut args = vec![
            "--authentication-kubeconfig",
            kubeconfig.as_str(),
            "--authorization-kubeconfig",
            kubeconfig.as_str(),
        ];
        args.extend_from_slice(extra);
        let server = crate::common::Server::start_with(&args);
        Delegated {
            server,
            fake,
            proxy_ca,
            certs: tempfile::tempdir().unwrap(),
        }
    }

    /// A client with a certificate `CN=cn` from `ca`.
    pub fn client_from(&self, ca: &Authority, cn: &str, groups: &[&str]) -> reqwest::Client {
        let name = format!("{cn}-{}", uuid::Uuid::new_v4());
        let (cert, key) = client_pair(self.certs.path(), ca, &name, cn, groups);
        crate::common::client_with(&self.server.pki, Some((&cert, &key)))
    }

    /// The front proxy: `CN=front-proxy-client` from the announced CA.
    pub fn proxy(&self) -> reqwest::Client {
        self.client_from(&self.proxy_ca, "front-proxy-client", &[])
    }

    /// The dev admin (`system:masters`, from the dev client CA).
    pub fn admin(&self) -> reqwest::Client {
        self.server.client()
    }

    /// `/metrics` as the admin.
    pub async fn metrics(&self) -> String {
        let resp = self
            .admin()
            .get(self.server.url("/metrics"))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        resp.text().await.unwrap()
    }
}

/// The value of one sample line of `/metrics` (0 when absent).
pub fn sample(metrics: &str, series: &str) -> f64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(series).and_then(|v| v.trim().parse().ok()))
        .unwrap_or(0.0)
}
