//! The fake kube-apiserver as a host cluster (tests/common/fake_kube*), driven with kube's
//! own client: writes in kube's wire format (server metadata, AlreadyExists, Conflict,
//! NotFound), managedFields of updates and server-side apply, deletes with preconditions and
//! finalizers, watch events and labelSelector, `/status`, dry-run, the offload fence
//! emulation, SelfSubjectReview, a CRD's custom resources and forwarding.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use std::time::Duration;

use fake_kube::FakeKube;
use fake_kube::host::{APISERVICES, SECRETS};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{
    Api, DeleteParams, Patch, PatchParams, PostParams, Preconditions, WatchEvent, WatchParams,
};
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
async fn create_sets_server_metadata_and_a_taken_name_is_already_exists() {
    let fake = FakeKube::start();
    let secrets: Api<Secret> = Api::namespaced(fake.client().await, "default");
    let mut secret: Secret = serde_json::from_value(json!({
        "metadata": {"generateName": "token-"}, "data": {"k": "dg=="}}))
    .unwrap();
    let params = PostParams {
        field_manager: Some("tester".into()),
        ..Default::default()
    };
    let created = secrets.create(&params, &secret).await.unwrap();
    let meta = &created.metadata;
    let name = meta.name.clone().unwrap();
    assert!(
        name.starts_with("token-") && name.len() == "token-".len() + 5,
        "{name}"
    );
    assert_eq!(meta.namespace.as_deref(), Some("default"));
    assert!(
        uuid::Uuid::parse_str(meta.uid.as_deref().unwrap()).is_ok(),
        "{meta:?}"
    );
    assert!(
        meta.resource_version
            .as_deref()
            .unwrap()
            .parse::<u64>()
            .unwrap()
            > 2000
    );
    assert!(meta.creation_timestamp.is_some());
    let entries = serde_json::to_value(meta.managed_fields.as_ref().unwrap()).unwrap();
    assert_eq!(entries[0]["manager"], "tester");
    assert_eq!(entries[0]["operation"], "Update");
    assert_eq!(
        entries[0]["fieldsV1"],
        json!({"f:data": {".": {}, "f:k": {}}, "f:metadata": {"f:generateName": {}}})
    );
    let stored = fake.object(&SECRETS, Some("default"), &name).unwrap();
    assert_eq!(stored["metadata"]["uid"], json!(meta.uid));

    secret.metadata.name = Some(name.clone());
    let taken = api_error(secrets.create(&params, &secret).await);
    assert_eq!((taken.code, taken.reason.as_str()), (409, "AlreadyExists"));
    assert_eq!(taken.message, format!("secrets \"{name}\" already exists"));
    let nameless = api_error(secrets.create(&params, &Secret::default()).await);
    assert_eq!((nameless.code, nameless.reason.as_str()), (422, "Invalid"));
    assert_eq!(
        nameless.message,
        "Secret \"\" is invalid: metadata.name: Required value: name or generateName is required"
    );
}

#[tokio::test]
async fn secret_string_data_is_stored_as_data_and_a_lease_put_creates_it() {
    use k8s_openapi::api::coordination::v1::Lease;
    let fake = FakeKube::start();
    let secrets: Api<Secret> = Api::namespaced(fake.client().await, "default");
    let secret: Secret = serde_json::from_value(json!({
        "metadata": {"name": "ca"}, "type": "kubernetes.io/tls", "stringData": {"tls.crt": "PEM"}}))
    .unwrap();
    secrets
        .create(&PostParams::default(), &secret)
        .await
        .unwrap();
    let stored = fake.object(&SECRETS, Some("default"), "ca").unwrap();
    assert_eq!(stored["data"], json!({"tls.crt": "UEVN"}));
    assert!(stored.get("stringData").is_none(), "{stored}");

    let leases: Api<Lease> = Api::namespaced(fake.client().await, "default");
    let lease: Lease = serde_json::from_value(json!({"metadata": {"name": "leader"},
        "spec": {"holderIdentity": "a"}}))
    .unwrap();
    let created = leases
        .replace("leader", &PostParams::default(), &lease)
        .await
        .unwrap();
    assert_eq!(created.spec.unwrap().holder_identity.as_deref(), Some("a"));
    let maps: Api<ConfigMap> = Api::namespaced(fake.client().await, "default");
    let refused = api_error(
        maps.replace(
            "leader",
            &PostParams::default(),
            &configmap("leader", json!({})),
        )
        .await,
    );
    assert_eq!(refused.code, 404, "only leases and events create on update");
}

