//! The fake kube-apiserver as a host cluster (tests/common/fake_kube*): watch events and
//! labelSelector, managedFields of updates and server-side apply, `/status` — driven with
//! kube's own client — and the field-set and apply tables.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use std::time::Duration;

use fake_kube::FakeKube;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use serde_json::{Value, json};

const WITHIN: Duration = Duration::from_secs(10);

fn api_error(result: Result<impl std::fmt::Debug, kube::Error>) -> kube::core::Status {
    match result {
        Err(kube::Error::Api(status)) => *status,
        other => panic!("expected an API error, got {other:?}"),
    }
}

fn configmap(name: &str, data: Value) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name}, "data": data})).unwrap()
}

#[tokio::test]
async fn watch_with_a_label_selector_sees_only_matching_writes() {
    let fake = FakeKube::start();
    let maps: Api<ConfigMap> = Api::namespaced(fake.client().await, "default");
    let start = maps
        .list(&Default::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let params = WatchParams::default().labels("app in (x,y),tier!=db");
    let mut events = maps.watch(&params, &start).await.unwrap().boxed();
    for (name, app, tier) in [
        ("one", "x", "web"),
        ("two", "z", "web"),
        ("three", "y", "db"),
        ("four", "y", "web"),
    ] {
        let mut map = configmap(name, json!({}));
        map.metadata.labels =
            Some([("app".into(), app.into()), ("tier".into(), tier.into())].into());
        maps.create(&PostParams::default(), &map).await.unwrap();
    }
    maps.delete("one", &DeleteParams::default()).await.unwrap();
    let relabel = |app: &str| Patch::Merge(json!({"metadata": {"labels": {"app": app}}}));
    maps.patch("four", &PatchParams::default(), &relabel("z"))
        .await
        .unwrap();
    maps.patch("two", &PatchParams::default(), &relabel("x"))
        .await
        .unwrap();
    maps.patch("two", &PatchParams::default(), &relabel("y"))
        .await
        .unwrap();
    let mut seen = Vec::new();
    while seen.len() < 6 {
        let event = tokio::time::timeout(WITHIN, events.try_next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        seen.push(match event {
            WatchEvent::Added(m) => format!("ADDED {}", m.metadata.name.unwrap()),
            WatchEvent::Deleted(m) => format!("DELETED {}", m.metadata.name.unwrap()),
            WatchEvent::Modified(m) => format!("MODIFIED {}", m.metadata.name.unwrap()),
            other => format!("{other:?}"),
        });
    }
    assert_eq!(
        seen,
        [
            "ADDED one",
            "ADDED four",
            "DELETED one",
            "DELETED four",
            "ADDED two",
            "MODIFIED two"
        ],
        "an object relabelled out of the selection is DELETED for the watcher, into it ADDED"
    );
    let listed = maps
        .list(&kube::api::ListParams::default().labels("app=y"))
        .await
        .unwrap();
    let names: Vec<_> = listed
        .items
        .iter()
        .map(|m| m.metadata.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["three", "two"]);
    let bad = api_error(
        maps.list(&kube::api::ListParams::default().labels("app in x"))
            .await,
    );
    assert_eq!((bad.code, bad.reason.as_str()), (400, "BadRequest"));
}

#[tokio::test]
async fn apply_tracks_managers_conflicts_without_force_and_removes_dropped_fields() {
    let fake = FakeKube::start();
    let maps: Api<ConfigMap> = Api::namespaced(fake.client().await, "default");
    let apply = |manager: &str, force: bool| PatchParams {
        field_manager: Some(manager.into()),
        force,
        ..Default::default()
    };
    let config = |data: Value| {
        Patch::Apply(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m"}, "data": data}),
        )
    };
    let created = maps
        .patch(
            "m",
            &apply("alice", false),
            &config(json!({"a": "1", "b": "1"})),
        )
        .await
        .unwrap();
    assert_eq!(
        created.data.clone().unwrap(),
        [("a".into(), "1".into()), ("b".into(), "1".into())].into()
    );
    let merge = PatchParams {
        field_manager: Some("bob".into()),
        ..Default::default()
    };
    maps.patch("m", &merge, &Patch::Merge(json!({"data": {"c": "1"}})))
        .await
        .unwrap();

    let refused = api_error(
        maps.patch("m", &apply("carol", false), &config(json!({"c": "2"})))
            .await,
    );
    assert_eq!((refused.code, refused.reason.as_str()), (409, "Conflict"));
    assert!(
        refused
            .message
            .starts_with("Apply failed with 1 conflict: conflict with \"bob\" using v1 at ")
            && refused.message.ends_with(": .data.c"),
        "{}",
        refused.message
    );
    maps.patch("m", &apply("carol", true), &config(json!({"c": "2"})))
        .await
        .unwrap();
    let dropped = maps
        .patch("m", &apply("alice", false), &config(json!({"a": "1"})))
        .await
        .unwrap();
    let data = dropped.data.unwrap();
    assert_eq!(
        data,
        [("a".into(), "1".into()), ("c".into(), "2".into())].into(),
        "b applied before and no more: removed"
    );
    let entries = serde_json::to_value(dropped.metadata.managed_fields.unwrap()).unwrap();
    let summary: Vec<(String, String, Value)> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["manager"].as_str().unwrap().into(),
                e["operation"].as_str().unwrap().into(),
                e["fieldsV1"].clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "alice".into(),
                "Apply".into(),
                json!({"f:data": {"f:a": {}}})
            ),
            (
                "carol".into(),
                "Apply".into(),
                json!({"f:data": {"f:c": {}}})
            ),
        ],
        "bob lost .data.c to carol's forced apply and owns nothing: its entry is gone"
    );
    let unnamed = api_error(
        maps.patch("m", &PatchParams::default(), &config(json!({})))
            .await,
    );
    assert_eq!(unnamed.code, 422);
    assert_eq!(
        unnamed.message,
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
    );
}

