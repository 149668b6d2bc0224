//! The fake kube-apiserver as a host cluster (tests/common/fake_kube*), driven with kube's
//! own client — writes in kube's wire format: server metadata, AlreadyExists, Invalid,
//! Conflict, NotFound, deletes with preconditions and finalizers, dry-run, Secret stringData,
//! create-on-update of Leases, malformed bodies. Watches, apply and `/status` are in
//! fake_host_fields.rs; the fence, SelfSubjectReview, CRDs and forwarding in fake_host_fence.rs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use fake_kube::FakeKube;
use fake_kube::host::SECRETS;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, Preconditions};
use serde_json::{Value, json};

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
}

#[tokio::test]
async fn a_malformed_body_is_bad_request_and_stores_nothing() {
    let fake = FakeKube::start();
    let client = fake.client().await;
    let path = "/api/v1/namespaces/default/configmaps";
    let send = |method: http::Method, path: String, content_type: &str, body: &str| {
        let request = http::Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", content_type)
            .body(body.as_bytes().to_vec())
            .unwrap();
        let client = client.clone();
        async move { client.request::<Value>(request).await }
    };
    let cases = [
        (
            http::Method::POST,
            path.to_string(),
            "application/json",
            "[1]",
        ),
        (
            http::Method::POST,
            path.to_string(),
            "application/json",
            r#"{"metadata": 5}"#,
        ),
        (
            http::Method::POST,
            path.to_string(),
            "application/json",
            "{not json",
        ),
        (
            http::Method::PATCH,
            format!("{path}/m?fieldManager=x"),
            "application/apply-patch+yaml",
            "- 1",
        ),
        (
            http::Method::PATCH,
            format!("{path}/m"),
            "application/merge-patch+json",
            r#"{"metadata": "x"}"#,
        ),
    ];
    let mut maps = Api::<ConfigMap>::namespaced(client.clone(), "default");
    maps.create(&PostParams::default(), &configmap("m", json!({"x": "1"})))
        .await
        .unwrap();
    for (method, path, content_type, body) in cases {
        let refused = api_error(send(method.clone(), path.clone(), content_type, body).await);
        assert_eq!(
            (refused.code, refused.reason.as_str()),
            (400, "BadRequest"),
            "{method} {path} {body}"
        );
    }
    let stored = fake
        .object(&fake_kube::collections::CONFIGMAPS, Some("default"), "m")
        .unwrap();
    assert_eq!(stored["data"], json!({"x": "1"}));
    maps = Api::namespaced(fake.client().await, "default");
    assert_eq!(
        maps.list(&Default::default()).await.unwrap().items.len(),
        1,
        "the fake still answers"
    );
}