#[tokio::test]
async fn update_with_a_stale_resource_version_is_a_conflict_and_a_missing_object_not_found() {
    let fake = FakeKube::start();
    let maps: Api<ConfigMap> = Api::namespaced(fake.client().await, "default");
    let first = maps
        .create(&PostParams::default(), &configmap("a", json!({"x": "1"})))
        .await
        .unwrap();
    let mut edited = first.clone();
    edited.data = Some([("x".to_string(), "2".to_string())].into());
    let second = maps
        .replace("a", &PostParams::default(), &edited)
        .await
        .unwrap();
    assert_eq!(second.data, edited.data);
    assert_ne!(
        second.metadata.resource_version,
        first.metadata.resource_version
    );
    assert_eq!(second.metadata.uid, first.metadata.uid);

    let stale = api_error(maps.replace("a", &PostParams::default(), &edited).await);
    assert_eq!((stale.code, stale.reason.as_str()), (409, "Conflict"));
    assert_eq!(
        stale.message,
        "Operation cannot be fulfilled on configmaps \"a\": the object has been modified; please apply your changes to the latest version and try again"
    );
    let stored = fake
        .object(&fake_kube::collections::CONFIGMAPS, Some("default"), "a")
        .unwrap();
    assert_eq!(stored["data"]["x"], "2", "the stale write changed nothing");

    let missing = api_error(
        maps.replace("b", &PostParams::default(), &configmap("b", json!({})))
            .await,
    );
    assert_eq!(
        (missing.code, missing.message.as_str()),
        (404, "configmaps \"b\" not found")
    );
}

