//! Encryption at rest (`--encryption-provider-config`, kube's EncryptionConfiguration) on
//! a real etcd and on the embedded store: what reaches the store carries kube's
//! `k8s:enc:<provider>:v1:<key>:` prefix and no plaintext, reads, lists and watches
//! answer plaintext, a listed older key still reads, rotation rewrites (a no-op update or
//! `crd-apiserver migrate --rewrite-all`), identity first writes plaintext and still reads
//! encrypted values, and a value no provider reads answers kube's 500 and changes nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/etcd.rs"]
mod etcd;

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;
use common::Server;
use crd_apiserver::storage::Store;
use futures::StreamExt;
use serde_json::{Value, json};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const KEY_PREFIX: &str = "/registry/stable.example.com/crontabs/default/";
/// Stands for sensitive data: must never reach the store in clear.
const MARKER: &str = "sensitive-marker-4711";

fn secret(byte: u8, len: usize) -> String {
    base64::engine::general_purpose::STANDARD.encode(vec![byte; len])
}

fn aes(kind: &str, keys: &[(&str, u8)]) -> String {
    let keys: Vec<String> = keys
        .iter()
        .map(|(name, byte)| format!("{{name: {name}, secret: {}}}", secret(*byte, 32)))
        .collect();
    format!("  - {kind}: {{keys: [{}]}}\n", keys.join(", "))
}

const IDENTITY: &str = "  - identity: {}\n";

