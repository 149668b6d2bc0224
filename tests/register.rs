//! Self-registration against the fake host cluster, with the real binary over real TLS:
//! `--register-apiservices` creates an APIService per served group/version with our
//! route and caBundle and keeps it (edits and deletions are put back) without touching
//! one that is not ours; `crd-apiserver unregister` deletes ours only;
//! `--serving-ca-secret` keeps our own CA in a Secret, serves a certificate that chains to
//! it, is shared by replicas, and renews the certificate and rotates the CA (both CAs in
//! caBundle meanwhile) without a restart.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use common::{Server, eventually};
use fake_kube::FakeKube;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};

const NAMESPACE: &str = "crd-test";
const OWNER: &str = "crd-test.crd-apiserver";
const DEADLINE: Duration = Duration::from_secs(30);
const SERVED: [&str; 3] = [
    "v1.example.org",
    "v1.stable.example.com",
    "v1beta1.example.org",
];

/// The fake host (announcing a front-proxy CA, as kube-apiserver does) and a client of it.
async fn host() -> (FakeKube, kube::Client) {
    let fake = FakeKube::start();
    let proxy_ca = crd_apiserver::server::pki::new_authority("front-proxy-ca").unwrap();
    fake.set_configmap(Some(fake_kube::front_proxy_data(
        &proxy_ca.pem.cert,
        &["front-proxy-client"],
    )));
    let client = kube_client(&fake).await;
    (fake, client)
}

async fn kube_client(fake: &FakeKube) -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::read_from(fake.kubeconfig()).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap();
    kube::Client::try_from(config).unwrap()
}

/// A server and its own `--cert-dir` (each replica writes its serving pair there; the
/// default is relative to the working directory, shared by every test).
struct Replica {
    server: Server,
    _cert_dir: tempfile::TempDir,
}

impl std::ops::Deref for Replica {
    type Target = Server;
    fn deref(&self) -> &Server {
        &self.server
    }
}

impl std::ops::DerefMut for Replica {
    fn deref_mut(&mut self) -> &mut Server {
        &mut self.server
    }
}

/// The server in dev mode registering in `fake`, with `extra` flags.
fn serve(fake: &FakeKube, extra: &[&str]) -> Replica {
    let mut args = vec!["--register-apiservices"];
    args.extend_from_slice(extra);
    replica(&fake.kubeconfig(), &args)
}

/// The server in dev mode with the cluster of `kubeconfig`.
fn replica(kubeconfig: &std::path::Path, extra: &[&str]) -> Replica {
    let kubeconfig = kubeconfig.display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let cert_dir = dir.path().display().to_string();
    let mut args = vec![
        "--kubeconfig",
        &kubeconfig,
        "--service-namespace",
        NAMESPACE,
        "--cert-dir",
        &cert_dir,
    ];
    args.extend_from_slice(extra);
    Replica {
        server: Server::start_with(&args),
        _cert_dir: dir,
    }
}

/// A CA bundle file for `--apiservice-ca-file`.
fn ca_file(dir: &tempfile::TempDir) -> (String, Vec<u8>) {
    let ca = crd_apiserver::server::pki::new_authority("apiservice-ca").unwrap();
    let path = dir.path().join("ca.crt");
    std::fs::write(&path, &ca.pem.cert).unwrap();
    (path.display().to_string(), ca.pem.cert.into_bytes())
}

fn apiservices(client: &kube::Client) -> Api<APIService> {
    Api::all(client.clone())
}

/// Our APIServices by name, once all of [`SERVED`] are there.
async fn registered(client: &kube::Client) -> Vec<APIService> {
    let api = apiservices(client);
    eventually(DEADLINE, "our APIServices", || {
        let api = api.clone();
        async move {
            let params = ListParams::default().labels(&format!("crd-apiserver.io/service={OWNER}"));
            let items = api.list(&params).await.ok()?.items;
            let names: BTreeSet<String> = items
                .iter()
                .filter_map(|a| a.metadata.name.clone())
                .collect();
            (names == SERVED.iter().map(|s| s.to_string()).collect()).then_some(items)
        }
    })
    .await
}

fn spec_json(a: &APIService) -> Value {
    serde_json::to_value(a.spec.as_ref().unwrap()).unwrap()
}

