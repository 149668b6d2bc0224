//! managedFields on every write over HTTPS: create, update, patch, `/status` and `/scale`
//! by several managers record kube's `Update` entries; `[{}]` clears them; the 10-entry
//! cap; `fieldManager` validated as kube validates it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/managed.rs"]
mod managed;

use common::Server;
use managed::{CT, apply_patch, merge_patch, send};
use serde_json::{Value, json};

fn crontab(name: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
           "metadata": {"name": name}, "spec": {"cronSpec": "* * * * */5", "replicas": 1}})
}

/// The entry of `manager`, without its time (checked to be an RFC 3339 instant).
fn entry(object: &Value, manager: &str) -> Value {
    let found = entry_with_time(object, manager);
    let time = found["time"].as_str().unwrap_or_default().to_string();
    assert!(time.ends_with('Z') && time.len() == 20, "time {time:?}");
    let mut found = found;
    found.as_object_mut().unwrap().remove("time");
    found
}

/// The entry of `manager` as it is.
fn entry_with_time(object: &Value, manager: &str) -> Value {
    let entries = object["metadata"]["managedFields"]
        .as_array()
        .unwrap_or_else(|| panic!("no managedFields: {object}"));
    entries
        .iter()
        .find(|e| e["manager"] == manager)
        .unwrap_or_else(|| panic!("no entry of {manager}: {object}"))
        .clone()
}