#[tokio::test]
async fn delete_checks_preconditions_and_waits_for_finalizers() {
    let fake = FakeKube::start();
    let maps: Api<ConfigMap> = Api::namespaced(fake.client().await, "default");
    let mut held = configmap("held", json!({}));
    held.metadata.finalizers = Some(vec!["example.com/keep".into()]);
    let created = maps.create(&PostParams::default(), &held).await.unwrap();
    let wrong = DeleteParams {
        preconditions: Some(Preconditions {
            uid: Some("other".into()),
            resource_version: None,
        }),
        ..Default::default()
    };
    let refused = api_error(maps.delete("held", &wrong).await);
    assert_eq!(refused.code, 409);
    let uid = created.metadata.uid.clone().unwrap();
    assert_eq!(
        refused.message,
        format!(
            "Operation cannot be fulfilled on configmaps \"held\": Precondition failed: UID in precondition: other, UID in object meta: {uid}"
        )
    );

    let marked = maps.delete("held", &DeleteParams::default()).await.unwrap();
    let marked = marked.left().expect("the object, still there");
    assert!(marked.metadata.deletion_timestamp.is_some());
    assert!(
        fake.object(&fake_kube::collections::CONFIGMAPS, Some("default"), "held")
            .is_some()
    );
    let mut released = marked.clone();
    released.metadata.finalizers = None;
    maps.replace("held", &PostParams::default(), &released)
        .await
        .unwrap();
    assert!(
        fake.object(&fake_kube::collections::CONFIGMAPS, Some("default"), "held")
            .is_none()
    );

    maps.create(&PostParams::default(), &configmap("plain", json!({})))
        .await
        .unwrap();
    let gone = maps
        .delete("plain", &DeleteParams::default())
        .await
        .unwrap();
    let status = gone.right().expect("kube's Success Status");
    assert_eq!(status.details.unwrap().name, "plain");
    let again = api_error(maps.delete("plain", &DeleteParams::default()).await);
    assert_eq!(
        (again.code, again.message.as_str()),
        (404, "configmaps \"plain\" not found")
    );
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
async fn dry_run_answers_and_stores_nothing() {
    let fake = FakeKube::start();
    let maps: Api<ConfigMap> = Api::namespaced(fake.client().await, "default");
    let dry = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let answered = maps
        .create(&dry, &configmap("dry", json!({"x": "1"})))
        .await
        .unwrap();
    assert_eq!(answered.data.unwrap()["x"], "1");
    assert!(
        fake.object(&fake_kube::collections::CONFIGMAPS, Some("default"), "dry")
            .is_none()
    );
    let created = maps
        .create(&PostParams::default(), &configmap("dry", json!({"x": "1"})))
        .await
        .unwrap();
    let patch = Patch::Merge(json!({"data": {"x": "2"}}));
    let answered = maps
        .patch(
            "dry",
            &PatchParams {
                dry_run: true,
                ..Default::default()
            },
            &patch,
        )
        .await
        .unwrap();
    assert_eq!(answered.data.unwrap()["x"], "2");
    let stored = fake
        .object(&fake_kube::collections::CONFIGMAPS, Some("default"), "dry")
        .unwrap();
    assert_eq!(stored["data"]["x"], "1");
    assert_eq!(
        stored["metadata"]["resourceVersion"],
        json!(created.metadata.resource_version)
    );
    maps.delete(
        "dry",
        &DeleteParams {
            dry_run: true,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(
        fake.object(&fake_kube::collections::CONFIGMAPS, Some("default"), "dry")
            .is_some()
    );
    let _ = APISERVICES;
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

#[tokio::test]
async fn self_subject_review_answers_the_callers_user() {
    let fake = FakeKube::start();
    fake.add_user("other-token", "jane", &["devs"]);
    for (client, user, group) in [
        (
            fake.client().await,
            fake_kube::users::SERVICE_ACCOUNT_USER,
            "system:serviceaccounts",
        ),
        (fake.client_for("other-token").await, "jane", "devs"),
    ] {
        let review: Value = client
            .request(http::Request::post(fake_kube::users::SELF_SUBJECT_REVIEWS)
                .body(serde_json::to_vec(&json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})).unwrap())
                .unwrap())
            .await
            .unwrap();
        assert_eq!(review["kind"], "SelfSubjectReview");
        assert_eq!(review["status"]["userInfo"]["username"], user);
        assert!(
            review["status"]["userInfo"]["groups"]
                .as_array()
                .unwrap()
                .contains(&json!(group)),
            "{review}"
        );
    }
    let unknown = api_error(fake.client_for("nobody").await.apiserver_version().await);
    assert_eq!(unknown.code, 401);
}

const GROUP: &str = "stable.example.com";
const FENCE: &str = "crd-apiserver-offload-fence.stable.example.com";
const MESSAGE: &str = "the resources of API group \"stable.example.com\" are being moved by crd-apiserver (offload): writes are refused until the move completes; retry shortly";

fn crontab_crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {"group": GROUP, "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "listKind": "CronTabList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"status": {}}}]}})
}

/// The fence as offsteps writes it (design34.md), exempting `user`'s real writes.
fn fence(user: &str) -> (Value, Value) {
    let policy = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": FENCE, "labels": {"app.kubernetes.io/managed-by": "crd-apiserver"}},
        "spec": {"failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [{"apiGroups": [GROUP], "apiVersions": ["*"],
                "resources": ["*/*"], "operations": ["CREATE", "UPDATE", "DELETE"]}]},
            "matchConditions": [{"name": "not-crd-apiserver",
                "expression": format!("request.userInfo.username != '{user}' || request.dryRun")}],
            "validations": [{"expression": "false", "reason": "Forbidden", "message": MESSAGE}]}});
    let binding = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": FENCE, "labels": {"app.kubernetes.io/managed-by": "crd-apiserver"}},
        "spec": {"policyName": FENCE, "validationActions": ["Deny"]}});
    (policy, binding)
}

