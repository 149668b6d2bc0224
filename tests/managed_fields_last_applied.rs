//! The server's side of kubectl's client-side → server-side apply migration over raw
//! HTTPS: kube's lastAppliedManager (the `kubectl` applier may take over the fields of
//! `kubectl-client-side-apply` whose live value still is the last-applied one) and
//! lastAppliedUpdater (the last-applied annotation rewritten by kubectl's applies only).
//! Every expected answer here is the one the reference apiextensions-apiserver 0.36.4
//! gave to the same requests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/managed.rs"]
mod managed;

use common::Server;
use managed::{
    CRON, CSA, CT, GV, LAST_APPLIED, apply_patch, config, csa_created, entries, last_applied,
    last_applied_text, merge_patch, send, spec_fields, stored,
};
use serde_json::{Value, json};

/// A client-side apply create as kubectl sends it (manager `kubectl-client-side-apply`,
/// the annotation `last_applied`).
async fn csa_create(server: &Server, name: &str, last_applied: &str) {
    let mut body = config(name, json!({"cronSpec": CRON, "replicas": 1}));
    body["metadata"]["namespace"] = json!("default");
    body["metadata"]["annotations"] = json!({LAST_APPLIED: last_applied});
    let url = server.url(&format!("{CT}?fieldManager={CSA}"));
    let (code, o) = send(server.client().post(url).json(&body)).await;
    assert_eq!(code, 201, "{o}");
}

/// A server-side apply of `body` (YAML or JSON) by `manager`; `query` adds parameters.
async fn ssa(server: &Server, name: &str, manager: &str, query: &str, body: &str) -> (u16, Value) {
    let url = server.url(&format!("{CT}/{name}?fieldManager={manager}{query}"));
    send(apply_patch(&server.client(), url, body)).await
}

/// A server-side apply by `manager` of kubectl's body: the manifest with its namespace.
async fn ssa_spec(
    server: &Server,
    name: &str,
    manager: &str,
    cron: &str,
    replicas: i64,
) -> (u16, Value) {
    let mut body = config(name, json!({"cronSpec": cron, "replicas": replicas}));
    body["metadata"]["namespace"] = json!("default");
    ssa(server, name, manager, "", &body.to_string()).await
}

async fn merge_spec(server: &Server, name: &str, manager: &str, spec: Value) {
    let url = server.url(&format!("{CT}/{name}?fieldManager={manager}"));
    let (code, o) = send(merge_patch(&server.client(), url, json!({"spec": spec}))).await;
    assert_eq!(code, 200, "{o}");
}

/// A 409 for the one field `path` owned by kubectl-client-side-apply.
fn assert_csa_conflict((code, status): (u16, Value), path: &str) {
    let message =
        format!("Apply failed with 1 conflict: conflict with \"{CSA}\" using {GV}: {path}");
    assert_eq!(
        (code, status["message"].as_str()),
        (409, Some(message.as_str())),
        "{status}"
    );
}

