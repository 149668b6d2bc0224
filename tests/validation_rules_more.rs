//! CRD validation rules end to end, second part: the per-object cost budget, rules on
//! `/status` and `/scale` writes, ratcheting warnings (Warning headers), rules in embedded
//! resources, at the root and on nullable fields, and the real kubectl's output. Every
//! expected code, text and warning was recorded from the reference apiextensions-apiserver
//! 0.36.4 (tests/fixtures/validation_rules/more.jsonl over more.yaml; kubectl output by
//! running /usr/bin/kubectl against it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/recorded.rs"]
mod recorded;

use std::path::PathBuf;

use common::{Server, write_temp};
use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    common::repo_root()
        .join("tests/fixtures/validation_rules")
        .join(name)
}

/// A dev server on a copy of more.yaml (the copy is rewritten by `rewrite` steps).
fn serve() -> (Server, PathBuf) {
    let dir = tempfile::tempdir().unwrap().keep();
    let file = dir.join("more.yaml");
    std::fs::copy(fixture("more.yaml"), &file).unwrap();
    let server = Server::start_with(&["--crd-dir", file.to_str().unwrap()]);
    (server, file)
}

/// kube tightens a rule by updating the CRD; we restart on the rewritten definition.
fn rewrite(server: Server, file: &PathBuf, from: &str, to: &str) -> Server {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "{from} not in more.yaml");
    std::fs::write(file, text.replace(from, to)).unwrap();
    server.restart()
}

struct Answer {
    code: u16,
    body: Value,
    warnings: Vec<String>,
}

async fn send(server: &Server, step: &Value) -> Answer {
    let c = server.client();
    let path = step["path"].as_str().unwrap();
    let mut body = step["body"].clone();
    let method = step["method"].as_str().unwrap();
    if method == "PUT" {
        // The recording filled in the current resourceVersion just before the PUT.
        let object = path.trim_end_matches("/status").trim_end_matches("/scale");
        let current: Value = c
            .get(server.url(object))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"].clone();
    }
    let mut req = c.request(method.parse().unwrap(), server.url(path));
    if !body.is_null() {
        let ctype = step["ctype"].as_str().unwrap_or("application/json");
        req = req.header("content-type", ctype).body(body.to_string());
    }
    let resp = req.send().await.unwrap();
    let warnings = resp
        .headers()
        .get_all("warning")
        .iter()
        .map(|h| h.to_str().unwrap().to_string())
        .collect();
    let code = resp.status().as_u16();
    let body = resp.json().await.unwrap_or(Value::Null);
    Answer {
        code,
        body,
        warnings,
    }
}