fn apiservice(name: &str) -> Value {
    json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name},
        "spec": {"group": "stable.example.com", "version": "v1", "groupPriorityMinimum": 1000, "versionPriority": 100},
        "status": {"conditions": [{"type": "Available", "status": "True"}]}})
}

#[tokio::test]
async fn status_writes_change_only_the_status_and_object_writes_keep_it() {
    use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
    let fake = FakeKube::start();
    let services: Api<APIService> = Api::all(fake.client().await);
    let object: APIService = serde_json::from_value(apiservice("v1.stable.example.com")).unwrap();
    let created = services
        .create(&PostParams::default(), &object)
        .await
        .unwrap();
    assert!(
        created.status.is_none(),
        "a create drops the status: {created:?}"
    );
    let status = json!({"status": {"conditions": [{"type": "Available", "status": "False", "reason": "Testing"}]},
        "spec": {"group": "changed.example.com"}});
    let merge = PatchParams::default();
    let patched = services
        .patch_status("v1.stable.example.com", &merge, &Patch::Merge(status))
        .await
        .unwrap();
    assert_eq!(
        patched.spec.unwrap().group.as_deref(),
        Some("stable.example.com"),
        "/status keeps the spec"
    );
    assert_eq!(
        patched.status.unwrap().conditions.unwrap()[0]
            .reason
            .as_deref(),
        Some("Testing")
    );
    assert_eq!(patched.metadata.generation, Some(1));
    let spec = json!({"spec": {"versionPriority": 15}, "status": null});
    let edited = services
        .patch("v1.stable.example.com", &merge, &Patch::Merge(spec))
        .await
        .unwrap();
    assert_eq!(edited.spec.unwrap().version_priority, 15);
    assert_eq!(edited.metadata.generation, Some(2));
    assert_eq!(
        edited.status.unwrap().conditions.unwrap()[0].status,
        "False",
        "an object write keeps the status"
    );

    fake.set_apiservice_available("v1.stable.example.com", true, "Passed");
    let read = services.get("v1.stable.example.com").await.unwrap();
    let condition = &read.status.unwrap().conditions.unwrap()[0];
    assert_eq!(
        (
            condition.type_.as_str(),
            condition.status.as_str(),
            condition.reason.as_deref()
        ),
        ("Available", "True", Some("Passed"))
    );
}