/// lastAppliedManager: the `kubectl` applier may take over, by path, the conflicting
/// fields whose live value still is the last-applied one; other conflicts stand.
#[tokio::test]
async fn kubectl_applier_takes_over_only_fields_last_applied_still_holds() {
    let server = Server::start();
    let both = spec_fields(&["cronSpec", "replicas"]);

    // The live value no longer matches the annotation: the conflict stands.
    csa_create(&server, "b", &last_applied_text("b", 1, true)).await;
    merge_spec(&server, "b", CSA, json!({"replicas": 7})).await;
    let answer = ssa_spec(&server, "b", "kubectl", CRON, 2).await;
    assert_csa_conflict(answer, ".spec.replicas");
    let (code, o) = ssa_spec(&server, "b", "kubectl", CRON, 7).await;
    assert_eq!(code, 200, "{o}");
    assert_eq!(last_applied(&o), &last_applied_text("b", 7, false));
    // The merge left the fields as they were, so the new entry gets no time (kube's rule).
    assert_eq!(
        entries(&o),
        json!([["kubectl", "Apply", false, both], csa_created()])
    );

    // By path: another manager's field is taken over when its value is the last-applied one.
    csa_create(&server, "h", &last_applied_text("h", 1, true)).await;
    merge_spec(&server, "h", "ops", json!({"replicas": 5})).await;
    merge_spec(&server, "h", "ops", json!({"replicas": 1})).await;
    let (code, o) = ssa_spec(&server, "h", "kubectl", CRON, 2).await;
    assert_eq!(code, 200, "{o}");
    let mut csa_rest = csa_created();
    csa_rest[3]["f:spec"] = json!({".": {}, "f:cronSpec": {}});
    assert_eq!(
        entries(&o),
        json!([["kubectl", "Apply", true, both], csa_rest])
    );

    // Only the conflicts outside the allowed set are reported.
    csa_create(&server, "j", &last_applied_text("j", 1, true)).await;
    merge_spec(&server, "j", CSA, json!({"cronSpec": "0 * * * *"})).await;
    let answer = ssa_spec(&server, "j", "kubectl", "1 * * * *", 2).await;
    assert_csa_conflict(answer, ".spec.cronSpec");

    // An annotation that is not a configuration of this version forgives nothing, and is
    // still rewritten by the next successful apply.
    let v2 = last_applied_text("e2", 1, true).replace("/v1", "/v2");
    for (name, annotation) in [("e", "{not json"), ("e2", &v2)] {
        csa_create(&server, name, annotation).await;
        let answer = ssa_spec(&server, name, "kubectl", CRON, 2).await;
        assert_csa_conflict(answer, ".spec.replicas");
    }
    let (code, o) = ssa_spec(&server, "e", "kubectl", CRON, 1).await;
    assert_eq!(code, 200, "{o}");
    assert_eq!(last_applied(&o), &last_applied_text("e", 1, false));

    // A dry run of the migration stores nothing.
    csa_create(&server, "f", &last_applied_text("f", 1, true)).await;
    let mut body = config("f", json!({"cronSpec": CRON, "replicas": 2}));
    body["metadata"]["namespace"] = json!("default");
    let (code, o) = ssa(&server, "f", "kubectl", "&dryRun=All", &body.to_string()).await;
    assert_eq!((code, &o["spec"]["replicas"]), (200, &json!(2)), "{o}");
    let expected = json!([1, last_applied_text("f", 1, true), [csa_created()]]);
    assert_eq!(stored(&server, "f").await, expected);
}

/// lastAppliedUpdater: only the `kubectl` applier's applies rewrite an existing
/// annotation, as Go's JSON of the applied YAML; none is added, and one that would push
/// the annotations past 256 KiB is dropped.
#[tokio::test]
async fn last_applied_annotation_follows_kubectl_applies_only() {
    let server = Server::start();
    let original = last_applied_text("c", 1, true);
    csa_create(&server, "c", &original).await;
    let answer = ssa_spec(&server, "c", "other", CRON, 2).await;
    assert_csa_conflict(answer, ".spec.replicas");
    let (code, o) = ssa_spec(&server, "c", "other", CRON, 1).await;
    assert_eq!(code, 200, "{o}");
    assert_eq!(last_applied(&o), &original);

    let (code, o) = ssa_spec(&server, "d", "kubectl", CRON, 1).await;
    assert_eq!(code, 201, "{o}");
    let (_, o) = ssa_spec(&server, "d", "kubectl", CRON, 2).await;
    assert!(o["metadata"].get("annotations").is_none(), "{o}");

    // Sorted keys, HTML-safe escapes, U+2028 escaped, no YAML comment; the applied
    // configuration's own last-applied annotation is left out, its others kept.
    let yaml = format!(
        "# comment\nkind: CronTab\napiVersion: {GV}\nmetadata:\n  name: c\n  labels: {{b: \"2\", a: \"1\"}}\n  annotations: {{{LAST_APPLIED}: x, keep: \"y\"}}\nspec:\n  replicas: 5\n  cronSpec: \"<&> \\u2028 é\"\n"
    );
    let (code, o) = ssa(&server, "c", "kubectl", "&force=true", &yaml).await;
    assert_eq!(code, 200, "{o}");
    let expected = format!(
        "{{\"apiVersion\":\"{GV}\",\"kind\":\"CronTab\",\"metadata\":{{\"annotations\":{{\"keep\":\"y\"}},\"labels\":{{\"a\":\"1\",\"b\":\"2\"}},\"name\":\"c\"}},\"spec\":{{\"cronSpec\":\"\\u003c\\u0026\\u003e \\u2028 é\",\"replicas\":5}}}}\n"
    );
    assert_eq!(last_applied(&o), &expected);
    assert_eq!(o["metadata"]["annotations"]["keep"], "y");

    csa_create(&server, "i", &last_applied_text("i", 1, true)).await;
    let mut big = config("i", json!({"cronSpec": CRON, "replicas": 1}));
    big["metadata"]["annotations"] = json!({"big": "x".repeat(150 * 1024)});
    let (code, o) = ssa(&server, "i", "kubectl", "", &big.to_string()).await;
    assert_eq!(code, 200, "{o}");
    let annotations = o["metadata"]["annotations"]
        .as_object()
        .expect("annotations");
    assert_eq!(annotations.keys().collect::<Vec<_>>(), ["big"]);
}

