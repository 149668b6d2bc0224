//! Server-side apply through `/scale` over HTTPS, against answers recorded from the
//! reference apiextensions-apiserver (a copy of the CronTab CRD in another group): the
//! Scale's appliers own the object's `.spec.replicas` (entries without `time`), conflict
//! with the main resource's, and are refused as kube refuses them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/managed.rs"]
mod managed;

use common::Server;
use managed::{GV, MERGE, ScaleClient, entry, replicas_fields, status};
use serde_json::{Value, json};

/// An applied Scale configuration of `replicas`.
fn scale_apply(replicas: i64) -> Value {
    json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": {"replicas": replicas}})
}

#[tokio::test]
async fn scale_apply_owns_replicas_only_without_change() {
    let server = Server::start();
    let api = ScaleClient::new(&server);
    let (code, o) = api.apply_main("c", "fieldManager=app", 5).await;
    assert_eq!(code, 201, "{o}");
    let app = entry("app", "Apply", replicas_fields(), "");
    // A different value conflicts with the main resource's applier...
    let (code, s) = api
        .apply_scale("c", "fieldManager=scaler", scale_apply(2))
        .await;
    assert_eq!(code, 409, "{s}");
    assert_eq!(
        status(&s),
        (
            409,
            "Conflict",
            "Apply failed with 1 conflict: conflict with \"app\": .spec.replicas"
        )
    );
    assert_eq!(
        s["details"]["causes"],
        json!([{"reason": "FieldManagerConflict", "message": "conflict with \"app\"", "field": ".spec.replicas"}])
    );
    // ...and forced, fails as kube's (the Scale meets the custom resource's converter).
    let patch = json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "c"}, "spec": {"replicas": 2}});
    let (code, s) = api
        .apply_scale("c", "fieldManager=scaler&force=true", patch)
        .await;
    assert_eq!(code, 500, "{s}");
    assert_eq!(
        status(&s),
        (
            500,
            "",
            "failed to convert new object (/c; autoscaling/v1, Kind=Scale) to proper version: request to convert CR to an invalid group/version: autoscaling/v1"
        )
    );
    assert_eq!(api.managed("c").await, (json!([app]), vec!["app".into()]));

    // The same value: the Scale manager co-owns the replicas, with no time.
    let (code, s) = api
        .apply_scale("c", "fieldManager=dry&dryRun=All", scale_apply(5))
        .await;
    assert_eq!((code, &s["spec"]), (200, &json!({"replicas": 5})), "{s}");
    assert_eq!(api.managed("c").await.0, json!([app]));
    let (code, s) = api
        .apply_scale("c", "fieldManager=scaler", scale_apply(5))
        .await;
    assert_eq!((code, &s["spec"]), (200, &json!({"replicas": 5})), "{s}");
    let scaler = entry("scaler", "Apply", replicas_fields(), "scale");
    assert_eq!(
        api.managed("c").await,
        (json!([scaler, app]), vec!["app".into()])
    );

    // Applying to the main resource now conflicts with the Scale's applier.
    let (code, s) = api.apply_main("c", "fieldManager=app", 6).await;
    assert_eq!(
        status(&s),
        (
            409,
            "Conflict",
            "Apply failed with 1 conflict: conflict with \"scaler\" with subresource \"scale\": .spec.replicas"
        ),
        "{code}"
    );
    let (_, s) = api.apply_main("c", "fieldManager=other", 6).await;
    assert_eq!(
        status(&s).2,
        "Apply failed with 2 conflicts: conflicts with \"app\":\n- .spec.replicas\nconflicts with \"scaler\" with subresource \"scale\":\n- .spec.replicas"
    );
    // kube lists the causes in Go map order (random): compare them sorted.
    let mut causes = s["details"]["causes"].as_array().unwrap().clone();
    causes.sort_by_key(|c| c["message"].to_string());
    assert_eq!(
        Value::Array(causes),
        json!([{"reason": "FieldManagerConflict", "message": "conflict with \"app\"", "field": ".spec.replicas"},
               {"reason": "FieldManagerConflict", "message": "conflict with \"scaler\" with subresource \"scale\"", "field": ".spec.replicas"}])
    );
    let (code, _) = api
        .apply_scale("c", "fieldManager=scaler&force=true", scale_apply(5))
        .await;
    assert_eq!(code, 200);
    assert_eq!(api.managed("c").await.0, json!([scaler, app]));

    // An update through /scale takes the replicas from both appliers.
    let (code, s) = api
        .put_scale("c", "fieldManager=dave", json!({"replicas": 7}))
        .await;
    assert_eq!(code, 200, "{s}");
    let dave = entry("dave", "Update", replicas_fields(), "scale");
    assert_eq!(api.managed("c").await, (json!([dave]), vec![]));
}

#[tokio::test]
async fn scale_apply_refusals_match_kube() {
    let server = Server::start();
    let api = ScaleClient::new(&server);
    api.apply_main("b", "fieldManager=app", 5).await;
    let cases = [
        (
            "missing",
            "fieldManager=x",
            scale_apply(1),
            (
                404,
                "NotFound",
                "crontabs.stable.example.com \"missing\" not found",
            ),
        ),
        (
            "b",
            "",
            scale_apply(1),
            (
                422,
                "Invalid",
                "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
            ),
        ),
        (
            "b",
            "fieldManager=x",
            json!({"apiVersion": GV, "kind": "CronTab"}),
            (
                400,
                "BadRequest",
                "invalid object type: stable.example.com/v1, Kind=CronTab",
            ),
        ),
        (
            "b",
            "fieldManager=x",
            json!({"apiVersion": "autoscaling/v2", "kind": "Scale"}),
            (
                400,
                "BadRequest",
                "invalid object type: autoscaling/v2, Kind=Scale",
            ),
        ),
        (
            "b",
            "fieldManager=x",
            json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": {"replicas": 1, "foo": 1}}),
            (
                500,
                "",
                "failed to create typed patch object (/; autoscaling/v1, Kind=Scale): .spec.foo: field not declared in schema",
            ),
        ),
        (
            "b",
            "fieldManager=x",
            json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"managedFields": [{"manager": "q"}]}}),
            (400, "BadRequest", "metadata.managedFields must be nil"),
        ),
        (
            "b",
            "fieldManager=st",
            json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "status": {"replicas": 9}}),
            (
                500,
                "",
                "failed to convert new object (/; autoscaling/v1, Kind=Scale) to proper version: request to convert CR to an invalid group/version: autoscaling/v1",
            ),
        ),
    ];
    for (name, query, patch, want) in cases {
        let (code, s) = api.apply_scale(name, query, patch).await;
        assert_eq!(
            (u64::from(code), status(&s)),
            (want.0, want),
            "{name}?{query}: {s}"
        );
    }
    let (code, s) = api
        .patch(
            "b/scale?force=true&fieldManager=x",
            MERGE,
            json!({"spec": {"replicas": 1}}),
        )
        .await;
    assert_eq!(code, 422, "{s}");
    assert_eq!(
        status(&s).2,
        "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch"
    );
    let app = entry("app", "Apply", replicas_fields(), "");
    assert_eq!(api.managed("b").await.0, json!([app]));
}