/// Replays the recorded steps of `case`; returns every difference found.
async fn replay(case: &str) -> Vec<String> {
    let steps: Vec<Value> = std::fs::read_to_string(fixture("more.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|s: &Value| s["case"] == json!(case))
        .collect();
    assert!(!steps.is_empty(), "no recorded steps for {case}");
    let (mut server, file) = serve();
    let mut diffs = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        if step["op"] == json!("rewrite") {
            let (from, to) = (step["from"].as_str().unwrap(), step["to"].as_str().unwrap());
            server = rewrite(server, &file, from, to);
            continue;
        }
        let answer = send(&server, step).await;
        for d in recorded::differences(step, answer.code, &answer.body, Some(&answer.warnings)) {
            diffs.push(format!(
                "[step {i}] {} {}: {d}",
                step["method"], step["path"]
            ));
        }
    }
    diffs
}

macro_rules! case_tests {
    ($($case:ident)*) => {$(
        #[tokio::test]
        async fn $case() {
            let diffs = replay(stringify!($case)).await;
            assert!(diffs.is_empty(), "{}", diffs.join("\n"));
        }
    )*};
}

case_tests! {
    budget_shared_by_all_items_runs_out
    budget_message_expressions_run_out
    budget_message_expression_over_call_limit
    subresource_scale_runs_the_object_rules
    subresource_status_runs_status_rules_only
    subresource_writes_after_stricter_rules_warn
    ratcheting_warnings_for_unchanged_values
    embedded_resource_root_and_nullable_rules
}

// ---- The texts, spelled out -------------------------------------------------------------

#[test]
fn aggregate_prints_repeated_causes_once() {
    let cause = |t: &str| ("\"FieldValueInvalid\"".to_string(), t.to_string());
    assert_eq!(recorded::aggregate(&[cause("a: x"), cause("a: x")]), "a: x");
    assert_eq!(
        recorded::aggregate(&[cause("a: x"), cause("b: y"), cause("a: x")]),
        "[a: x, b: y]"
    );
}

#[tokio::test]
async fn budget_exhaustion_reports_the_item_where_it_ran_out() {
    let (server, _) = serve();
    let full: Vec<i64> = (0..280).collect();
    let budget = json!({"apiVersion": "rules.example.com/v1", "kind": "Budget",
        "metadata": {"name": "over"}, "spec": {"many": vec![full; 12]}});
    let status = common::json_of(
        server
            .client()
            .post(server.url("/apis/rules.example.com/v1/budgets"))
            .json(&budget),
    )
    .await;
    // Nine items' two rules fit in the 10,000,000 budget; the tenth item runs out.
    let cause = "Invalid value: \"array\": validation failed due to running out of cost budget, no further validation rules will be run";
    assert_eq!(
        status["message"],
        format!("Budget.rules.example.com \"over\" is invalid: spec.many[9]: {cause}")
    );
    assert_eq!(
        status["details"]["causes"],
        json!([{"reason": "FieldValueInvalid", "field": "spec.many[9]", "message": cause}])
    );
}

#[tokio::test]
async fn ratcheted_failure_is_a_warning_header_with_go_quoting() {
    let (server, file) = serve();
    let c = server.client();
    let warn = json!({"apiVersion": "rules.example.com/v1", "kind": "Warn",
        "metadata": {"name": "w"}, "spec": {"name": "abc"}});
    let resp = c
        .post(server.url("/apis/rules.example.com/v1/warns"))
        .json(&warn)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 201);
    let server = rewrite(server, &file, "startsWith(\"a\")", "startsWith(\"b\")");
    let resp = server
        .client()
        .patch(server.url("/apis/rules.example.com/v1/warns/w"))
        .header("content-type", "application/merge-patch+json")
        .body(r#"{"metadata": {"labels": {"a": "b"}}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let warnings: Vec<&str> = resp
        .headers()
        .get_all("warning")
        .iter()
        .map(|h| h.to_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        [r#"299 - "spec.name: Invalid value: \"abc\": failed rule: self.startsWith(\"b\")""#]
    );
}

// ---- kubectl ------------------------------------------------------------------------------

fn manifest(name: &str, labels: &str, spec: &str) -> String {
    format!(
        "apiVersion: rules.example.com/v1\nkind: Warn\nmetadata:\n  name: {name}\n  labels: {{{labels}}}\nspec: {{{spec}}}\n"
    )
}

/// Runs kubectl (client-side validation off: the reference serves no CRD OpenAPI, so it
/// was recorded that way) and compares exit code, stdout and stderr.
fn expect_kubectl(server: &Server, args: &[&str], want: (i32, &str, &str)) {
    let mut all = args.to_vec();
    if matches!(args[0], "apply" | "create" | "replace") {
        all.insert(1, "--validate=false");
    }
    let out = server.kubectl(&all);
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    let got = (out.status.code(), text(&out.stdout), text(&out.stderr));
    let want = (Some(want.0), want.1.to_string(), want.2.to_string());
    assert_eq!(got, want, "kubectl {all:?}");
}

fn path(file: &std::path::Path) -> &str {
    file.to_str().unwrap()
}

#[tokio::test]
async fn kubectl_apply_invalid_object_prints_kube_error() {
    let (server, _) = serve();
    let invalid = write_temp(&server, "one.yaml", &manifest("k-one", "", "level: 12"));
    let error = "The Warn \"k-one\" is invalid: spec.level: Invalid value: 12: level below 10\n";
    for args in [
        &["apply", "-f", path(&invalid)][..],
        &["apply", "--dry-run=server", "-f", path(&invalid)],
        &["create", "-f", path(&invalid)],
    ] {
        expect_kubectl(&server, args, (1, "", error));
    }
    let valid = write_temp(&server, "ok.yaml", &manifest("k-ok", "", "level: 3"));
    let created = "warn.rules.example.com/k-ok created (server dry run)\n";
    expect_kubectl(
        &server,
        &["apply", "--dry-run=server", "-f", path(&valid)],
        (0, created, ""),
    );
    expect_kubectl(&server, &["get", "warns", "-o", "name"], (0, "", ""));
    let created = "warn.rules.example.com/k-ok created\n";
    expect_kubectl(&server, &["apply", "-f", path(&valid)], (0, created, ""));
    let update = write_temp(&server, "bad.yaml", &manifest("k-ok", "", "level: 11"));
    let error = "The Warn \"k-ok\" is invalid: spec.level: Invalid value: 11: level below 10\n";
    for args in [
        &["apply", "-f", path(&update)][..],
        &["apply", "--dry-run=server", "-f", path(&update)],
        &["replace", "-f", path(&update)],
    ] {
        expect_kubectl(&server, args, (1, "", error));
    }
}

#[tokio::test]
async fn kubectl_apply_invalid_object_lists_each_cause() {
    let (server, _) = serve();
    let file = write_temp(
        &server,
        "two.yaml",
        &manifest("k-two", "", "level: 12, name: zzz"),
    );
    let out = server.kubectl(&["--validate=false", "apply", "-f", path(&file)]);
    assert_eq!(
        (out.status.code(), out.stdout.as_slice()),
        (Some(1), &b""[..])
    );
    // Causes of different properties come in Go map order in kube: either order.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let level = "* spec.level: Invalid value: 12: level below 10\n";
    let name = "* spec.name: Invalid value: \"zzz\": failed rule: self.startsWith(\"a\")\n";
    let head = "The Warn \"k-two\" is invalid: \n";
    assert!(
        stderr == format!("{head}{level}{name}") || stderr == format!("{head}{name}{level}"),
        "{stderr:?}"
    );
}

#[tokio::test]
async fn kubectl_apply_prints_ratcheting_warnings() {
    let (server, file) = serve();
    let valid = write_temp(&server, "ok.yaml", &manifest("k-ok", "", "level: 3"));
    server.kubectl_ok(&["apply", "--validate=false", "-f", path(&valid)]);
    let server = rewrite(server, &file, "self < 10", "self < 2");
    let labelled = write_temp(&server, "label.yaml", &manifest("k-ok", "a: b", "level: 3"));
    let warning = "Warning: spec.level: Invalid value: 3: level below 10\n";
    let configured = "warn.rules.example.com/k-ok configured\n";
    expect_kubectl(
        &server,
        &["apply", "-f", path(&labelled)],
        (0, configured, warning),
    );
    let dry_run = "warn.rules.example.com/k-ok configured (server dry run)\n";
    let args = ["apply", "--dry-run=server", "-f", path(&valid)];
    expect_kubectl(&server, &args, (0, dry_run, warning));
}

#[tokio::test]
async fn kubectl_server_side_apply_invalid_object_prints_kube_error() {
    let (server, _) = serve();
    let invalid = write_temp(&server, "one.yaml", &manifest("k-one", "", "level: 12"));
    let error = "The Warn \"k-one\" is invalid: spec.level: Invalid value: 12: level below 10\n";
    for args in [
        &["apply", "--server-side", "-f", path(&invalid)][..],
        &[
            "apply",
            "--server-side",
            "--dry-run=server",
            "-f",
            path(&invalid),
        ],
    ] {
        expect_kubectl(&server, args, (1, "", error));
    }
}

#[tokio::test]
async fn kubectl_server_side_apply_prints_ratcheting_warnings() {
    let (server, file) = serve();
    let valid = write_temp(&server, "ok.yaml", &manifest("k-ok", "", "level: 3"));
    server.kubectl_ok(&["apply", "--validate=false", "-f", path(&valid)]);
    let server = rewrite(server, &file, "self < 10", "self < 2");
    let args = [
        "apply",
        "--server-side",
        "--force-conflicts",
        "-f",
        path(&valid),
    ];
    let applied = "warn.rules.example.com/k-ok serverside-applied\n";
    let warning = "Warning: spec.level: Invalid value: 3: level below 10\n";
    expect_kubectl(&server, &args, (0, applied, warning));
}