#[tokio::test]
async fn a_crd_serves_its_custom_resources_and_the_fence_refuses_all_but_our_real_writes() {
    use kube::api::{ApiResource, DynamicObject};
    use kube::discovery::Discovery;
    let fake = FakeKube::start();
    fake.add_user("jane-token", "jane", &[]);
    let ours = fake.client().await;
    let crds: Api<DynamicObject> = Api::all_with(ours.clone(), &ApiResource::erase::<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition>(&()));
    crds.create(
        &PostParams::default(),
        &serde_json::from_value(crontab_crd()).unwrap(),
    )
    .await
    .unwrap();
    let discovery = Discovery::new(ours.clone())
        .filter(&[GROUP])
        .run()
        .await
        .unwrap();
    let (ar, caps) = discovery
        .get(GROUP)
        .and_then(|g| g.recommended_kind("CronTab"))
        .expect("CronTab discovered");
    let subresources: Vec<&str> = caps
        .subresources
        .iter()
        .map(|(s, _)| s.plural.as_str())
        .collect();
    assert_eq!(subresources, ["status"], "discovery lists crontabs/status");
    let established = crds.get("crontabs.stable.example.com").await.unwrap();
    assert_eq!(
        established.data["status"]["conditions"][1]["type"],
        "Established"
    );

    let theirs: Api<DynamicObject> =
        Api::namespaced_with(fake.client_for("jane-token").await, "default", &ar);
    let mine: Api<DynamicObject> = Api::namespaced_with(ours.clone(), "default", &ar);
    let crontab = |name: &str| -> DynamicObject {
        serde_json::from_value(
            json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": name}, "spec": {"cronSpec": "* * * * *"}}),
        )
        .unwrap()
    };
    theirs
        .create(&PostParams::default(), &crontab("before"))
        .await
        .unwrap();

    let (policy, binding) = fence(fake_kube::users::SERVICE_ACCOUNT_USER);
    let policies: Api<DynamicObject> = Api::all_with(
        ours.clone(),
        &ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
            "admissionregistration.k8s.io",
            "v1",
            "ValidatingAdmissionPolicy",
        )),
    );
    let bindings: Api<DynamicObject> = Api::all_with(
        ours.clone(),
        &ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
            "admissionregistration.k8s.io",
            "v1",
            "ValidatingAdmissionPolicyBinding",
        )),
    );
    policies
        .create(
            &PostParams::default(),
            &serde_json::from_value(policy).unwrap(),
        )
        .await
        .unwrap();
    theirs
        .create(&PostParams::default(), &crontab("unbound"))
        .await
        .expect("a policy without a binding refuses nothing");
    bindings
        .create(
            &PostParams::default(),
            &serde_json::from_value(binding).unwrap(),
        )
        .await
        .unwrap();

    let denied = |name: &str| {
        format!(
            "crontabs.stable.example.com \"{name}\" is forbidden: ValidatingAdmissionPolicy '{FENCE}' with binding '{FENCE}' denied request: {MESSAGE}"
        )
    };
    let refused = api_error(
        theirs
            .create(&PostParams::default(), &crontab("during"))
            .await,
    );
    assert_eq!(
        (
            refused.code,
            refused.reason.as_str(),
            refused.message.clone()
        ),
        (403, "Forbidden", denied("during"))
    );
    assert!(
        fake.object(
            &fake_kube::host::crd_resources(&crontab_crd())[0],
            Some("default"),
            "during"
        )
        .is_none()
    );
    let status = Patch::Merge(json!({"status": {"lastScheduleTime": "now"}}));
    let refused = api_error(
        theirs
            .patch_status("before", &PatchParams::default(), &status)
            .await,
    );
    assert_eq!(
        (refused.code, refused.message.clone()),
        (403, denied("before")),
        "*/* fences /status too"
    );
    let refused = api_error(theirs.delete("before", &DeleteParams::default()).await);
    assert_eq!(refused.message, denied("before"));
    assert!(theirs.get("before").await.is_ok(), "reads pass the fence");

    let dry = PatchParams {
        dry_run: true,
        ..Default::default()
    };
    let probe = api_error(
        mine.patch("before", &dry, &Patch::Merge(json!({"spec": {"x": 1}})))
            .await,
    );
    assert_eq!(
        (probe.code, probe.message.clone()),
        (403, denied("before")),
        "our dry-run probe sees the fence"
    );
    mine.create(&PostParams::default(), &crontab("ours"))
        .await
        .expect("our real writes pass");
    mine.patch_status("ours", &PatchParams::default(), &status)
        .await
        .unwrap();

    let writes: Vec<(String, String, String)> = fake
        .writes()
        .iter()
        .map(|w| (w.method.clone(), w.path.clone(), w.user.clone()))
        .collect();
    assert!(
        writes.contains(&(
            "POST".into(),
            "/apis/stable.example.com/v1/namespaces/default/crontabs".into(),
            "jane".into()
        )),
        "{writes:?}"
    );
    let last = fake.writes().pop().unwrap();
    assert_eq!(
        (last.method.as_str(), last.path.as_str()),
        (
            "PATCH",
            "/apis/stable.example.com/v1/namespaces/default/crontabs/ours/status"
        )
    );
    assert_eq!(last.json(), json!({"status": {"lastScheduleTime": "now"}}));
    assert_eq!(last.user, fake_kube::users::SERVICE_ACCOUNT_USER);

    bindings
        .delete(FENCE, &DeleteParams::default())
        .await
        .unwrap();
    theirs
        .create(&PostParams::default(), &crontab("after"))
        .await
        .expect("the fence lifted");
}

