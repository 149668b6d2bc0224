//! Admission policy params from the resources we serve (issue 31 point 3): a
//! ValidatingAdmissionPolicy whose `paramKind` is our own CronTab reads its params from
//! our storage, as we serve them (apiVersion and kind of the paramKind's version), with
//! no round trip through the host (the fake core API does not serve CronTabs at all), and
//! sees a param created or deleted just before the request.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/webhook.rs"]
mod webhook;
#[path = "common/webhook_host.rs"]
mod webhook_host;

use fake_kube::FakeKube;
use serde_json::{Value, json};
use webhook_host::start_server;

const CRONTABS: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

/// A policy on crontabs labelled `case=params` whose params are CronTabs (v2), and its
/// binding naming the param `reserved` in the request's namespace (Allow when absent).
fn policy_and_binding() -> [Value; 2] {
    let message = "'cronSpec ' + params.spec.cronSpec + ' is taken by ' + params.metadata.name \
        + ' (' + params.apiVersion + ' ' + params.kind + ')'";
    let policy = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "reserved-spec"},
        "spec": {"failurePolicy": "Fail",
            "paramKind": {"apiVersion": "stable.example.com/v2", "kind": "CronTab"},
            "matchConstraints": {"namespaceSelector": {}, "objectSelector": {}, "matchPolicy": "Equivalent",
                "resourceRules": [{"operations": ["CREATE"], "apiGroups": ["stable.example.com"],
                    "apiVersions": ["*"], "resources": ["crontabs"], "scope": "*"}]},
            "validations": [{"expression": "object.spec.cronSpec != params.spec.cronSpec",
                "messageExpression": message}]}});
    let binding = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "reserved-binding"},
        "spec": {"policyName": "reserved-spec", "validationActions": ["Deny"],
            "paramRef": {"name": "reserved", "parameterNotFoundAction": "Allow"},
            "matchResources": {"namespaceSelector": {}, "objectSelector": {"matchLabels": {"case": "params"}},
                "matchPolicy": "Equivalent"}}});
    [policy, binding]
}

fn crontab(name: &str, cron_spec: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name, "labels": {"case": "params"}},
        "spec": {"cronSpec": cron_spec, "image": "img", "replicas": 1}})
}

async fn create(server: &common::Server, object: &Value) -> (u16, Value) {
    let response = server
        .client()
        .post(server.url(CRONTABS))
        .json(object)
        .send()
        .await
        .unwrap();
    let code = response.status().as_u16();
    (code, response.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn own_resource_param_read_from_our_storage_denies_then_allows_when_deleted() {
    let fake = FakeKube::start();
    for object in policy_and_binding() {
        fake.put_object(object);
    }
    let server = start_server(&fake, &[]);
    let client = server.client();

    // No param yet: Allow, so the policy is not evaluated.
    let (code, body) = create(&server, &crontab("first", "1 2 3 4 5")).await;
    assert_eq!(code, 201, "{body}");
    // The param itself, created just before it is used.
    let (code, body) = create(&server, &crontab("reserved", "5 4 3 2 1")).await;
    assert_eq!(code, 201, "{body}");

    let (code, body) = create(&server, &crontab("clash", "5 4 3 2 1")).await;
    assert_eq!(code, 422, "{body}"); // kube: no reason given is Invalid
    let expected = "crontabs.stable.example.com \"clash\" is forbidden: ValidatingAdmissionPolicy \
        'reserved-spec' with binding 'reserved-binding' denied request: cronSpec 5 4 3 2 1 is taken \
        by reserved (stable.example.com/v2 CronTab)";
    assert_eq!(body["message"], expected, "{body}");
    assert_eq!(body["reason"], "Invalid", "{body}");
    let stored = client
        .get(server.url(&format!("{CRONTABS}/clash")))
        .send()
        .await
        .unwrap();
    assert_eq!(
        stored.status().as_u16(),
        404,
        "a denied create stores nothing"
    );

    // Another spec passes against the param.
    let (code, body) = create(&server, &crontab("other", "0 0 * * *")).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(body["spec"]["cronSpec"], "0 0 * * *");

    // The param deleted: no param, Allow.
    let deleted = client
        .delete(server.url(&format!("{CRONTABS}/reserved")))
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status().as_u16(), 200);
    let (code, body) = create(&server, &crontab("clash", "5 4 3 2 1")).await;
    assert_eq!(code, 201, "{body}");
}
