//! managedFields through `/scale` updates and patches over HTTPS, against answers
//! recorded from the reference apiextensions-apiserver (a copy of the CronTab CRD in
//! another group): PUT, merge and JSON patches run the Scale's field manager, and the
//! Scale's managers own the object's `.spec.replicas` (entries without `time`). Server-side
//! apply to `/scale` is tests/managed_fields_scale_apply.rs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/managed.rs"]
mod managed;

use common::Server;
use managed::{JSON_PATCH, MERGE, ScaleClient, entry, replicas_fields, send, status};
use serde_json::{Value, json};

/// The creator's entry once the Scale's managers hold the replicas.
fn alice_cron_spec() -> Value {
    entry(
        "alice",
        "Update",
        json!({"f:spec": {".": {}, "f:cronSpec": {}}}),
        "",
    )
}

/// A Scale's name, spec and status.
fn scale_parts(o: &Value) -> (&Value, &Value, &Value) {
    (&o["metadata"]["name"], &o["spec"], &o["status"])
}

#[tokio::test]
async fn scale_update_and_patches_move_replicas_to_scale_manager() {
    let server = Server::start();
    let api = ScaleClient::new(&server);
    api.create(
        "alice",
        "a",
        json!({"cronSpec": "* * * * */5", "replicas": 1}),
    )
    .await;
    let (code, s) = api
        .put_scale("a", "fieldManager=dave", json!({"replicas": 2}))
        .await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(
        scale_parts(&s),
        (
            &json!("a"),
            &json!({"replicas": 2}),
            &json!({"replicas": 0})
        )
    );
    assert!(s["metadata"].get("managedFields").is_none(), "{s}");
    let dave = entry("dave", "Update", replicas_fields(), "scale");
    assert_eq!(
        api.managed("a").await,
        (json!([dave, alice_cron_spec()]), vec!["alice".into()])
    );

    let (code, s) = api
        .patch(
            "a/scale?fieldManager=erin",
            MERGE,
            json!({"spec": {"replicas": 3}}),
        )
        .await;
    assert_eq!((code, &s["spec"]), (200, &json!({"replicas": 3})), "{s}");
    let erin = entry("erin", "Update", replicas_fields(), "scale");
    assert_eq!(api.managed("a").await.0, json!([erin, alice_cron_spec()]));

    // JSON patches see the Scale's managedFields (the object's, converted).
    let ops = json!([{"op": "test", "path": "/metadata/managedFields/0/manager", "value": "erin"},
                     {"op": "test", "path": "/metadata/managedFields/0/apiVersion", "value": "autoscaling/v1"},
                     {"op": "replace", "path": "/spec/replicas", "value": 4}]);
    let (code, s) = api
        .patch("a/scale?fieldManager=fred", JSON_PATCH, ops)
        .await;
    assert_eq!((code, &s["spec"]), (200, &json!({"replicas": 4})), "{s}");
    let fred = entry("fred", "Update", replicas_fields(), "scale");
    assert_eq!(api.managed("a").await.0, json!([fred, alice_cron_spec()]));
    let ops = json!([{"op": "test", "path": "/metadata/managedFields", "value": []}]);
    let (code, s) = api
        .patch("a/scale?fieldManager=fred", JSON_PATCH, ops)
        .await;
    assert_eq!(code, 422, "{s}");

    // Dry run answers the Scale and writes nothing.
    let (code, s) = api
        .put_scale("a", "fieldManager=dave&dryRun=All", json!({"replicas": 7}))
        .await;
    assert_eq!((code, &s["spec"]), (200, &json!({"replicas": 7})), "{s}");
    assert_eq!(api.managed("a").await.0, json!([fred, alice_cron_spec()]));

    // Zero replicas are omitted from the Scale: nobody owns them afterwards.
    let (code, s) = api
        .put_scale("a", "fieldManager=zed", json!({"replicas": 0}))
        .await;
    assert_eq!((code, &s["spec"]), (200, &json!({})), "{s}");
    let (code, s) = api.get("a/scale").await;
    assert_eq!((code, &s["spec"]), (200, &json!({})), "{s}");
    assert_eq!(api.managed("a").await.0, json!([alice_cron_spec()]));
}