/// A last-applied configuration of another served version forgives nothing (kube compares
/// it at the request's version), nor does it cover fields defaulting filled in.
#[tokio::test]
async fn kubectl_applier_migration_needs_request_version_and_applied_fields() {
    let server = Server::start();
    let c = server.client();
    let widget = |version: &str, name: &str, spec: Value, annotations: Option<Value>| {
        let mut o = json!({"apiVersion": format!("example.org/{version}"), "kind": "Widget",
                           "metadata": {"name": name}, "spec": spec});
        if let Some(annotations) = annotations {
            o["metadata"]["annotations"] = annotations;
        }
        o
    };
    let create = |version: &str, name: &str, spec: Value| {
        let last = widget(version, name, spec.clone(), Some(json!({})));
        let last = format!("{}\n", serde_json::to_string(&last).expect("JSON"));
        let body = widget(version, name, spec, Some(json!({LAST_APPLIED: last})));
        let url = server.url(&format!(
            "/apis/example.org/{version}/widgets?fieldManager={CSA}"
        ));
        send(c.post(url).json(&body))
    };
    let apply = |version: &str, name: &str, spec: Value| {
        let url = server.url(&format!(
            "/apis/example.org/{version}/widgets/{name}?fieldManager=kubectl"
        ));
        let body = widget(version, name, spec, None).to_string();
        send(apply_patch(&c, url, &body))
    };
    let conflict = |version: &str, path: &str| {
        let owner = format!("conflict with \"{CSA}\" using example.org/{version}");
        Some(format!("Apply failed with 1 conflict: {owner}: {path}"))
    };
    let message = |(code, o): (u16, Value)| (code, o["message"].as_str().map(str::to_string));

    assert_eq!(
        create("v1beta1", "w", json!({"size": 1, "color": "red"}))
            .await
            .0,
        201
    );
    let answer = message(apply("v1", "w", json!({"size": 2, "color": "red"})).await);
    assert_eq!(answer, (409, conflict("v1beta1", ".spec.size")));
    let (code, o) = apply("v1beta1", "w", json!({"size": 2, "color": "red"})).await;
    assert_eq!((code, &o["spec"]["size"]), (200, &json!(2)), "{o}");

    // `color` was defaulted, not applied: client-side apply owns it, kubectl may not take it.
    assert_eq!(create("v1", "x", json!({"size": 1})).await.0, 201);
    let answer = message(apply("v1", "x", json!({"size": 1, "color": "green"})).await);
    assert_eq!(answer, (409, conflict("v1", ".spec.color")));
    let (code, o) = apply("v1", "x", json!({"size": 3})).await;
    assert_eq!(
        (code, &o["spec"]),
        (200, &json!({"size": 3, "color": "blue"})),
        "{o}"
    );
}
