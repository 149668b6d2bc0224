//! KMS v2 encryption at rest (issue 33 point 5) against a real plugin over gRPC on a unix
//! socket (tests/common/kms_plugin.rs): one plugin Encrypt for many writes (the DEK seed
//! is cached), one Decrypt to read them all back in a new process, key ID rotation,
//! kube's errors when the plugin is down; first the transformer alone, then the real
//! server on a real etcd (`--encryption-provider-config` with a `kms` v2 provider), whose
//! raw values are read back from etcd.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/etcd.rs"]
mod etcd;
#[path = "common/kms_plugin.rs"]
mod kms_plugin;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::Server;
use crd_apiserver::storage::encryption::kms::{self, api};
use crd_apiserver::storage::encryption::{EncryptionError, KmsConfiguration};
use futures::StreamExt;
use kms_plugin::KmsPlugin;
use prost::Message;
use serde_json::{Value, json};

fn config(endpoint: &str) -> KmsConfiguration {
    KmsConfiguration {
        api_version: "v2".into(),
        name: "kms-test".into(),
        endpoint: endpoint.into(),
        timeout: Duration::from_secs(3),
    }
}

#[tokio::test]
async fn transformer_over_grpc_many_writes_one_encrypt_new_process_one_decrypt() {
    let plugin = KmsPlugin::start("key-1");
    let first = kms::transformer(&config(&plugin.endpoint())).await.unwrap();
    let mut values = Vec::new();
    for i in 0..50 {
        let plain = format!("{{\"spec\":{{\"secret\":\"s3cr3t-{i}\"}}}}");
        let key = format!("/registry/example.com/widgets/default/w{i}");
        let value = first
            .transform_to_storage(plain.as_bytes(), key.as_bytes())
            .await
            .unwrap();
        let object = api::EncryptedObject::decode(value.as_slice()).unwrap();
        assert_eq!(object.key_id, "key-1");
        assert_eq!(
            object.encrypted_dek_source_type, 1,
            "HKDF_SHA256_XNONCE_AES_GCM_SEED"
        );
        assert_eq!(object.annotations["version.kms.example.com"], b"1");
        assert!(
            !value.windows(6).any(|w| w == b"s3cr3t"),
            "no plaintext in the value"
        );
        values.push((plain, key, value));
    }
    assert_eq!(plugin.encrypts(), 1, "one DEK seed encrypted for 50 writes");
    assert_eq!(plugin.decrypts(), 0);
    drop(first);

    // A new process: its own seed, and one Decrypt for every value of the old one.
    let second = kms::transformer(&config(&plugin.endpoint())).await.unwrap();
    for (plain, key, value) in &values {
        let read = second
            .transform_from_storage(value, key.as_bytes())
            .await
            .unwrap();
        assert_eq!(read.data, plain.as_bytes());
        assert!(!read.stale);
    }
    assert_eq!((plugin.encrypts(), plugin.decrypts()), (2, 1));
}

#[tokio::test]
async fn transformer_plugin_absent_at_start_kube_errors() {
    let dir = tempfile::tempdir().unwrap();
    let endpoint = format!("unix://{}/absent.sock", dir.path().display());
    let t = kms::transformer(&config(&endpoint)).await.unwrap();
    assert_eq!(
        t.transform_to_storage(b"{}", b"/k").await,
        Err(EncryptionError::Write(
            "got unexpected nil transformer".into()
        ))
    );
}

#[tokio::test]
async fn transformer_plugin_down_decrypt_fails_with_grpc_text() {
    let plugin = KmsPlugin::start("key-1");
    let first = kms::transformer(&config(&plugin.endpoint())).await.unwrap();
    let value = first.transform_to_storage(b"{}", b"/k").await.unwrap();
    let second = kms::transformer(&config(&plugin.endpoint())).await.unwrap();
    plugin.state.set_down(true);
    assert_eq!(
        second.transform_from_storage(&value, b"/k").await,
        Err(EncryptionError::Read(
            "failed to decrypt DEK, error: rpc error: code = Unavailable desc = the test plugin is down".into()
        ))
    );
    // Writes go on with the cached seed while the plugin is down.
    assert!(second.transform_to_storage(b"{}", b"/k2").await.is_ok());
}

