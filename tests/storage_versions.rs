//! Storage version migration against the real server over TLS (issue 32, points 6-8): the
//! stored-version counts (`/storedversions`, `crd_apiserver_stored_objects`) at start-up
//! and after writes, `crd-apiserver migrate` after a change of storage version (complete,
//! interrupted and resumed, racing writers; on the embedded store and on etcd), kube's
//! StorageVersionMigration apply, and start-up's refusal of unmigrated versions.
//! Shared helpers live here; the tests in `tests/storage_versions/`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/etcd.rs"]
mod etcd;

#[path = "storage_versions/counts.rs"]
mod counts;
#[path = "storage_versions/migrate.rs"]
mod migrate;
#[path = "storage_versions/startup.rs"]
mod startup;
#[path = "storage_versions/svm.rs"]
mod svm;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::Server;
use serde_json::{Value, json};

pub const RESOURCE: &str = "crontabs.stable.example.com";
/// How long a test waits for something the server does on its own.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// The collection of default's CronTabs at `version`.
pub fn collection(version: &str) -> String {
    format!("/apis/stable.example.com/{version}/namespaces/default/crontabs")
}

/// A directory holding the CronTab CRD with `versions` (`name`, served, storage), both
/// schemas keeping any `spec`; under the server's temp dir so restarts can point at it.
pub fn crd_dir(server: &Server, name: &str, versions: &[(&str, bool, bool)]) -> PathBuf {
    write_crd(server.dir.path(), name, versions)
}

pub fn write_crd(base: &Path, name: &str, versions: &[(&str, bool, bool)]) -> PathBuf {
    let dir = base.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let schema = json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}});
    let versions: Vec<Value> = versions
        .iter()
        .map(|(v, served, storage)| {
            json!({"name": v, "served": served, "storage": storage, "schema": schema})
        })
        .collect();
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": RESOURCE},
        "spec": {"group": "stable.example.com", "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab",
                "listKind": "CronTabList"},
            "versions": versions}
    });
    std::fs::write(dir.join("crontab.json"), crd.to_string()).unwrap();
    dir
}

/// CRD flags for a restart on `dir`.
pub fn on(dir: &Path) -> Vec<String> {
    vec!["--crd-dir".into(), dir.display().to_string()]
}

/// Restarts `server` on `dir` (plus `extra` flags).
pub fn restart_on(server: Server, dir: &Path, extra: &[&str]) -> Server {
    let mut flags = on(dir);
    flags.extend(extra.iter().map(|s| s.to_string()));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    server.restart_with(&flags)
}

/// Creates `names` at `version` (201 each).
pub async fn create_at(server: &Server, version: &str, names: &[String]) {
    let c = server.client();
    for name in names {
        let body = json!({"apiVersion": format!("stable.example.com/{version}"),
            "kind": "CronTab", "metadata": {"name": name}, "spec": {"n": name}});
        let resp = c
            .post(server.url(&collection(version)))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(
            resp.status().as_u16(),
            201,
            "create {name}: {}",
            resp.text().await.unwrap()
        );
    }
}

pub fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i:02}")).collect()
}

/// `/storedversions/crontabs.stable.example.com`, read as the dev admin.
pub async fn stored(server: &Server) -> Value {
    let url = server.url(&format!("/storedversions/{RESOURCE}"));
    let resp = server.client().get(url).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    resp.json().await.unwrap()
}

/// The `objects` of [`stored`]; `None` while the cache lists (503, just after start-up).
pub async fn objects(server: &Server) -> Option<BTreeMap<String, u64>> {
    let url = server.url(&format!("/storedversions/{RESOURCE}"));
    let resp = server.client().get(url).send().await.unwrap();
    match resp.status().as_u16() {
        503 => None,
        code => {
            let body: Value = resp.json().await.unwrap();
            assert_eq!(code, 200, "{body}");
            Some(serde_json::from_value(body["objects"].clone()).unwrap())
        }
    }
}

/// The `crd_apiserver_stored_objects` series of the crontabs, by version.
pub async fn metric(server: &Server) -> BTreeMap<String, u64> {
    let text = server.metrics().await;
    let prefix = format!("crd_apiserver_stored_objects{{resource=\"{RESOURCE}\",version=\"");
    text.lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(|rest| {
            let (version, value) = rest.split_once("\"} ").unwrap();
            (version.to_string(), value.parse().unwrap())
        })
        .collect()
}

/// Waits until the endpoint and the metric both show `want` (the cache lists just after
/// the server listens, and applies a write just after it is answered).
pub async fn wait_counts(server: &Server, want: &[(&str, u64)]) {
    let want: BTreeMap<String, u64> = want.iter().map(|(v, n)| (v.to_string(), *n)).collect();
    let mut last = (None, BTreeMap::new());
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while tokio::time::Instant::now() < deadline {
        last = (objects(server).await, metric(server).await);
        if last.0.as_ref() == Some(&want) && last.1 == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("stored versions (endpoint, metric) {last:?}, want {want:?}");
}

/// `crd-apiserver migrate` against `server` with its dev kubeconfig, unthrottled, with
/// its checkpoint in the server's temp dir, plus `extra`.
pub fn migrate(server: &Server, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .arg("migrate")
        .arg("--kubeconfig")
        .arg(server.kubeconfig())
        .arg("--checkpoint")
        .arg(checkpoint(server))
        .args(["--resource", RESOURCE, "--qps", "0"])
        .args(extra)
        .output()
        .unwrap()
}

pub fn checkpoint(server: &Server) -> PathBuf {
    server.dir.path().join("migrate-checkpoint.json")
}

/// The JSON progress lines of a migrate run that succeeded.
pub fn lines(out: &Output) -> Vec<Value> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "migrate failed: {:?}\n{stderr}",
        out.status
    );
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The tally of the last line with `event`.
pub fn tally(lines: &[Value], event: &str) -> Value {
    let found = lines.iter().rev().find(|l| l["event"] == event);
    found.unwrap_or_else(|| panic!("no {event} line in {lines:?}"))["tally"].clone()
}

pub const V1: &[(&str, bool, bool)] = &[("v1", true, true), ("v2", true, false)];
pub const V2: &[(&str, bool, bool)] = &[("v1", true, false), ("v2", true, true)];

/// A server whose `n` CronTabs were stored at v1, restarted with v2 as storage version,
/// plus `extra` flags on both starts.
pub async fn stored_at_v1(n: usize, extra: &[&str]) -> (Server, tempfile::TempDir) {
    let base = tempfile::tempdir().unwrap();
    let (v1, v2) = (
        write_crd(base.path(), "v1", V1),
        write_crd(base.path(), "v2", V2),
    );
    let mut flags = on(&v1);
    flags.extend(extra.iter().map(|s| s.to_string()));
    let server = Server::start_with(&flags.iter().map(String::as_str).collect::<Vec<_>>());
    create_at(&server, "v1", &names("a", n)).await;
    wait_counts(&server, &[("v1", n as u64)]).await;
    let server = restart_on(server, &v2, extra);
    wait_counts(&server, &[("v1", n as u64)]).await;
    (server, base)
}
