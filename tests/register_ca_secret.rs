//! `--serving-ca-secret` against the fake host cluster, with the real binary over real
//! TLS: our own CA kept in a Secret, a served certificate that chains to its `ca.crt`
//! (real handshakes), one CA for replicas started at once, the certificate renewed and the
//! CA rotated (both CAs in the APIServices' caBundle meanwhile) without a restart.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/registering.rs"]
mod registering;

use std::sync::Arc;
use std::time::Duration;

use common::{Server, eventually};
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, PostParams};
use registering::{DEADLINE, NAMESPACE, apiservices, host, registered, replica, serve};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};

const SECRET: &str = "crd-test/serving-ca";

async fn secret(client: &kube::Client) -> Option<Secret> {
    Api::<Secret>::namespaced(client.clone(), NAMESPACE)
        .get_opt("serving-ca")
        .await
        .unwrap()
}

fn key(secret: &Secret, key: &str) -> Vec<u8> {
    secret.data.as_ref().unwrap()[key].0.clone()
}

fn certs(pem: &[u8]) -> Vec<CertificateDer<'static>> {
    CertificateDer::pem_slice_iter(pem)
        .map(Result::unwrap)
        .collect()
}

/// The certificate the server presents, verified with `roots` (PEM) as the trust anchors
/// for `localhost`; `None` when the handshake fails.
async fn served_cert(server: &Server, roots: &[u8]) -> Option<CertificateDer<'static>> {
    handshake(server, roots).await.ok()
}

/// [`served_cert`], or why the handshake failed.
async fn handshake(server: &Server, roots: &[u8]) -> Result<CertificateDer<'static>, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut store = rustls::RootCertStore::empty();
    for c in certs(roots) {
        store.add(c).unwrap();
    }
    let config = rustls::ClientConfig::builder()
        .with_root_certificates(store)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let tls = connector
        .connect(name, tcp)
        .await
        .map_err(|e| e.to_string())?;
    let (_, session) = tls.get_ref();
    let chain = session.peer_certificates().ok_or("no peer certificate")?;
    Ok(chain[0].clone().into_owned())
}

#[tokio::test]
async fn serving_ca_secret_created_served_cert_chains_to_ca_crt() {
    let (fake, client) = host().await;
    let server = serve(&fake, &["--serving-ca-secret", SECRET]);
    let held = secret(&client)
        .await
        .expect("the Secret is created at start-up");
    assert_eq!(held.type_.as_deref(), Some("kubernetes.io/tls"));
    let keys: Vec<&str> = held
        .data
        .as_ref()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["ca.crt", "ca.key", "tls.crt", "tls.key"]);
    let ca = key(&held, "ca.crt");
    let served = served_cert(&server, &ca).await.expect("chains to ca.crt");
    assert_eq!(served, certs(&key(&held, "tls.crt"))[0]);
    // Another CA is refused: the handshake really verifies.
    let other = crd_apiserver::server::pki::new_authority("other").unwrap();
    assert!(
        served_cert(&server, other.pem.cert.as_bytes())
            .await
            .is_none()
    );
    // The APIServices carry the Secret's bundle.
    for a in registered(&client).await {
        assert_eq!(a.spec.unwrap().ca_bundle.unwrap().0, ca);
    }
}

#[tokio::test]
async fn serving_ca_secret_two_servers_one_ca() {
    let (fake, client) = host().await;
    // Started at once: both may find no Secret and race to create it.
    let kubeconfig = fake.kubeconfig();
    let (a, b) = std::thread::scope(|s| {
        let start = || s.spawn(|| replica(&kubeconfig, &["--serving-ca-secret", SECRET]));
        let (a, b) = (start(), start());
        (a.join().unwrap(), b.join().unwrap())
    });
    let held = secret(&client).await.unwrap();
    let ca = key(&held, "ca.crt");
    assert_eq!(certs(&ca).len(), 1, "one CA");
    assert!(
        served_cert(&a, &ca).await.is_some(),
        "the first replica chains to it"
    );
    assert!(
        served_cert(&b, &ca).await.is_some(),
        "the second replica chains to it"
    );
}

#[tokio::test]
async fn serving_ca_secret_short_cert_validity_renewed_without_restart() {
    let (fake, client) = host().await;
    let mut server = serve(
        &fake,
        &[
            "--serving-ca-secret",
            SECRET,
            "--serving-cert-validity",
            "10s",
        ],
    );
    let ca = key(&secret(&client).await.unwrap(), "ca.crt");
    let first = served_cert(&server, &ca).await.unwrap();
    // Renewed at 80 % of 10 s (+ the 1 s backdating): within a few seconds.
    let renewed = eventually(DEADLINE, "a renewed serving certificate", || {
        let (server, ca, first) = (&server, &ca, &first);
        async move {
            let now = served_cert(server, ca).await?;
            (now != *first).then_some(now)
        }
    })
    .await;
    assert_eq!(
        renewed,
        certs(&key(&secret(&client).await.unwrap(), "tls.crt"))[0]
    );
    assert!(server.exited().is_none(), "no restart");
}