#[tokio::test]
async fn forward_proxies_a_prefix_to_another_server_watches_included() {
    use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
    let (front, back) = (FakeKube::start(), FakeKube::start());
    let identity = fake_kube::forward::Identity {
        token: Some(fake_kube::SERVICE_ACCOUNT_TOKEN.into()),
        ..Default::default()
    };
    front.forward(
        "/apis/apiregistration.k8s.io",
        &back.url(),
        &back.ca_pem,
        identity,
    );
    back.put_object(apiservice("v1.stable.example.com"));
    let services: Api<APIService> = Api::all(front.client().await);
    let listed = services.list(&Default::default()).await.unwrap();
    assert_eq!(listed.items.len(), 1);
    assert!(
        front
            .object(&APISERVICES, None, "v1.stable.example.com")
            .is_none(),
        "served by the back, not the front"
    );
    let mut events = services
        .watch(
            &WatchParams::default(),
            &listed.metadata.resource_version.unwrap(),
        )
        .await
        .unwrap()
        .boxed();
    back.put_object(apiservice("v1.other.example.com"));
    let event = tokio::time::timeout(WITHIN, events.try_next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    match event {
        WatchEvent::Added(s) => {
            assert_eq!(s.metadata.name.as_deref(), Some("v1.other.example.com"))
        }
        other => panic!("{other:?}"),
    }
    services
        .delete("v1.other.example.com", &DeleteParams::default())
        .await
        .unwrap();
    assert!(
        back.object(&APISERVICES, None, "v1.other.example.com")
            .is_none(),
        "the delete went through"
    );
    let at_back: Vec<_> = back
        .writes()
        .iter()
        .map(|w| (w.method.clone(), w.user.clone()))
        .collect();
    assert_eq!(
        at_back,
        [(
            "DELETE".to_string(),
            fake_kube::users::SERVICE_ACCOUNT_USER.to_string()
        )]
    );
    let namespaces = front.client().await;
    let local: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(namespaces);
    assert!(
        local.get("default").await.is_ok(),
        "the rest is served by the front"
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

#[test]
fn fence_condition_and_resource_rules_read_as_kube_reads_them() {
    use fake_kube::fence::{exempted_user, names_resource};
    let conditions = [
        (
            "request.userInfo.username != 'system:serviceaccount:x:y'",
            Some(("system:serviceaccount:x:y", false)),
        ),
        (
            "request.userInfo.username != 'u' || request.dryRun",
            Some(("u", true)),
        ),
        (
            "  request.userInfo.username!='u'||request.dryRun ",
            Some(("u", true)),
        ),
        ("request.userInfo.username == 'u'", None),
        ("request.userInfo.username != 'u' && request.dryRun", None),
        ("request.userInfo.username != \"u\"", None),
        ("true", None),
    ];
    for (expression, expected) in conditions {
        assert_eq!(exempted_user(expression), expected, "{expression}");
    }
    // (entry, plural, subresource, matches)
    let rules = [
        ("*", "crontabs", "", true),
        ("*", "crontabs", "status", false),
        ("*/*", "crontabs", "", true),
        ("*/*", "crontabs", "status", true),
        ("crontabs", "crontabs", "", true),
        ("crontabs", "crontabs", "status", false),
        ("crontabs", "other", "", false),
        ("crontabs/*", "crontabs", "status", true),
        ("crontabs/*", "crontabs", "", false),
        ("*/status", "crontabs", "status", true),
        ("*/status", "crontabs", "scale", false),
        ("crontabs/status", "crontabs", "status", true),
    ];
    for (entry, plural, sub, expected) in rules {
        assert_eq!(
            names_resource(entry, plural, sub),
            expected,
            "{entry} on {plural}/{sub}"
        );
    }
}