#[tokio::test]
async fn register_served_group_versions_spec_and_ca_bundle_applied() {
    let (fake, client) = host().await;
    let dir = tempfile::tempdir().unwrap();
    let (ca_path, ca_pem) = ca_file(&dir);
    let server = serve(&fake, &["--apiservice-ca-file", &ca_path]);
    let found = registered(&client).await;
    let b64 = base64::engine::general_purpose::STANDARD.encode(&ca_pem);
    for a in &found {
        let name = a.metadata.name.clone().unwrap();
        let (version, group) = name.split_once('.').unwrap();
        assert_eq!(
            spec_json(a),
            json!({"group": group, "version": version, "groupPriorityMinimum": 1000,
                "versionPriority": 100, "caBundle": b64, "insecureSkipTLSVerify": false,
                "service": {"namespace": NAMESPACE, "name": "crd-apiserver", "port": 443}}),
            "{name}"
        );
        let managers: Vec<(String, String)> = a
            .metadata
            .managed_fields
            .iter()
            .flatten()
            .map(|m| (m.manager.clone().unwrap(), m.operation.clone().unwrap()))
            .collect();
        assert!(
            managers.contains(&("crd-apiserver".into(), "Apply".into())),
            "{name}: server-side applied by crd-apiserver: {managers:?}"
        );
    }
    let metrics = server.metrics().await;
    assert!(
        fake_kube::delegated::sample(
            &metrics,
            "crd_apiserver_apiservice_reconciles_total{result=\"success\"}"
        ) >= 1.0,
        "{metrics}"
    );
}

#[tokio::test]
async fn register_edited_and_deleted_apiservices_put_back() {
    let (fake, client) = host().await;
    let dir = tempfile::tempdir().unwrap();
    let (ca_path, _) = ca_file(&dir);
    let _server = serve(&fake, &["--apiservice-ca-file", &ca_path]);
    let before = registered(&client).await;
    let api = apiservices(&client);
    let edit = json!({"spec": {"groupPriorityMinimum": 5, "insecureSkipTLSVerify": true, "caBundle": null}});
    api.patch(
        "v1.stable.example.com",
        &PatchParams::default(),
        &Patch::Merge(&edit),
    )
    .await
    .unwrap();
    let want = before
        .iter()
        .find(|a| a.metadata.name.as_deref() == Some("v1.stable.example.com"))
        .map(spec_json)
        .unwrap();
    eventually(DEADLINE, "the edited spec put back", || {
        let (api, want) = (api.clone(), want.clone());
        async move {
            let now = api.get("v1.stable.example.com").await.ok()?;
            (spec_json(&now) == want).then_some(())
        }
    })
    .await;

    let old_uid = before
        .iter()
        .find(|a| a.metadata.name.as_deref() == Some("v1.example.org"))
        .and_then(|a| a.metadata.uid.clone())
        .unwrap();
    api.delete("v1.example.org", &DeleteParams::default())
        .await
        .unwrap();
    let recreated = eventually(DEADLINE, "the deleted APIService put back", || {
        let api = api.clone();
        async move { api.get_opt("v1.example.org").await.ok()? }
    })
    .await;
    assert_ne!(recreated.metadata.uid.as_deref(), Some(old_uid.as_str()));
    assert_eq!(spec_json(&recreated)["group"], "example.org");
}

#[tokio::test]
async fn register_ca_file_replaced_ca_bundle_follows() {
    let (fake, client) = host().await;
    let dir = tempfile::tempdir().unwrap();
    let (ca_path, first) = ca_file(&dir);
    let _server = serve(&fake, &["--apiservice-ca-file", &ca_path]);
    for a in registered(&client).await {
        assert_eq!(a.spec.unwrap().ca_bundle.unwrap().0, first);
    }
    // Rotated by whoever owns the file (a new file renamed over it, as Secret volumes do).
    let next = crd_apiserver::server::pki::new_authority("next-ca").unwrap();
    let both = format!("{}{}", next.pem.cert, String::from_utf8(first).unwrap());
    crd_apiserver::server::pki::write_file(std::path::Path::new(&ca_path), both.as_bytes(), 0o644)
        .unwrap();
    let api = apiservices(&client);
    eventually(DEADLINE, "every caBundle following the file", || {
        let (api, both) = (api.clone(), both.clone());
        async move {
            let items = api.list(&ListParams::default()).await.ok()?.items;
            let followed = items
                .iter()
                .filter(|a| {
                    a.spec
                        .as_ref()
                        .and_then(|s| s.ca_bundle.as_ref())
                        .map(|b| &b.0)
                        == Some(&both.clone().into_bytes())
                })
                .count();
            (followed == SERVED.len()).then_some(())
        }
    })
    .await;
}