// The pure parts, table-tested.

#[test]
fn fields_v1_of_an_object_marks_maps_it_sets_and_parses_back() {
    use fake_kube::fields::{Scope, fields_of, fields_v1, parse_fields_v1};
    let object = json!({"apiVersion": "v1", "kind": "X",
        "metadata": {"name": "n", "uid": "u", "labels": {"a": "1"}},
        "spec": {"list": [1, 2], "nested": {"x": 1}, "empty": {}}, "status": {"phase": "Up"}});
    let cases = [
        (
            Scope::Object,
            json!({"f:metadata": {"f:labels": {".": {}, "f:a": {}}},
            "f:spec": {".": {}, "f:list": {}, "f:nested": {".": {}, "f:x": {}}, "f:empty": {}},
            "f:status": {".": {}, "f:phase": {}}}),
        ),
        (
            Scope::Spec,
            json!({"f:metadata": {"f:labels": {".": {}, "f:a": {}}},
            "f:spec": {".": {}, "f:list": {}, "f:nested": {".": {}, "f:x": {}}, "f:empty": {}}}),
        ),
        (Scope::Status, json!({"f:status": {".": {}, "f:phase": {}}})),
    ];
    for (scope, expected) in cases {
        let set = fields_of(&object, scope);
        assert_eq!(fields_v1(&set), expected, "{scope:?}");
        assert_eq!(parse_fields_v1(&expected), set, "{scope:?} round trip");
    }
}

#[test]
fn apply_merges_owns_leaves_and_reports_conflicts() {
    use fake_kube::fields::{Entry, Scope, Writer, apply, parse_fields_v1};
    let writer = |m: &str| Writer {
        manager: m.into(),
        api_version: "v1".into(),
        subresource: String::new(),
        scope: Scope::Object,
        time: "T".into(),
    };
    let entry = |m: &str, op: &str, fields: Value| Entry {
        manager: m.into(),
        operation: op.into(),
        api_version: "v1".into(),
        time: "T0".into(),
        subresource: String::new(),
        fields: parse_fields_v1(&fields),
    };
    let live = json!({"spec": {"a": 1, "b": 2, "c": [1]}});
    let owners = vec![
        entry("me", "Apply", json!({"f:spec": {"f:a": {}, "f:b": {}}})),
        entry("other", "Update", json!({"f:spec": {"f:c": {}}})),
    ];
    // (applied, force, merged spec or the conflicting fields)
    type Case = (Value, bool, Result<Value, Vec<&'static str>>);
    let cases: [Case; 4] = [
        (
            json!({"spec": {"a": 5, "b": 2}}),
            false,
            Ok(json!({"a": 5, "b": 2, "c": [1]})),
        ),
        (
            json!({"spec": {"a": 1}}),
            false,
            Ok(json!({"a": 1, "c": [1]})),
        ),
        (
            json!({"spec": {"a": 1, "b": 2, "c": [2]}}),
            false,
            Err(vec!["\"other\" using v1 at T0 .spec.c"]),
        ),
        (
            json!({"spec": {"a": 1, "b": 2, "c": [2]}}),
            true,
            Ok(json!({"a": 1, "b": 2, "c": [2]})),
        ),
    ];
    for (applied, force, expected) in cases {
        let got = apply(Some(&live), &applied, owners.clone(), &writer("me"), force);
        let got = got.map(|(merged, _)| merged["spec"].clone()).map_err(|c| {
            c.iter()
                .map(|c| format!("{} {}", c.manager, c.field))
                .collect::<Vec<_>>()
        });
        let expected = expected.map_err(|c| c.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(got, expected, "{applied} force={force}");
    }
    let same = apply(
        Some(&live),
        &json!({"spec": {"c": [1]}}),
        owners.clone(),
        &writer("third"),
        false,
    );
    assert!(
        same.is_ok(),
        "applying the value another manager owns is shared ownership, no conflict"
    );
}