#[tokio::test]
async fn provider_key_id_rotation_old_values_stale_after_check() {
    let plugin = KmsPlugin::start("key-1");
    let provider = kms::provider(&config(&plugin.endpoint())).await.unwrap();
    let old = provider
        .transformer
        .transform_to_storage(b"old", b"/k")
        .await
        .unwrap();
    plugin.state.rotate("key-2");
    // The probe answers from its last result for 20 s: poll it until it asks the plugin.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while plugin.encrypts() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "no rotation within 60 s"
        );
        provider.probe.check().await.unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let new = provider
        .transformer
        .transform_to_storage(b"new", b"/k")
        .await
        .unwrap();
    assert_eq!(
        api::EncryptedObject::decode(new.as_slice()).unwrap().key_id,
        "key-2"
    );
    let read = provider
        .transformer
        .transform_from_storage(&old, b"/k")
        .await
        .unwrap();
    assert_eq!(
        (read.data.as_slice(), read.stale),
        (b"old".as_slice(), true)
    );
    let read = provider
        .transformer
        .transform_from_storage(&new, b"/k")
        .await
        .unwrap();
    assert_eq!(
        (read.data.as_slice(), read.stale),
        (b"new".as_slice(), false)
    );
}

// ------------------------------------------------------------ the real server on etcd

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const KEY_PREFIX: &str = "/registry/stable.example.com/crontabs/default/";
const PREFIX: &str = "k8s:enc:kms:v2:kms-test:";
/// Stands for sensitive data: must never reach etcd in clear.
const MARKER: &str = "sensitive-marker-0815";

/// An EncryptionConfiguration for crontabs: the plugin at `endpoint`, then identity.
fn config_file(dir: &Path, endpoint: &str) -> PathBuf {
    let path = dir.join("encryption.yaml");
    let text = format!(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [crontabs.stable.example.com]\n  providers:\n  - kms: {{apiVersion: v2, name: kms-test, endpoint: \"{endpoint}\", timeout: 3s}}\n  - identity: {{}}\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// The server on `etcd` with the plugin at `endpoint` (config written under `dir`).
fn start(etcd: &etcd::Etcd, dir: &Path, endpoint: &str) -> Server {
    let mut flags = etcd.flags();
    flags.push(format!(
        "--encryption-provider-config={}",
        config_file(dir, endpoint).display()
    ));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    Server::start_with(&flags)
}

fn crontab(name: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
           "metadata": {"name": name}, "spec": {"cronSpec": MARKER, "replicas": 1}})
}

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.expect("request");
    let code = resp.status().as_u16();
    (code, resp.json::<Value>().await.unwrap_or(Value::Null))
}

async fn create(server: &Server, name: &str) -> Value {
    let (code, body) = send(server.client().post(server.url(CT)).json(&crontab(name))).await;
    assert_eq!(code, 201, "{body}");
    body
}

async fn get(server: &Server, name: &str) -> (u16, Value) {
    send(server.client().get(server.url(&format!("{CT}/{name}")))).await
}

/// The raw value of a crontab in etcd, if any.
async fn raw(etcd: &etcd::Etcd, name: &str) -> Option<Vec<u8>> {
    let store = etcd.store().await;
    let kv = store.get(&format!("{KEY_PREFIX}{name}")).await.unwrap();
    kv.map(|kv| kv.value.to_vec())
}

/// The `EncryptedObject` of a raw value, after checking kube's prefix and that no
/// plaintext is in it.
fn encrypted_object(value: &[u8]) -> api::EncryptedObject {
    let text = String::from_utf8_lossy(value);
    let rest = value
        .strip_prefix(PREFIX.as_bytes())
        .unwrap_or_else(|| panic!("want prefix {PREFIX}: {}", &text[..text.len().min(60)]));
    for plain in [MARKER, "CronTab", "stable.example.com/v1"] {
        assert!(!text.contains(plain), "plaintext {plain:?} reached etcd");
    }
    api::EncryptedObject::decode(rest).expect("an EncryptedObject after the prefix")
}

/// The code of a GET (health sub-paths need a user: kube always allows only the bare
/// `/healthz`, `/livez`, `/readyz`).
async fn code(server: &Server, path: &str) -> u16 {
    server
        .client()
        .get(server.url(path))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// Reads watch events until `count` arrived or 10 s passed.
async fn events(resp: reqwest::Response, count: usize) -> Vec<Value> {
    let mut stream = resp.bytes_stream();
    let (mut buf, mut out) = (Vec::new(), Vec::new());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while out.len() < count {
        let chunk = match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(Some(Ok(c))) => c,
            _ => break,
        };
        buf.extend_from_slice(&chunk);
        while let Some(pos) = buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buf.drain(..=pos).collect();
            out.push(serde_json::from_slice(&line).unwrap());
        }
    }
    out
}