fn managers(object: &Value) -> Vec<String> {
    let mut names: Vec<String> = object["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| e["manager"].as_str().unwrap_or_default().to_string())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn writes_by_several_managers_record_kube_entries() {
    let server = Server::start();
    let c = server.client();
    let (code, o) = send(
        c.post(server.url(&format!("{CT}?fieldManager=alice")))
            .json(&crontab("a")),
    )
    .await;
    assert_eq!(code, 201, "{o}");
    assert_eq!(
        entry(&o, "alice"),
        json!({"manager": "alice", "operation": "Update", "apiVersion": "stable.example.com/v1",
               "fieldsType": "FieldsV1",
               "fieldsV1": {"f:spec": {".": {}, "f:cronSpec": {}, "f:replicas": {}}}})
    );
    let url = server.url(&format!("{CT}/a"));
    // A second manager takes over the field it changes.
    let (code, o) = send(merge_patch(
        &c,
        format!("{url}?fieldManager=bob"),
        json!({"spec": {"replicas": 2}}),
    ))
    .await;
    assert_eq!(code, 200, "{o}");
    assert_eq!(
        entry(&o, "alice")["fieldsV1"],
        json!({"f:spec": {".": {}, "f:cronSpec": {}}})
    );
    assert_eq!(
        entry(&o, "bob"),
        json!({"manager": "bob", "operation": "Update", "apiVersion": "stable.example.com/v1",
               "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}})
    );
    // Subresource writes name their subresource.
    let (code, o) = send(merge_patch(
        &c,
        format!("{url}/status?fieldManager=carol"),
        json!({"status": {"replicas": 3}}),
    ))
    .await;
    assert_eq!(code, 200, "{o}");
    assert_eq!(
        entry(&o, "carol"),
        json!({"manager": "carol", "operation": "Update", "apiVersion": "stable.example.com/v1",
               "fieldsType": "FieldsV1", "subresource": "status",
               "fieldsV1": {"f:status": {".": {}, "f:replicas": {}}}})
    );
    let (code, scale) = send(merge_patch(
        &c,
        format!("{url}/scale?fieldManager=dave"),
        json!({"spec": {"replicas": 4}}),
    ))
    .await;
    assert_eq!(code, 200, "{scale}");
    let (_, o) = send(c.get(url.clone())).await;
    // kube's scale handler gives a manager new to the object no time.
    assert_eq!(
        entry_with_time(&o, "dave"),
        json!({"manager": "dave", "operation": "Update", "apiVersion": "stable.example.com/v1",
               "fieldsType": "FieldsV1", "subresource": "scale",
               "fieldsV1": {"f:spec": {"f:replicas": {}}}})
    );
    assert_eq!(managers(&o), ["alice", "carol", "dave"], "{o}");
}

#[tokio::test]
async fn manager_from_user_agent_prefix_when_no_field_manager() {
    let server = Server::start();
    let c = server.client();
    let (code, o) = send(
        c.post(server.url(CT))
            .header("user-agent", "my-controller/v1.2.3 (linux/amd64)")
            .json(&crontab("a")),
    )
    .await;
    assert_eq!(code, 201, "{o}");
    assert_eq!(managers(&o), ["my-controller"]);
}

#[tokio::test]
async fn managed_fields_empty_item_clears_them() {
    let server = Server::start();
    let c = server.client();
    let (_, mut o) = send(
        c.post(server.url(&format!("{CT}?fieldManager=alice")))
            .json(&crontab("a")),
    )
    .await;
    assert_eq!(managers(&o), ["alice"]);
    o["metadata"]["managedFields"] = json!([{}]);
    o["spec"]["replicas"] = json!(5);
    let url = server.url(&format!("{CT}/a?fieldManager=bob"));
    let (code, o) = send(c.put(url.clone()).json(&o)).await;
    assert_eq!(code, 200, "{o}");
    assert!(o["metadata"].get("managedFields").is_none(), "{o}");
    assert_eq!(o["spec"]["replicas"], 5);
    // An object without managedFields stays untracked by updates.
    let (_, o) = send(merge_patch(&c, url, json!({"spec": {"replicas": 6}}))).await;
    assert!(o["metadata"].get("managedFields").is_none(), "{o}");
}

#[tokio::test]
async fn update_entries_past_ten_merge_into_ancient_changes() {
    let server = Server::start();
    let c = server.client();
    send(
        c.post(server.url(&format!("{CT}?fieldManager=m0")))
            .json(&crontab("a")),
    )
    .await;
    let mut last = Value::Null;
    for i in 1..=11 {
        let url = server.url(&format!("{CT}/a?fieldManager=m{i}"));
        let labels = json!({"metadata": {"labels": {format!("l{i}"): "x"}}});
        let (code, o) = send(merge_patch(&c, url, labels)).await;
        assert_eq!(code, 200, "{o}");
        last = o;
    }
    let names = managers(&last);
    assert_eq!(names.len(), 10, "{names:?}");
    assert!(names.contains(&"ancient-changes".to_string()), "{names:?}");
    assert!(names.contains(&"m11".to_string()), "{names:?}");
}

#[tokio::test]
async fn field_manager_invalid_answers_kube_422() {
    let server = Server::start();
    let c = server.client();
    let long = "x".repeat(129);
    let (code, body) = send(
        c.post(server.url(&format!("{CT}?fieldManager={long}")))
            .json(&crontab("a")),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more than 128 bytes"
    );
    assert_eq!(body["details"]["causes"][0]["reason"], "FieldValueTooLong");
    let url = server.url(&format!("{CT}/a?fieldManager=a%07b"));
    let (code, body) = send(merge_patch(&c, url, json!({"spec": {}}))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["details"]["causes"][0]["message"],
        "Invalid value: \"a\\ab\": invalid character U+0007 (at position 1)"
    );
    assert_eq!(body["details"]["kind"], "PatchOptions");
}

const APPLIED: &str = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: a\nspec:\n  cronSpec: '* * * * */5'\n  replicas: 1\n";

#[tokio::test]
async fn apply_creates_updates_and_conflicts_as_kube() {
    let server = Server::start();
    let c = server.client();
    let url = server.url(&format!("{CT}/a"));
    let (code, body) = send(apply_patch(&c, url.clone(), APPLIED)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
    );
    let (code, body) = send(merge_patch(&c, format!("{url}?force=true"), json!({}))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch"
    );
    let (code, o) = send(apply_patch(
        &c,
        format!("{url}?fieldManager=alice"),
        APPLIED,
    ))
    .await;
    assert_eq!(code, 201, "{o}");
    assert_eq!(
        entry(&o, "alice"),
        json!({"manager": "alice", "operation": "Apply", "apiVersion": "stable.example.com/v1",
               "fieldsType": "FieldsV1",
               "fieldsV1": {"f:spec": {"f:cronSpec": {}, "f:replicas": {}}}})
    );
    let other = APPLIED.replace("replicas: 1", "replicas: 2");
    let (code, body) = send(apply_patch(&c, format!("{url}?fieldManager=bob"), &other)).await;
    assert_eq!(code, 409, "{body}");
    assert_eq!(body["reason"], "Conflict");
    assert_eq!(
        body["message"],
        "Apply failed with 1 conflict: conflict with \"alice\": .spec.replicas"
    );
    assert_eq!(
        body["details"],
        json!({"causes": [{"reason": "FieldManagerConflict",
                           "message": "conflict with \"alice\"", "field": ".spec.replicas"}]})
    );
    let forced = format!("{url}?fieldManager=bob&force=true");
    let (code, o) = send(apply_patch(&c, forced, &other)).await;
    assert_eq!(code, 200, "{o}");
    assert_eq!(o["spec"]["replicas"], 2);
    assert_eq!(
        entry(&o, "alice")["fieldsV1"],
        json!({"f:spec": {"f:cronSpec": {}}})
    );
    // A field another applier still applies stays; dropped by its last applier, it goes.
    let dropped = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: a\nspec:\n  replicas: 2\n";
    let (code, o) = send(apply_patch(
        &c,
        format!("{url}?fieldManager=alice"),
        dropped,
    ))
    .await;
    assert_eq!(code, 200, "{o}");
    assert_eq!(o["spec"]["cronSpec"], "* * * * */5", "{o}");
    let (code, o) = send(apply_patch(&c, format!("{url}?fieldManager=bob"), dropped)).await;
    assert_eq!(code, 200, "{o}");
    assert!(o["spec"].get("cronSpec").is_none(), "{o}");
    // A dry run answers the merge and stores nothing.
    let seven = dropped.replace("replicas: 2", "replicas: 7");
    let dry = format!("{url}?fieldManager=carol&force=true&dryRun=All");
    let (code, o) = send(apply_patch(&c, dry, &seven)).await;
    assert_eq!(code, 200, "{o}");
    assert_eq!(o["spec"]["replicas"], 7);
    let (_, stored) = send(c.get(url)).await;
    assert_eq!(stored["spec"]["replicas"], 2);
}

fn kubectl(server: &Server, args: &[&str]) -> (i32, String, String) {
    let out = server.kubectl(args);
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

#[test]
fn kubectl_server_side_apply_create_update_conflict_force() {
    let server = Server::start();
    let first = common::write_temp(&server, "a.yaml", APPLIED);
    let first = first.to_str().unwrap();
    let created = kubectl(&server, &["apply", "--server-side", "-f", first]);
    assert_eq!(
        created,
        (
            0,
            "crontab.stable.example.com/a serverside-applied\n".into(),
            String::new()
        )
    );
    let again = common::write_temp(
        &server,
        "b.yaml",
        &APPLIED.replace("replicas: 1", "replicas: 3"),
    );
    let again = again.to_str().unwrap();
    let updated = kubectl(&server, &["apply", "--server-side", "-f", again]);
    assert_eq!(updated.0, 0, "{updated:?}");
    let other = common::write_temp(
        &server,
        "c.yaml",
        &APPLIED.replace("replicas: 1", "replicas: 4"),
    );
    let other = other.to_str().unwrap();
    let (code, _, stderr) = kubectl(
        &server,
        &["apply", "--server-side", "--field-manager=ops", "-f", other],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.starts_with(
            "error: Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas\n"
        ),
        "{stderr}"
    );
    let forced = kubectl(
        &server,
        &[
            "apply",
            "--server-side",
            "--field-manager=ops",
            "--force-conflicts",
            "-f",
            other,
        ],
    );
    assert_eq!(forced.0, 0, "{forced:?}");
    let yaml = server.kubectl_ok(&["get", "ct", "a", "-o", "yaml", "--show-managed-fields"]);
    assert!(
        yaml.contains("manager: ops") && yaml.contains("operation: Apply"),
        "{yaml}"
    );
    assert!(yaml.contains("replicas: 4"), "{yaml}");
    let hidden = server.kubectl_ok(&["get", "ct", "a", "-o", "yaml"]);
    assert!(!hidden.contains("managedFields"), "{hidden}");
}

/// Six managers apply their own label to a missing object at once, six rounds of six:
/// every apply succeeds (an apply whose create loses the race is applied again as an
/// update, as kube's storage retries it) and the object ends with every manager's label,
/// each owned by its manager.
#[tokio::test]
async fn concurrent_apply_creates_all_succeed_with_every_manager_owning_its_label() {
    let server = Server::start();
    for round in 0..6 {
        let name = format!("race-{round}");
        let applies = (0..6).map(|m| {
            let client = server.client();
            let url = server.url(&format!("{CT}/{name}?fieldManager=m{m}"));
            let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                "metadata": {"name": name, "labels": {format!("l{m}"): "v"}}});
            async move { send(apply_patch(&client, url, &body.to_string())).await }
        });
        let answers = futures::future::join_all(applies).await;
        let created = answers.iter().filter(|(code, _)| *code == 201).count();
        for (code, body) in &answers {
            assert!(matches!(code, 200 | 201), "round {round}: {code} {body}");
        }
        assert_eq!(created, 1, "round {round}: one apply created the object");
        let (_, stored) = send(server.client().get(server.url(&format!("{CT}/{name}")))).await;
        for m in 0..6 {
            assert_eq!(
                stored["metadata"]["labels"][format!("l{m}")],
                "v",
                "round {round}: {stored}"
            );
            let owned = entry(&stored, &format!("m{m}"));
            assert_eq!(owned["operation"], "Apply");
            assert_eq!(
                owned["fieldsV1"],
                json!({"f:metadata": {"f:labels": {format!("f:l{m}"): {}}}}),
                "round {round}"
            );
        }
    }
}