/// An APIService of the name we would use, owned by someone else.
fn foreign(name: &str, labels: Value) -> APIService {
    let (version, group) = name.split_once('.').unwrap();
    serde_json::from_value(json!({
        "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": name, "labels": labels},
        "spec": {"group": group, "version": version, "groupPriorityMinimum": 2000,
            "versionPriority": 7, "insecureSkipTLSVerify": true,
            "service": {"namespace": "elsewhere", "name": "theirs", "port": 8443}}
    }))
    .unwrap()
}

#[tokio::test]
async fn register_not_owned_apiservice_same_name_left_byte_identical() {
    let (fake, client) = host().await;
    let api = apiservices(&client);
    let theirs = api
        .create(
            &PostParams::default(),
            &foreign("v1.stable.example.com", json!({"team": "a"})),
        )
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (ca_path, _) = ca_file(&dir);
    let server = serve(&fake, &["--apiservice-ca-file", &ca_path]);
    // Ours appear; theirs (same name) stays as it was.
    eventually(DEADLINE, "the other two registered", || {
        let api = api.clone();
        async move {
            let a = api.get_opt("v1.example.org").await.ok()??;
            let b = api.get_opt("v1beta1.example.org").await.ok()??;
            Some((a, b))
        }
    })
    .await;
    server
        .log
        .wait_for(&["v1.stable.example.com", "is not ours"], DEADLINE);
    // Our own applies' watch events made more reconciles: none may write theirs or warn again.
    eventually(DEADLINE, "a second reconcile", || {
        let server = &server;
        async move {
            let metrics = server.metrics().await;
            let series = "crd_apiserver_apiservice_reconciles_total{result=\"success\"}";
            (fake_kube::delegated::sample(&metrics, series) >= 2.0).then_some(())
        }
    })
    .await;
    let now = api.get("v1.stable.example.com").await.unwrap();
    assert_eq!(
        serde_json::to_value(&now).unwrap(),
        serde_json::to_value(&theirs).unwrap(),
        "not ours: never written"
    );
    assert_eq!(
        server.log.count(&["v1.stable.example.com", "is not ours"]),
        1,
        "warned once"
    );
}

fn unregister(fake: &FakeKube, extra: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .arg("unregister")
        .arg("--kubeconfig")
        .arg(fake.kubeconfig())
        .args(extra)
        .output()
        .unwrap()
}

#[tokio::test]
async fn unregister_ours_deleted_others_kept() {
    let (fake, client) = host().await;
    let dir = tempfile::tempdir().unwrap();
    let (ca_path, _) = ca_file(&dir);
    let mut server = serve(&fake, &["--apiservice-ca-file", &ca_path]);
    registered(&client).await;
    server.terminate();
    let api = apiservices(&client);
    let post = PostParams::default();
    api.create(&post, &foreign("v1.other.example", json!({})))
        .await
        .unwrap();
    api.create(
        &post,
        &foreign(
            "v2.other.example",
            json!({"crd-apiserver.io/service": "other.svc"}),
        ),
    )
    .await
    .unwrap();

    let out = unregister(&fake, &["--service", "crd-test/crd-apiserver"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: BTreeSet<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let want: BTreeSet<String> = SERVED
        .iter()
        .map(|n| format!("apiservice.apiregistration.k8s.io \"{n}\" deleted"))
        .collect();
    assert_eq!(printed, want);
    let left: BTreeSet<String> = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|a| a.metadata.name)
        .collect();
    assert_eq!(
        left,
        BTreeSet::from([
            "v1.other.example".to_string(),
            "v2.other.example".to_string()
        ])
    );

    // Without --service: every APIService with our owner label, whoever's Service.
    let out = unregister(&fake, &[]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "apiservice.apiregistration.k8s.io \"v2.other.example\" deleted\n"
    );
    assert!(api.get_opt("v1.other.example").await.unwrap().is_some());

    let out = unregister(&fake, &["--service", "no-slash"]);
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "crd-apiserver unregister: --service: \"no-slash\" invalid, must be of format: <namespace>/<name>\n"
    );
}

// ------------------------------------------------------------- --serving-ca-secret

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