#[tokio::test]
async fn serving_ca_secret_short_ca_validity_rotated_both_cas_in_ca_bundle() {
    let (fake, client) = host().await;
    let mut server = serve(
        &fake,
        &[
            "--serving-ca-secret",
            SECRET,
            "--serving-ca-validity",
            "20s",
        ],
    );
    let first_ca = key(&secret(&client).await.unwrap(), "ca.crt");
    assert_eq!(certs(&first_ca).len(), 1);
    let api = apiservices(&client);
    // The rotation: the Secret's bundle is new CA, then the old; the APIServices follow.
    let overlap = eventually(DEADLINE, "a rotated CA in the bundle", || {
        let client = client.clone();
        async move {
            let bundle = key(&secret(&client).await?, "ca.crt");
            (certs(&bundle).len() == 2).then_some(bundle)
        }
    })
    .await;
    assert_eq!(certs(&overlap)[1], certs(&first_ca)[0], "the old CA second");
    assert_ne!(certs(&overlap)[0], certs(&first_ca)[0], "a new CA first");
    if let Err(e) = handshake(&server, &overlap).await {
        panic!("the served certificate does not verify with the two-CA bundle: {e}");
    }
    eventually(DEADLINE, "the APIServices' caBundle with both CAs", || {
        let (api, overlap) = (api.clone(), overlap.clone());
        async move {
            let a = api.get("v1.stable.example.com").await.ok()?;
            let bundle = a.spec?.ca_bundle?.0;
            (bundle == overlap).then_some(())
        }
    })
    .await;
    // The old CA leaves the bundle when it expires; the server then serves the new CA's.
    let new_ca_only = eventually(Duration::from_secs(45), "the old CA pruned", || {
        let (client, first_ca) = (client.clone(), &first_ca);
        async move {
            let bundle = key(&secret(&client).await?, "ca.crt");
            (certs(&bundle).len() == 1 && certs(&bundle)[0] != certs(first_ca)[0]).then_some(bundle)
        }
    })
    .await;
    assert!(
        served_cert(&server, &new_ca_only).await.is_some(),
        "serving a certificate of the new CA"
    );
    assert!(server.exited().is_none(), "no restart");
}

#[tokio::test]
async fn serving_ca_secret_not_ours_refused_never_overwritten() {
    let (fake, client) = host().await;
    let secrets = Api::<Secret>::namespaced(client.clone(), NAMESPACE);
    let theirs: Secret = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "serving-ca", "labels": {"team": "a"}},
        "type": "kubernetes.io/tls",
        "data": {"tls.crt": "Y2VydA==", "tls.key": "a2V5"}
    }))
    .unwrap();
    let theirs = secrets
        .create(&PostParams::default(), &theirs)
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .arg("dev")
        .args(["--secure-port", "0", "--bind-address", "127.0.0.1"])
        .arg("--dev-pki-dir")
        .arg(dir.path().join("pki"))
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .arg("--cert-dir")
        .arg(dir.path().join("certs"))
        .arg("--kubeconfig")
        .arg(fake.kubeconfig())
        .args(["--service-namespace", NAMESPACE, "--register-apiservices"])
        .args(["--serving-ca-secret", SECRET])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // It must stop at start-up; one still running after the deadline took the Secret.
    let stderr_pipe = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || std::io::read_to_string(stderr_pipe).unwrap());
    let deadline = std::time::Instant::now() + DEADLINE;
    let exited = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the server did not stop at start-up: it took a Secret not ours");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(!exited.success());
    let stderr = stderr.join().unwrap();
    assert!(
        stderr.contains("--serving-ca-secret crd-test/serving-ca: the Secret exists and is not ours (it lacks the label app.kubernetes.io/managed-by=crd-apiserver); it is never overwritten"),
        "{stderr}"
    );
    let now = secret(&client).await.unwrap();
    assert_eq!(
        serde_json::to_value(&now).unwrap(),
        serde_json::to_value(&theirs).unwrap(),
        "never written"
    );
    let secret_writes = fake
        .writes()
        .into_iter()
        .filter(|w| w.path.contains("/secrets"))
        .count();
    assert_eq!(secret_writes, 1, "only the test's own create");
}
