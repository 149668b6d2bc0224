//! Encryption at rest (issue 33) against the reference's own ciphertexts: the values the
//! reference apiextensions-apiserver 0.36.4 wrote into etcd under an EncryptionConfiguration
//! (aesgcm with key k1, aesgcm rotated to k2, aescbc, secretbox, and identity first: plaintext)
//! are put byte for byte into a real etcd under the same keys (`--etcd-prefix
//! /registry/apiext`; the key is the authenticated data), and crd-apiserver, given the same
//! keys, must serve each as the reference served it; without the key it must fail as the
//! reference failed. Recorded by hack/audit-oracle/encryption.py into tests/fixtures/encryption/
//! (values.json, unreadable.json and the configurations); FINDINGS.md beside it says more.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/etcd.rs"]
mod etcd;

use std::collections::BTreeMap;

use base64::Engine;
use common::Server;
use serde_json::{Value, json};

const PREFIX: &str = "/registry/apiext";
const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn fixture(name: &str) -> std::path::PathBuf {
    common::repo_root()
        .join("tests/fixtures/encryption")
        .join(name)
}

fn recorded(name: &str) -> BTreeMap<String, Value> {
    serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap()
}

/// Puts every recorded value into `etcd` as the reference wrote it; returns each case's
/// etcd revision (our resourceVersion for it).
async fn put_recorded(
    etcd: &etcd::Etcd,
    values: &BTreeMap<String, Value>,
) -> BTreeMap<String, i64> {
    let store = etcd.store().await;
    let mut revisions = BTreeMap::new();
    for (case, value) in values {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(value["value_base64"].as_str().unwrap())
            .unwrap();
        let revision = store
            .create(value["key"].as_str().unwrap(), bytes)
            .await
            .unwrap();
        revisions.insert(case.clone(), revision);
    }
    revisions
}

/// Dev mode on the recorded CRDs, storing in `etcd` under the reference's prefix, with the
/// EncryptionConfiguration `config`.
fn start(etcd: &etcd::Etcd, config: &str) -> Server {
    let crds = common::repo_root().join("tests/fixtures/admission/crontabs.yaml");
    let config = fixture(config).display().to_string();
    let mut args = vec!["--crd-dir".to_string(), crds.display().to_string()];
    args.extend(etcd.flags());
    args.extend(["--etcd-prefix".to_string(), PREFIX.to_string()]);
    args.extend(["--encryption-provider-config".to_string(), config]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Server::start_with(&args)
}

async fn get(server: &Server, path: &str) -> (u16, Value) {
    let resp = server.client().get(server.url(path)).send().await.unwrap();
    let code = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        code,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reference_ciphertexts_served_as_the_reference_served_them() {
    let values = recorded("values.json");
    let etcd = etcd::Etcd::start();
    let revisions = put_recorded(&etcd, &values).await;
    let server = start(&etcd, "all-keys.yaml");
    let mut diffs = Vec::new();
    for (case, value) in &values {
        let name = value["served"]["metadata"]["name"].as_str().unwrap();
        let (code, ours) = get(&server, &format!("{CT}/{name}")).await;
        if code != 200 {
            diffs.push(format!("{case}: GET {name}: {code} {ours}"));
            continue;
        }
        // The object is the reference's, byte for byte (uid, creationTimestamp, managedFields
        // included); only its resourceVersion is our etcd's revision.
        let mut theirs = value["served"].clone();
        theirs["metadata"]["resourceVersion"] = json!(revisions[case].to_string());
        if ours != theirs {
            diffs.push(format!("{case}: served\n  {ours}\nwant\n  {theirs}"));
        }
    }
    let (code, list) = get(&server, CT).await;
    let mut names: Vec<&str> = list["items"].as_array().map_or(vec![], |items| {
        items
            .iter()
            .filter_map(|i| i["metadata"]["name"].as_str())
            .collect()
    });
    names.sort();
    let mut want: Vec<&str> = values
        .values()
        .map(|v| v["served"]["metadata"]["name"].as_str().unwrap())
        .collect();
    want.sort();
    if code != 200 || names != want {
        diffs.push(format!("LIST: {code} {names:?}, want 200 {want:?}"));
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_case_configuration_reads_its_own_value() {
    let values = recorded("values.json");
    let etcd = etcd::Etcd::start();
    put_recorded(&etcd, &values).await;
    let mut diffs = Vec::new();
    for (case, value) in &values {
        let server = start(&etcd, &format!("config-{case}.yaml"));
        let name = value["served"]["metadata"]["name"].as_str().unwrap();
        let (code, ours) = get(&server, &format!("{CT}/{name}")).await;
        if code != 200
            || ours["spec"] != value["served"]["spec"]
            || ours["metadata"]["uid"] != value["served"]["metadata"]["uid"]
        {
            diffs.push(format!(
                "{case}: GET {name} with config-{case}.yaml: {code} {ours}"
            ));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn value_without_its_key_fails_as_the_reference_failed() {
    let values = recorded("values.json");
    let failures = recorded("unreadable.json");
    let etcd = etcd::Etcd::start();
    let aesgcm = BTreeMap::from([("aesgcm".to_string(), values["aesgcm"].clone())]);
    put_recorded(&etcd, &aesgcm).await;
    let mut diffs = Vec::new();
    for (case, want) in &failures {
        let server = start(&etcd, &format!("config-{case}.yaml"));
        for request in ["get", "list"] {
            let path = want[request]["path"].as_str().unwrap();
            let (code, body) = get(&server, path).await;
            let want_code = want[request]["code"].as_u64().unwrap() as u16;
            if code != want_code || body != want[request]["body"] {
                diffs.push(format!(
                    "{case} {request}: {code} {body}\nwant {want_code} {}",
                    want[request]["body"]
                ));
            }
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
