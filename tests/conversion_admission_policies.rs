//! Admission policies matched at another version than the request's (matchPolicy
//! Equivalent) of a webhook-converted resource (issue 32 point 2): the request's objects
//! are converted to the policy's version by the resource's converter, as kube's
//! `NewVersionedAttributes` does, and a mutated object converted back. The stub
//! converter keeps v2's `spec.shape` in an annotation at v1, so an `apiVersion` swap
//! would show a policy at v1 neither the annotation nor the shape. A converter that fails
//! is the binding's configuration error under failurePolicy, in kube's words.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/stub_converter.rs"]
mod stub_converter;
#[path = "common/webhook.rs"]
mod webhook;

use common::{Server, json_of};
use fake_kube::FakeKube;
use serde_json::{Value, json};
use stub_converter::{ANNOTATION, StubConverter};

const GROUP: &str = "conversion.example.com";
const ADMISSION: &str = "admissionregistration.k8s.io/v1";
const V1: &str = "/apis/conversion.example.com/v1/namespaces/default/widgets";
const V2: &str = "/apis/conversion.example.com/v2/namespaces/default/widgets";

/// The Widget of the reference's scenarios (v1 stored, v2 adds `spec.shape`), converted
/// at the stub's `path`.
fn definition(converter: &StubConverter, path: &str) -> Value {
    let version = |name: &str| {
        let mut spec = json!({"color": {"type": "string"}, "replicas": {"type": "integer"}});
        if name == "v2" {
            spec["shape"] = json!({"type": "string"});
        }
        json!({"name": name, "served": true, "storage": name == "v1",
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": spec}}}}})
    };
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.{GROUP}")},
        "spec": {"group": GROUP, "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                      "listKind": "WidgetList"},
            "versions": [version("v1"), version("v2")],
            "conversion": converter.conversion(path, &["v1"])}})
}

/// Every operation on widgets at `version` only, matchPolicy Equivalent.
fn constraints(version: &str) -> Value {
    json!({"matchPolicy": "Equivalent", "namespaceSelector": {}, "objectSelector": {},
        "resourceRules": [{"apiGroups": [GROUP], "apiVersions": [version],
            "operations": ["*"], "resources": ["widgets"], "scope": "*"}]})
}

fn vap(name: &str, version: &str, expression: &str, message: &str) -> Value {
    vap_of(name, version, &[(expression, message)])
}

fn vap_of(name: &str, version: &str, validations: &[(&str, &str)]) -> Value {
    let validations: Vec<Value> = (validations.iter())
        .map(|(expression, message)| json!({"expression": expression, "message": message}))
        .collect();
    json!({"apiVersion": ADMISSION, "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name, "generation": 1},
        "spec": {"failurePolicy": "Fail", "matchConstraints": constraints(version),
            "validations": validations}})
}

fn vap_binding(policy: &str) -> Value {
    json!({"apiVersion": ADMISSION, "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": format!("{policy}-binding"), "generation": 1},
        "spec": {"policyName": policy, "validationActions": ["Deny"],
            "matchResources": {"matchPolicy": "Equivalent", "namespaceSelector": {},
                "objectSelector": {}}}})
}

fn map(name: &str, version: &str, expression: &str) -> Value {
    json!({"apiVersion": ADMISSION, "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": name, "generation": 1},
        "spec": {"failurePolicy": "Fail", "reinvocationPolicy": "Never",
            "matchConstraints": constraints(version),
            "mutations": [{"patchType": "ApplyConfiguration",
                "applyConfiguration": {"expression": expression}}]}})
}

fn map_binding(policy: &str) -> Value {
    json!({"apiVersion": ADMISSION, "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": format!("{policy}-binding"), "generation": 1},
        "spec": {"policyName": policy, "matchResources": {"matchPolicy": "Equivalent",
            "namespaceSelector": {}, "objectSelector": {}}}})
}

fn widget(name: &str, version: &str, spec: Value) -> Value {
    json!({"apiVersion": format!("{GROUP}/{version}"), "kind": "Widget",
        "metadata": {"name": name, "namespace": "default"}, "spec": spec})
}