#[tokio::test]
async fn scale_request_managed_fields_are_ignored() {
    let server = Server::start();
    let api = ScaleClient::new(&server);
    api.create("alice", "a", json!({"replicas": 2})).await;
    let patch = json!({"metadata": {"managedFields": [{}]}, "spec": {"replicas": 9}});
    let (code, s) = api.patch("a/scale?fieldManager=erin", MERGE, patch).await;
    assert_eq!(code, 200, "{s}");
    let erin = entry("erin", "Update", replicas_fields(), "scale");
    let alice = entry("alice", "Update", json!({"f:spec": {}}), "");
    assert_eq!(api.managed("a").await.0, json!([erin, alice]));
}

#[tokio::test]
async fn scale_object_without_replicas_cannot_leave_them_empty() {
    let server = Server::start();
    let api = ScaleClient::new(&server);
    api.create("alice", "d", json!({"cronSpec": "x"})).await;
    let (code, s) = api.get("d/scale").await;
    assert_eq!(
        status(&s),
        (
            500,
            "InternalError",
            "Internal error occurred: the spec replicas field \".spec.replicas\" does not exist"
        ),
        "{code}"
    );
    let empty = (
        400,
        "BadRequest",
        "the spec replicas field \".spec.replicas\" cannot be empty",
    );
    let (_, s) = api
        .patch("d/scale?fieldManager=erin", MERGE, json!({"spec": {}}))
        .await;
    assert_eq!(status(&s), empty);
    let ops = json!([{"op": "test", "path": "/spec/replicas", "value": -2147483648_i64}]);
    let (_, s) = api
        .patch("d/scale?fieldManager=erin", JSON_PATCH, ops)
        .await;
    assert_eq!(status(&s), empty);
    // No manager owns the replicas: apply's before-first-apply step fails as kube's.
    let (_, s) = api
        .apply_scale(
            "d",
            "fieldManager=x",
            json!({"apiVersion": "autoscaling/v1", "kind": "Scale"}),
        )
        .await;
    assert_eq!(
        status(&s),
        (
            500,
            "",
            "failed to create manager for existing fields: failed to convert live object (/; autoscaling/v1, Kind=Scale) to proper version: request to convert CR to an invalid group/version: autoscaling/v1"
        )
    );
    // An update is not recorded either (the Scale has no managedFields to track).
    let (code, s) = api
        .put_scale("d", "fieldManager=dave", json!({"replicas": 3}))
        .await;
    assert_eq!((code, &s["spec"]), (200, &json!({"replicas": 3})), "{s}");
    assert_eq!(api.managed("d").await.0, json!([alice_cron_spec()]));
}

#[tokio::test]
async fn scale_update_checks_object_and_precondition() {
    let server = Server::start();
    let api = ScaleClient::new(&server);
    api.create("alice", "e", json!({"replicas": 2})).await;
    let (_, s) = api
        .put_scale("e", "fieldManager=dave", json!({"replicas": -1}))
        .await;
    assert_eq!(
        status(&s),
        (
            422,
            "Invalid",
            "CronTab.stable.example.com \"e\" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer"
        )
    );
    let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
                       "metadata": {"name": "e", "resourceVersion": "1"}, "spec": {"replicas": 3}});
    let (_, s) = send(api.c.put(api.url("e/scale")).json(&scale)).await;
    assert_eq!(
        status(&s),
        (
            409,
            "Conflict",
            "Operation cannot be fulfilled on crontabs.stable.example.com \"e\": the object has been modified; please apply your changes to the latest version and try again"
        )
    );
    let (_, s) = api
        .put_scale(
            "e",
            "fieldManager=dave",
            json!({"replicas": 2147483648_i64}),
        )
        .await;
    assert_eq!(
        status(&s),
        (
            400,
            "BadRequest",
            "no kind is registered for the type v1.Scale in scheme \"pkg/apiserver/customresource_handler.go:781\""
        )
    );
    // A merge patch dropping the replicas sets 0; the creator keeps only `.spec`.
    let (code, s) = api
        .patch(
            "e/scale?fieldManager=erin",
            MERGE,
            json!({"spec": {"replicas": null}}),
        )
        .await;
    assert_eq!((code, &s["spec"]), (200, &json!({})), "{s}");
    let alice = entry("alice", "Update", json!({"f:spec": {}}), "");
    assert_eq!(api.managed("e").await.0, json!([alice]));
}