/// An EncryptionConfiguration for crontabs with `providers`, written under `dir`.
fn config_file(dir: &Path, name: &str, providers: &str) -> PathBuf {
    let path = dir.join(format!("{name}.yaml"));
    let text = format!(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [crontabs.stable.example.com]\n  providers:\n{providers}"
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn flags(etcd: &etcd::Etcd, config: &Path, extra: &[&str]) -> Vec<String> {
    let mut flags = etcd.flags();
    flags.push(format!("--encryption-provider-config={}", config.display()));
    flags.extend(extra.iter().map(|s| s.to_string()));
    flags
}

fn start(flags: &[String]) -> Server {
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

/// The raw stored value of a crontab, read from etcd without the server.
async fn raw(etcd: &etcd::Etcd, name: &str) -> Vec<u8> {
    let store = etcd.store().await;
    let kv = store.get(&format!("{KEY_PREFIX}{name}")).await.unwrap();
    kv.expect("stored").value.to_vec()
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

fn assert_encrypted(value: &[u8], prefix: &str) {
    assert!(
        value.starts_with(prefix.as_bytes()),
        "want prefix {prefix}: {}",
        String::from_utf8_lossy(&value[..value.len().min(40)])
    );
    assert!(!contains(value, MARKER), "plaintext reached the store");
    assert!(!contains(value, "CronTab"), "plaintext reached the store");
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

/// Each provider (with and without the watch cache): the stored value is kube's prefix
/// and no plaintext; get, list and watch (create, update, delete) answer plaintext; the
/// transformation metrics count the writes and reads.
#[tokio::test]
async fn providers_store_prefixed_ciphertext_serve_plaintext() {
    let etcd = etcd::Etcd::start();
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("aesgcm", "k8s:enc:aesgcm:v1:k1:", "0"),
        ("aescbc", "k8s:enc:aescbc:v1:k1:", "100"),
        ("secretbox", "k8s:enc:secretbox:v1:k1:", "0"),
        ("aesgcm", "k8s:enc:aesgcm:v1:k1:", "100"),
    ];
    for (i, (kind, prefix, cache)) in cases.into_iter().enumerate() {
        let config = config_file(dir.path(), kind, &aes(kind, &[("k1", 1)]));
        let server = start(&flags(
            &etcd,
            &config,
            &["--default-watch-cache-size", cache],
        ));
        let c = server.client();
        let name = format!("p{i}");
        let (code, list) = send(c.get(server.url(CT))).await;
        assert_eq!(code, 200, "{list}");
        let rv = list["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .to_string();
        let watch = c
            .get(server.url(&format!("{CT}?watch=1&resourceVersion={rv}")))
            .send()
            .await
            .unwrap();
        create(&server, &name).await;
        assert_encrypted(&raw(&etcd, &name).await, prefix);
        let (code, got) = get(&server, &name).await;
        assert_eq!(
            (code, &got["spec"]["cronSpec"]),
            (200, &json!(MARKER)),
            "{kind}"
        );
        let (code, list) = send(c.get(server.url(CT))).await;
        assert_eq!(code, 200, "{list}");
        let listed: Vec<&Value> = list["items"].as_array().unwrap().iter().collect();
        assert!(
            listed.iter().all(|o| o["spec"]["cronSpec"] == MARKER),
            "{list}"
        );
        let (code, body) = send(
            c.patch(server.url(&format!("{CT}/{name}")))
                .header("content-type", "application/merge-patch+json")
                .body(r#"{"spec":{"replicas":3}}"#),
        )
        .await;
        assert_eq!(code, 200, "{body}");
        assert_encrypted(&raw(&etcd, &name).await, prefix);
        let (code, body) = send(c.delete(server.url(&format!("{CT}/{name}")))).await;
        assert_eq!(code, 200, "{body}");
        let got = events(watch, 3).await;
        let seen: Vec<(&str, &Value, &Value)> = got
            .iter()
            .map(|e| {
                (
                    e["type"].as_str().unwrap(),
                    &e["object"]["spec"]["cronSpec"],
                    &e["object"]["spec"]["replicas"],
                )
            })
            .collect();
        let marker = json!(MARKER);
        assert_eq!(
            seen,
            [
                ("ADDED", &marker, &json!(1)),
                ("MODIFIED", &marker, &json!(3)),
                ("DELETED", &marker, &json!(3))
            ],
            "{kind} cache {cache}"
        );
        let metrics = server.metrics().await;
        let written = format!(
            "apiserver_storage_transformation_operations_total{{resource=\"crontabs.stable.example.com\",transformation_type=\"to_storage\",transformer_prefix=\"k8s:enc:{kind}:v1:\",status=\"OK\"}} 2"
        );
        assert!(
            metrics.contains(&written),
            "{kind}: {written} in\n{}",
            grep(&metrics)
        );
        let read = format!(
            "transformation_type=\"from_storage\",transformer_prefix=\"k8s:enc:{kind}:v1:\",status=\"OK\"}}"
        );
        assert!(metrics.contains(&read), "{kind}: {read}");
    }
}

fn grep(metrics: &str) -> String {
    let lines: Vec<&str> = metrics
        .lines()
        .filter(|l| l.contains("transformation"))
        .collect();
    lines.join("\n")
}

/// Rotation as kube documents it: a new key added first (the old one still read, its
/// values stale), a no-op update and `crd-apiserver migrate --rewrite-all` rewrite with
/// the new key (a no-op update of a current value still writes nothing), then the old key
/// removed; identity first writes plaintext and still reads encrypted values.
#[tokio::test]
async fn rotation_rewrites_stale_values_identity_first_writes_plaintext() {
    let etcd = etcd::Etcd::start();
    let dir = tempfile::tempdir().unwrap();
    let old = config_file(dir.path(), "old", &aes("aesgcm", &[("k1", 1)]));
    let server = start(&flags(&etcd, &old, &[]));
    for name in ["noop", "migrated", "untouched"] {
        create(&server, name).await;
    }
    assert_encrypted(&raw(&etcd, "noop").await, "k8s:enc:aesgcm:v1:k1:");
    let both = config_file(dir.path(), "both", &aes("aesgcm", &[("k2", 2), ("k1", 1)]));
    let server = server.restart_with(
        &flags(&etcd, &both, &[])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    let (code, before) = get(&server, "noop").await;
    assert_eq!(
        (code, &before["spec"]["cronSpec"]),
        (200, &json!(MARKER)),
        "the old key reads"
    );
    assert_encrypted(&raw(&etcd, "noop").await, "k8s:enc:aesgcm:v1:k1:");
    // A no-op update (the object as read) of a stale value writes it with the new key.
    let put = |body: &Value| {
        server
            .client()
            .put(server.url(&format!("{CT}/noop")))
            .json(body)
    };
    let (code, after) = send(put(&before)).await;
    assert_eq!(code, 200, "{after}");
    let rv = |o: &Value| {
        o["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_ne!(rv(&after), rv(&before), "the stale value was written");
    assert_encrypted(&raw(&etcd, "noop").await, "k8s:enc:aesgcm:v1:k2:");
    // Now current: the same no-op update writes nothing.
    let (code, again) = send(put(&after)).await;
    assert_eq!((code, rv(&again)), (200, rv(&after)), "{again}");
    // `migrate --rewrite-all` rewrites the rest.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .args([
            "migrate",
            "--resource",
            "crontabs.stable.example.com",
            "--rewrite-all",
        ])
        .arg("--kubeconfig")
        .arg(server.kubeconfig())
        .arg("--checkpoint")
        .arg(dir.path().join("checkpoint.json"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["migrated", "untouched"] {
        assert_encrypted(&raw(&etcd, name).await, "k8s:enc:aesgcm:v1:k2:");
    }
    // The old key removed: everything still reads.
    let new = config_file(dir.path(), "new", &aes("aesgcm", &[("k2", 2)]));
    let server = server.restart_with(
        &flags(&etcd, &new, &[])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    for name in ["noop", "migrated", "untouched"] {
        let (code, got) = get(&server, name).await;
        assert_eq!(
            (code, &got["spec"]["cronSpec"]),
            (200, &json!(MARKER)),
            "{name}"
        );
    }
    // Identity first: encrypted values read, new ones stored as plaintext.
    let ident = config_file(
        dir.path(),
        "ident",
        &format!("{IDENTITY}{}", aes("aesgcm", &[("k2", 2)])),
    );
    let server = server.restart_with(
        &flags(&etcd, &ident, &[])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    let (code, got) = get(&server, "noop").await;
    assert_eq!((code, &got["spec"]["cronSpec"]), (200, &json!(MARKER)));
    create(&server, "plain").await;
    let stored = raw(&etcd, "plain").await;
    assert!(
        stored.starts_with(b"{") && contains(&stored, MARKER),
        "identity writes plaintext"
    );
}

/// A value no listed provider reads: the server still starts, get, list, update and
/// delete answer kube's 500 `Internal error occurred: …`, and the stored value stays.
#[tokio::test]
async fn unreadable_value_answers_kube_500_changes_nothing() {
    let etcd = etcd::Etcd::start();
    let dir = tempfile::tempdir().unwrap();
    let first = config_file(dir.path(), "first", &aes("aesgcm", &[("k1", 1)]));
    let server = start(&flags(&etcd, &first, &[]));
    create(&server, "lost").await;
    let stored = raw(&etcd, "lost").await;
    let wrong = config_file(dir.path(), "wrong", &aes("aesgcm", &[("k9", 9)]));
    let server = server.restart_with(
        &flags(&etcd, &wrong, &[])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    let c = server.client();
    let text = "no matching key was found for the provided AES transformer";
    let key = format!("{KEY_PREFIX}lost");
    let listed = format!("unable to transform key \"{key}\": {text}");
    let patch = c
        .patch(server.url(&format!("{CT}/lost")))
        .header("content-type", "application/merge-patch+json")
        .body(r#"{"spec":{"replicas":5}}"#);
    let cases = [
        (
            "get",
            c.get(server.url(&format!("{CT}/lost"))),
            text.to_string(),
        ),
        ("list", c.get(server.url(CT)), listed),
        ("patch", patch, text.to_string()),
        (
            "delete",
            c.delete(server.url(&format!("{CT}/lost"))),
            text.to_string(),
        ),
    ];
    for (verb, req, message) in cases {
        let (code, body) = send(req).await;
        assert_eq!(code, 500, "{verb}: {body}");
        assert_eq!(body["reason"], "InternalError", "{verb}: {body}");
        assert_eq!(
            body["message"],
            format!("Internal error occurred: {message}"),
            "{verb}"
        );
        assert_eq!(body["details"]["causes"][0]["message"], message, "{verb}");
    }
    assert_eq!(raw(&etcd, "lost").await, stored, "nothing changed");
    // Other objects are still written (with the listed key) and read.
    create(&server, "fresh").await;
    assert_encrypted(&raw(&etcd, "fresh").await, "k8s:enc:aesgcm:v1:k9:");
    let (code, got) = get(&server, "fresh").await;
    assert_eq!((code, &got["spec"]["cronSpec"]), (200, &json!(MARKER)));
}

/// The embedded store too: the value in the redb file is encrypted, reads are not.
#[tokio::test]
async fn embedded_store_value_encrypted() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_file(dir.path(), "sb", &aes("secretbox", &[("s1", 5)]));
    let flag = format!("--encryption-provider-config={}", config.display());
    let mut server = Server::start_with(&[&flag]);
    create(&server, "e").await;
    server.terminate();
    {
        let store = crd_apiserver::storage::embedded::EmbeddedStore::open(&server.data).unwrap();
        let kv = store.get(&format!("{KEY_PREFIX}e")).await.unwrap().unwrap();
        assert_encrypted(&kv.value, "k8s:enc:secretbox:v1:s1:");
    }
    let server = server.start_again();
    let (code, got) = get(&server, "e").await;
    assert_eq!((code, &got["spec"]["cronSpec"]), (200, &json!(MARKER)));
}

/// A bad configuration stops start-up with kube's text (exit 64, every problem at once).
#[test]
fn bad_configuration_refused_at_start_up() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_file(
        dir.path(),
        "bad",
        &format!(
            "{}{}",
            aes("aesgcm", &[("k1", 1)]).replace(&secret(1, 32), &secret(1, 7)),
            "  - {}\n"
        ),
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .current_dir(common::repo_root())
        .args(["--crd-dir", "manifests/examples", "--secure-port", "0"])
        .arg(format!("--encryption-provider-config={}", config.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let want = "--encryption-provider-config: error while parsing file: [resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: \"REDACTED\": secret is not of the expected length, got 7, expected one of [16 24 32], resources[0].providers[1]: Invalid value: apiserver.ProviderConfiguration{}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity]";
    assert!(stderr.contains(want), "{stderr}");
}