/// What etcd holds is kube's prefix and an `EncryptedObject` (no plaintext); get, list and
/// watch answer plaintext; 20 creates cost one plugin Encrypt and no Decrypt; a restarted
/// server reads every value back with one Decrypt; the metrics count by key ID hash.
#[tokio::test]
async fn kms_values_encrypted_objects_many_writes_one_encrypt_restart_one_decrypt() {
    let etcd = etcd::Etcd::start();
    let plugin = KmsPlugin::start("key-1");
    let server = start(&etcd, etcd.dir.path(), &plugin.endpoint());
    let c = server.client();
    let (code0, list) = send(c.get(server.url(CT))).await;
    assert_eq!(code0, 200, "{list}");
    let rv = list["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    let watch = c
        .get(server.url(&format!("{CT}?watch=1&resourceVersion={rv}")))
        .send()
        .await
        .unwrap();
    let names: Vec<String> = (0..20).map(|i| format!("ct-{i}")).collect();
    for name in &names {
        create(&server, name).await;
    }
    let mut dek_sources = std::collections::BTreeSet::new();
    for name in &names {
        let object = encrypted_object(&raw(&etcd, name).await.expect("stored"));
        assert_eq!(object.key_id, "key-1");
        assert_eq!(
            object.encrypted_dek_source_type, 1,
            "HKDF_SHA256_XNONCE_AES_GCM_SEED"
        );
        assert_eq!(object.annotations["version.kms.example.com"], b"1");
        dek_sources.insert(object.encrypted_dek_source);
        let (code, got) = get(&server, name).await;
        assert_eq!(
            (code, got["spec"]["cronSpec"].as_str()),
            (200, Some(MARKER))
        );
    }
    assert_eq!(dek_sources.len(), 1, "one DEK seed for every write");
    assert_eq!((plugin.encrypts(), plugin.decrypts()), (1, 0));
    let (_, list) = send(c.get(server.url(CT))).await;
    assert_eq!(common::item_names(&list).len(), 20, "{list}");
    assert!(
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["spec"]["cronSpec"] == MARKER)
    );
    let seen = events(watch, 20).await;
    assert_eq!(seen.len(), 20);
    assert!(
        seen.iter()
            .all(|e| e["type"] == "ADDED" && e["object"]["spec"]["cronSpec"] == MARKER)
    );
    let metrics = server.metrics().await;
    assert!(
        metrics.lines().any(
            |l| l.starts_with("apiserver_envelope_encryption_key_id_hash_total{")
                && l.contains("transformation_type=\"to_storage\"")
                && l.contains("provider_name=\"kms-test\"")
                && l.ends_with(" 20")
        ),
        "{}",
        metrics
            .lines()
            .filter(|l| l.contains("envelope"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(code(&server, "/readyz/kms-providers").await, 200);
    assert_eq!(code(&server, "/healthz/kms-providers").await, 200);

    let server = server.restart();
    for name in &names {
        let (code, got) = get(&server, name).await;
        assert_eq!(
            (code, got["spec"]["cronSpec"].as_str()),
            (200, Some(MARKER)),
            "{name}"
        );
    }
    assert_eq!(
        (plugin.encrypts(), plugin.decrypts()),
        (2, 1),
        "the new process made its own seed and decrypted the old one once"
    );
}

/// The plugin answers a new key ID: once the server's Status check sees it (the
/// kms-providers health check asks again after 20 s), new writes use a new seed under the
/// new key and old values still read; after a restart (the watch cache is filled with
/// the staleness of that moment) a no-op update rewrites an old value under the new key.
#[tokio::test]
async fn kms_key_id_rotation_new_writes_new_key_noop_update_rewrites() {
    let etcd = etcd::Etcd::start();
    let plugin = KmsPlugin::start("key-1");
    let server = start(&etcd, etcd.dir.path(), &plugin.endpoint());
    create(&server, "old").await;
    assert_eq!(
        encrypted_object(&raw(&etcd, "old").await.unwrap()).key_id,
        "key-1"
    );
    plugin.state.rotate("key-2");
    let mut attempt = 0;
    common::eventually(Duration::from_secs(40), "writes under key-2", || {
        attempt += 1;
        let name = format!("new-{attempt}");
        let (server, etcd) = (&server, &etcd);
        async move {
            assert_eq!(code(server, "/readyz/kms-providers").await, 200);
            let (code, _) = send(server.client().post(server.url(CT)).json(&crontab(&name))).await;
            assert_eq!(code, 201);
            let key_id = encrypted_object(&raw(etcd, &name).await.unwrap()).key_id;
            (key_id == "key-2").then_some(())
        }
    })
    .await;
    assert_eq!(plugin.encrypts(), 2, "one new seed for the new key ID");
    let (code_old, old) = get(&server, "old").await;
    assert_eq!(
        (code_old, old["spec"]["cronSpec"].as_str()),
        (200, Some(MARKER))
    );

    let server = server.restart();
    let (_, old) = get(&server, "old").await;
    let (code_put, put) = send(
        server
            .client()
            .put(server.url(&format!("{CT}/old")))
            .json(&old),
    )
    .await;
    assert_eq!(code_put, 200, "{put}");
    assert_ne!(
        put["metadata"]["resourceVersion"], old["metadata"]["resourceVersion"],
        "the stale value was written"
    );
    assert_eq!(
        encrypted_object(&raw(&etcd, "old").await.unwrap()).key_id,
        "key-2",
        "a no-op update rewrote the stale value under the new key"
    );
    let (_, current) = get(&server, "old").await;
    let (_, again) = send(
        server
            .client()
            .put(server.url(&format!("{CT}/old")))
            .json(&current),
    )
    .await;
    assert_eq!(
        again["metadata"]["resourceVersion"], current["metadata"]["resourceVersion"],
        "a current value is not written"
    );
}

/// A plugin absent at start-up: writes answer kube's 500 and store nothing, kms-providers
/// fails on readyz (not livez); once the plugin answers, the background check (every
/// 10 s) primes the provider and writes succeed.
#[tokio::test]
async fn kms_plugin_absent_writes_fail_kube_500_nothing_stored_until_it_answers() {
    let etcd = etcd::Etcd::start();
    let mut plugin = KmsPlugin::start("key-1");
    plugin.stop();
    let server = start(&etcd, etcd.dir.path(), &plugin.endpoint());
    let (code_post, status) =
        send(server.client().post(server.url(CT)).json(&crontab("early"))).await;
    assert_eq!(code_post, 500, "{status}");
    assert_eq!(status["reason"], "InternalError");
    assert_eq!(
        status["message"],
        "Internal error occurred: got unexpected nil transformer"
    );
    assert_eq!(raw(&etcd, "early").await, None, "nothing stored");
    assert_eq!(code(&server, "/readyz/kms-providers").await, 500);
    assert_eq!(code(&server, "/healthz/kms-providers").await, 500);
    assert_eq!(code(&server, "/livez").await, 200);

    let plugin = plugin.restart();
    common::eventually(Duration::from_secs(30), "the provider primed", || async {
        let (code, _) = send(server.client().post(server.url(CT)).json(&crontab("late"))).await;
        (code == 201).then_some(())
    })
    .await;
    assert_eq!(
        encrypted_object(&raw(&etcd, "late").await.unwrap()).key_id,
        "key-1"
    );
    assert_eq!(plugin.encrypts(), 1);
}
