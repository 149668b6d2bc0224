//! Server-side apply and managedFields compared request for request with the reference
//! apiextensions-apiserver 0.36.4: creates, updates, merge and JSON patches, applies by
//! several managers over list-map, set, atomic, granular and preserve-unknown-fields
//! fields, `/status` and `/scale` writes, two served versions, dry runs, managedFields sent
//! by clients and the 10-entry cap. The requests and the reference's answers are data
//! (tests/fixtures/managed_fields/compare.jsonl, recorded by hack/ssa-oracle/record.py
//! from hack/ssa-oracle/scenario.py); objects must be identical but for uid,
//! creationTimestamp, resourceVersion and the managedFields times (present or not).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/recorded.rs"]
mod recorded;

use common::Server;
use serde_json::{Value, json};

fn fixture(name: &str) -> std::path::PathBuf {
    common::repo_root()
        .join("tests/fixtures/managed_fields")
        .join(name)
}

/// The recorded steps of `case`, all of them when `None`.
fn steps(case: Option<&str>) -> Vec<Value> {
    let text = std::fs::read_to_string(fixture("compare.jsonl")).unwrap();
    let steps: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|s: &Value| case.is_none_or(|c| s["case"] == json!(c)))
        .collect();
    assert!(!steps.is_empty(), "no recorded steps for {case:?}");
    steps
}

/// kube's order of managedFields entries (`sortEncodedManagedFields`): operation, time in
/// seconds (none first), manager, apiVersion, subresource. RFC 3339 `Z` times of one
/// format order as their text.
fn kube_order(entry: &Value) -> [String; 5] {
    ["operation", "time", "manager", "apiVersion", "subresource"]
        .map(|k| entry[k].as_str().unwrap_or_default().to_string())
}

/// An object without what differs from server to server: uid, creationTimestamp,
/// resourceVersion, and managedFields times (kept as whether there is one). The entries
/// must come in kube's order by their own times; as those differ from run to run, they
/// are then compared in an order without times.
fn comparable(mut object: Value, diffs: &mut Vec<String>, who: &str) -> Value {
    if object["kind"] == json!("Table") {
        return comparable_table(object, diffs, who);
    }
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return object;
    };
    for volatile in ["uid", "creationTimestamp", "resourceVersion"] {
        meta.remove(volatile);
    }
    if let Some(entries) = meta.get_mut("managedFields").and_then(Value::as_array_mut) {
        let order: Vec<_> = entries.iter().map(kube_order).collect();
        if !order.is_sorted() {
            diffs.push(format!(
                "{who} managedFields not in kube's order: {order:?}"
            ));
        }
        for entry in entries.iter_mut() {
            if let Some(time) = entry.get_mut("time") {
                assert!(time.as_str().is_some_and(|t| t.ends_with('Z')), "{time}");
                *time = json!("<time>");
            }
        }
        entries.sort_by_key(kube_order);
    }
    object
}

/// A Table: its rows' objects as [`comparable`], their ages and the list's
/// resourceVersion left out.
fn comparable_table(mut table: Value, diffs: &mut Vec<String>, who: &str) -> Value {
    if let Some(meta) = table["metadata"].as_object_mut() {
        meta.remove("resourceVersion");
    }
    let age = table["columnDefinitions"]
        .as_array()
        .and_then(|columns| columns.iter().position(|c| c["name"] == json!("Age")));
    for row in table["rows"].as_array_mut().into_iter().flatten() {
        row["object"] = comparable(row["object"].take(), diffs, who);
        if let Some(cell) = age.and_then(|i| row["cells"].get_mut(i)) {
            *cell = json!("<age>");
        }
    }
    table
}