/// The fake core API serving `objects` and the server following it, serving the Widget
/// converted at the stub's `path`.
fn host(
    converter: &StubConverter,
    path: &str,
    objects: Vec<Value>,
) -> (FakeKube, Server, tempfile::TempDir) {
    let fake = FakeKube::start();
    for object in objects {
        fake.put_object(object);
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("widgets.yaml");
    std::fs::write(&file, definition(converter, path).to_string()).unwrap();
    let kubeconfig = fake.kubeconfig().display().to_string();
    let args = [
        "--kubeconfig",
        &kubeconfig,
        "--crd-dir",
        file.to_str().unwrap(),
    ];
    (fake, Server::start_with(&args), dir)
}

async fn create(server: &Server, path: &str, object: &Value) -> (u16, Value) {
    let resp = server
        .client()
        .post(server.url(path))
        .json(object)
        .send()
        .await
        .unwrap();
    let code = resp.status().as_u16();
    (code, resp.json().await.unwrap_or(Value::Null))
}

async fn absent(server: &Server, path: &str) -> bool {
    let resp = server.client().get(server.url(path)).send().await.unwrap();
    resp.status().as_u16() == 404
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policies_at_v1_request_at_v2_see_and_patch_converted_object() {
    let converter = StubConverter::start();
    // At v1 the shape is the converter's annotation (v1 has no spec.shape).
    let shape = format!("object.metadata.annotations['{ANNOTATION}']");
    let allowed = format!(
        "has(object.metadata.annotations) && '{ANNOTATION}' in object.metadata.annotations \
         && {shape} != 'forbidden'"
    );
    // The mutation at v1 turns a cube into a star by the annotation.
    let star = format!(
        "{shape} == 'cube' ? Object{{metadata: Object.metadata{{annotations: \
         {{'{ANNOTATION}': 'star'}}}}}} : Object{{}}"
    );
    // The old object at v1 too: a locked shape may not change.
    let old_shape = format!("oldObject.metadata.annotations['{ANNOTATION}']");
    let unlocked = format!(
        "oldObject == null || !has(oldObject.metadata.annotations) || \
         !('{ANNOTATION}' in oldObject.metadata.annotations) || {old_shape} != 'locked' || \
         {shape} == 'locked'"
    );
    let (_fake, server, _dir) = host(
        &converter,
        "/convert",
        vec![
            vap_of(
                "shapes",
                "v1",
                &[
                    (&allowed, "shape forbidden at v1"),
                    (&unlocked, "shape locked at v1"),
                ],
            ),
            vap_binding("shapes"),
            map("stars", "v1", &star),
            map_binding("stars"),
        ],
    );

    // Allowed: the v1 policy sees the shape in the annotation; the v1 mutation is
    // converted back to v2's spec.shape.
    let cube = widget("a", "v2", json!({"color": "red", "shape": "cube"}));
    let (code, created) = create(&server, V2, &cube).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["apiVersion"], format!("{GROUP}/v2"));
    assert_eq!(created["spec"], json!({"color": "red", "shape": "star"}));
    assert!(
        created["metadata"].get("annotations").is_none(),
        "{created}"
    );
    let at_v1 = json_of(server.client().get(server.url(&format!("{V1}/a")))).await;
    assert_eq!(
        at_v1["metadata"]["annotations"][ANNOTATION], "star",
        "{at_v1}"
    );
    // The policies' versions were converted by the webhook: v2 → v1 reviews.
    let to_v1 = (converter.reviews().iter())
        .filter(|r| r.desired() == format!("{GROUP}/v1"))
        .count();
    assert!(to_v1 >= 2, "{to_v1} reviews to v1");

    // Denied: the v1 policy reads the converted annotation.
    let forbidden = widget("b", "v2", json!({"color": "red", "shape": "forbidden"}));
    let (code, status) = create(&server, V2, &forbidden).await;
    // kube's denial without a reason: Invalid, 422.
    assert_eq!(
        (code, &status["reason"]),
        (422, &json!("Invalid")),
        "{status}"
    );
    assert_eq!(
        status["message"],
        "widgets.conversion.example.com \"b\" is forbidden: ValidatingAdmissionPolicy 'shapes' with binding 'shapes-binding' denied request: shape forbidden at v1"
    );
    assert!(absent(&server, &format!("{V2}/b")).await, "nothing stored");

    // An update at v2: the old object is converted too (its shape in the annotation).
    let locked = widget("c", "v2", json!({"color": "red", "shape": "locked"}));
    let (code, created) = create(&server, V2, &locked).await;
    assert_eq!(code, 201, "{created}");
    let mut changed = created.clone();
    changed["spec"]["shape"] = json!("cone");
    let url = server.url(&format!("{V2}/c"));
    let resp = server
        .client()
        .put(url)
        .json(&changed)
        .send()
        .await
        .unwrap();
    let code = resp.status().as_u16();
    let status: Value = resp.json().await.unwrap();
    assert_eq!(code, 422, "{status}");
    assert_eq!(
        status["message"],
        "widgets.conversion.example.com \"c\" is forbidden: ValidatingAdmissionPolicy 'shapes' with binding 'shapes-binding' denied request: shape locked at v1"
    );
    let kept = json_of(server.client().get(server.url(&format!("{V2}/c")))).await;
    assert_eq!(kept["spec"]["shape"], "locked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policies_at_v2_failing_converter_config_errors_kube_texts() {
    let converter = StubConverter::start();
    let (_fake, server, _dir) = host(
        &converter,
        "/convert-fail",
        vec![vap("checks", "v2", "true", "never"), vap_binding("checks")],
    );
    // Created at v1 (stored there, no conversion but the policy's to v2, which fails).
    let object = widget("a", "v1", json!({"color": "red"}));
    let (code, status) = create(&server, V1, &object).await;
    assert_eq!(
        (code, &status["reason"]),
        (422, &json!("Invalid")),
        "{status}"
    );
    let failed = "conversion webhook for conversion.example.com/v1, Kind=Widget failed: the test converter refuses";
    assert_eq!(
        status["message"],
        format!(
            "widgets.conversion.example.com \"a\" is forbidden: ValidatingAdmissionPolicy 'checks' with binding 'checks-binding' denied request: failed to configure binding: failed to convert object version: {failed}"
        )
    );
    assert!(absent(&server, &format!("{V1}/a")).await, "nothing stored");
    assert_eq!(converter.reviews_at("/convert-fail").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_policy_at_v2_failing_converter_policy_config_error() {
    let converter = StubConverter::start();
    let (_fake, server, _dir) = host(
        &converter,
        "/convert-fail",
        vec![map("paint", "v2", "Object{}"), map_binding("paint")],
    );
    let object = widget("a", "v1", json!({"color": "red"}));
    let (code, status) = create(&server, V1, &object).await;
    assert_eq!(code, 403, "{status}");
    let failed = "conversion webhook for conversion.example.com/v1, Kind=Widget failed: the test converter refuses";
    assert_eq!(
        status["message"],
        format!("policy \"paint\" denied request: failed to configure policy: {failed}")
    );
    assert!(absent(&server, &format!("{V1}/a")).await, "nothing stored");
}