async fn send(server: &Server, step: &Value) -> (u16, Value, Vec<String>) {
    let c = server.client();
    let path = step["path"].as_str().unwrap();
    let method = step["method"].as_str().unwrap();
    let mut body = step["body"].clone();
    if method == "PUT" {
        // The recording read the resourceVersion just before each PUT.
        let object_path = path.split('?').next().unwrap();
        let object_path = object_path
            .trim_end_matches("/status")
            .trim_end_matches("/scale");
        let current = common::json_of(c.get(server.url(object_path))).await;
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"].clone();
    }
    let user_agent = step["user_agent"]
        .as_str()
        .unwrap_or("ssa-compare/v1.0.0 (linux/amd64) kubernetes/0000000");
    let accept = step["accept"].as_str().unwrap_or("application/json");
    let mut req = c
        .request(method.parse().unwrap(), server.url(path))
        .header("user-agent", user_agent)
        .header("accept", accept);
    if !body.is_null() {
        let ctype = step["ctype"].as_str().unwrap_or("application/json");
        let text = match body {
            Value::String(s) => s,
            other => other.to_string(),
        };
        req = req.header("content-type", ctype).body(text);
    }
    let resp = req.send().await.unwrap();
    let code = resp.status().as_u16();
    let warnings = resp
        .headers()
        .get_all("warning")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    (code, resp.json().await.unwrap_or(Value::Null), warnings)
}

/// What differs between our answer and the recorded one.
fn differences(step: &Value, code: u16, body: &Value, warnings: &[String]) -> Vec<String> {
    let want = &step["response"];
    if want["kind"] == json!("Status") || step["code"] != json!(code) {
        return recorded::differences(step, code, body, Some(warnings));
    }
    let mut diffs = Vec::new();
    let recorded_warnings: Vec<String> =
        serde_json::from_value(step["warnings"].clone()).unwrap_or_default();
    if recorded::sorted(warnings.to_vec()) != recorded::sorted(recorded_warnings.clone()) {
        diffs.push(format!("warnings {warnings:?}, want {recorded_warnings:?}"));
    }
    let ours = comparable(body.clone(), &mut diffs, "our");
    let theirs = comparable(want.clone(), &mut diffs, "recorded");
    json_diff("", &ours, &theirs, &mut diffs);
    diffs
}

/// Each place where `ours` and `theirs` differ, by JSON path.
fn json_diff(at: &str, ours: &Value, theirs: &Value, diffs: &mut Vec<String>) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                let (x, y) = (
                    a.get(k).unwrap_or(&Value::Null),
                    b.get(k).unwrap_or(&Value::Null),
                );
                json_diff(&format!("{at}.{k}"), x, y, diffs);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                json_diff(&format!("{at}[{i}]"), x, y, diffs);
            }
        }
        (a, b) if a != b => diffs.push(format!("{at}: {a}, want {b}")),
        _ => {}
    }
}

/// Replays `case` (every case when `None`) on a dev server serving widgets.yaml; returns
/// the number of requests and the differences found.
async fn replay(case: Option<&str>) -> (usize, Vec<String>) {
    let crds = fixture("widgets.yaml");
    let server = Server::start_with(&["--crd-dir", crds.to_str().unwrap()]);
    let steps = steps(case);
    let mut diffs = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let (code, body, warnings) = send(&server, step).await;
        for d in differences(step, code, &body, &warnings) {
            diffs.push(format!(
                "[{} step {i}] {} {}: {d}",
                step["case"], step["method"], step["path"]
            ));
        }
    }
    (steps.len(), diffs)
}

async fn assert_case(case: &str) {
    let (_, diffs) = replay(Some(case)).await;
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

macro_rules! case_tests {
    ($($case:ident)*) => {$(
        #[tokio::test]
        async fn $case() {
            assert_case(stringify!($case)).await;
        }
    )*};
}

case_tests! {
    update_managers
    apply_create_and_update
    apply_conflict_with_update_manager
    list_map_items
    set_and_atomic
    preserve_unknown_fields
    status_subresource
    scale_subresource
    apply_errors
    dry_run
    defaults_and_metadata
    managed_fields_sent_by_clients
    versions
    update_managers_cap
    ownership_transfers
    apply_options
}

#[test]
fn recording_covers_at_least_eighty_requests() {
    let steps = steps(None);
    assert!(steps.len() >= 80, "only {} recorded requests", steps.len());
}
