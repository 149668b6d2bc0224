//! MutatingAdmissionPolicy end to end (issue 31, point 6): the real server in dev mode
//! following the fake core API's MutatingAdmissionPolicies and bindings (and param
//! ConfigMaps, a mutating webhook: tests/common/webhook.rs). Each test writes CronTabs
//! and asserts on the answer's body and the object stored (read back): ApplyConfiguration
//! and JSONPatch mutations, reinvocation after a mutating webhook, failurePolicy, params,
//! a mutation producing an invalid object (the CRD's 422), and a policy whose CEL does not
//! compile (per its failurePolicy, the other policies still applied).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/webhook.rs"]
mod webhook;
#[path = "common/webhook_host.rs"]
mod webhook_host;

use std::time::Duration;

use common::Server;
use fake_kube::FakeKube;
use serde_json::{Value, json};
use webhook::{Behaviour, Webhook};
use webhook_host::{CRONTABS, crontab, start_server};

const V1: &str = "admissionregistration.k8s.io/v1";

/// A policy on every v1 CronTab with `mutations`, and `spec` fields added.
fn policy(name: &str, mutations: Value, extra: Value) -> Value {
    let mut spec = json!({"failurePolicy": "Fail", "reinvocationPolicy": "Never",
        "matchConstraints": {"matchPolicy": "Equivalent", "namespaceSelector": {},
            "objectSelector": {}, "resourceRules": [{"apiGroups": ["stable.example.com"],
            "apiVersions": ["v1"], "operations": ["*"], "resources": ["crontabs"],
            "scope": "*"}]},
        "mutations": mutations});
    for (k, v) in extra.as_object().unwrap() {
        spec[k] = v.clone();
    }
    json!({"apiVersion": V1, "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": name, "generation": 1}, "spec": spec})
}

/// A binding of `policy` for CronTabs labelled `case: <case>`, with `param_ref`.
fn binding(policy: &str, case: &str, param_ref: Option<Value>) -> Value {
    let mut spec = json!({"policyName": policy, "matchResources": {"matchPolicy": "Equivalent",
        "namespaceSelector": {}, "objectSelector": {"matchLabels": {"case": case}}}});
    if let Some(param_ref) = param_ref {
        spec["paramRef"] = param_ref;
    }
    json!({"apiVersion": V1, "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": format!("{policy}-binding"), "generation": 1}, "spec": spec})
}

fn ac(expression: &str) -> Value {
    json!({"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}})
}

fn jp(expression: &str) -> Value {
    json!({"patchType": "JSONPatch", "jsonPatch": {"expression": expression}})
}

/// The fake core API serving `objects` and a server following it.
fn host(objects: Vec<Value>) -> (FakeKube, Server) {
    let fake = FakeKube::start();
    for object in objects {
        fake.put_object(object);
    }
    let server = start_server(&fake, &[]);
    (fake, server)
}

/// POSTs a CronTab `name` labelled `case: <case>`: code and body.
async fn create(server: &Server, name: &str, case: &str) -> (u16, Value) {
    let body = crontab(name, &[("case", case)]);
    let response = server
        .client()
        .post(server.url(CRONTABS))
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

/// The stored CronTab `name` (`None` when there is none).
async fn stored(server: &Server, name: &str) -> Option<Value> {
    let url = server.url(&format!("{CRONTABS}/{name}"));
    let response = server.client().get(url).send().await.unwrap();
    match response.status().as_u16() {
        404 => None,
        200 => Some(response.json().await.unwrap()),
        code => panic!("GET {name}: {code}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_configuration_merged_into_stored_object() {
    let mutation = ac(
        "Object{metadata: Object.metadata{labels: {'owner': 'policy'}}, \
         spec: Object.spec{replicas: 3, image: object.spec.image + ':v2'}}",
    );
    let (_fake, server) = host(vec![
        policy("ac", json!([mutation]), json!({})),
        binding("ac", "ac", None),
    ]);
    let (code, body) = create(&server, "ac0", "ac").await;
    assert_eq!(code, 201, "{body}");
    let object = stored(&server, "ac0").await.unwrap();
    assert_eq!(
        object["metadata"]["labels"],
        json!({"case": "ac", "owner": "policy"}),
        "labels merged"
    );
    assert_eq!(
        object["spec"],
        json!({"cronSpec": "* * * * */5", "image": "my-cron-image:v2", "replicas": 3})
    );
    assert_eq!(
        body["spec"], object["spec"],
        "the answer is the stored object"
    );
    // A CronTab the binding does not select is left alone.
    let (code, _) = create(&server, "other0", "other").await;
    assert_eq!(code, 201);
    let other = stored(&server, "other0").await.unwrap();
    assert_eq!(other["spec"].get("replicas"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_patch_mutations_applied_in_order() {
    let first = jp(r#"[JSONPatch{op: "add", path: "/spec/replicas", value: 2},
        JSONPatch{op: "add", path: "/metadata/annotations", value: {}},
        JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/seen"), value: "first"}]"#);
    let second = jp(
        r#"[JSONPatch{op: "replace", path: "/spec/replicas", value: object.spec.replicas * 10}]"#,
    );
    let (_fake, server) = host(vec![
        policy("jp", json!([first, second]), json!({})),
        binding("jp", "jp", None),
    ]);
    let (code, body) = create(&server, "jp0", "jp").await;
    assert_eq!(code, 201, "{body}");
    let object = stored(&server, "jp0").await.unwrap();
    assert_eq!(
        object["spec"]["replicas"],
        json!(20),
        "second saw the first's result"
    );
    assert_eq!(
        object["metadata"]["annotations"],
        json!({"example.com/seen": "first"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reinvocation_if_needed_policy_sees_webhook_change() {
    let webhook = Webhook::start(&["localhost"]);
    webhook.on(
        "/mutate",
        Behaviour::Patch(
            json!([{"op": "add", "path": "/metadata/labels/mutated-by", "value": "webhook"}]),
        ),
    );
    let seen = "Object{metadata: Object.metadata{annotations: {'seen-webhook': \
        'mutated-by' in object.metadata.labels ? 'yes' : 'no'}}}";
    let client_config = webhook_host::url_config(&webhook.url("/mutate"), &webhook.ca_pem());
    let mut configuration = webhook_host::mutating(
        "mutate",
        vec![webhook_host::hook("mutate.example.com", client_config)],
    );
    configuration["apiVersion"] = json!(V1);
    configuration["metadata"]["generation"] = json!(1);
    let (_fake, server) = host(vec![
        policy(
            "if-needed",
            json!([ac(seen)]),
            json!({"reinvocationPolicy": "IfNeeded"}),
        ),
        binding("if-needed", "ifneeded", None),
        policy("never", json!([ac(seen)]), json!({})),
        binding("never", "never", None),
        configuration,
    ]);
    let (code, body) = create(&server, "re0", "ifneeded").await;
    assert_eq!(code, 201, "{body}");
    let object = stored(&server, "re0").await.unwrap();
    assert_eq!(object["metadata"]["labels"]["mutated-by"], json!("webhook"));
    assert_eq!(
        object["metadata"]["annotations"]["seen-webhook"],
        json!("yes"),
        "IfNeeded: run again after the webhook changed the object"
    );
    let (code, body) = create(&server, "re1", "never").await;
    assert_eq!(code, 201, "{body}");
    let object = stored(&server, "re1").await.unwrap();
    assert_eq!(
        object["metadata"]["annotations"]["seen-webhook"],
        json!("no")
    );
    // The webhook ran once per request: a policy's reinvocation does not reinvoke it
    // (reinvocationPolicy Never) though the policy changed the object again.
    let reviews = webhook.reviews_at("/mutate");
    assert_eq!(reviews.len(), 2, "one call per create");
    let policy_ran_first = &reviews[0].request()["object"]["metadata"]["annotations"];
    assert_eq!(
        policy_ran_first["seen-webhook"],
        json!("no"),
        "policies run before webhooks"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failure_policy_fail_denies_ignore_admits_unmutated() {
    let broken = "Object{spec: Object.spec{replicas: object.spec.nosuch}}";
    let (_fake, server) = host(vec![
        policy("fails", json!([ac(broken)]), json!({})),
        binding("fails", "fail", None),
        policy(
            "ignores",
            json!([ac(broken)]),
            json!({"failurePolicy": "Ignore"}),
        ),
        binding("ignores", "ignore", None),
    ]);
    let (code, body) = create(&server, "fp0", "fail").await;
    assert_eq!(code, 403, "{body}");
    let message = format!(
        "policy 'fails' with binding 'fails-binding' denied request: expression '{broken}' resulted in error: no such key: nosuch"
    );
    assert_eq!(body["reason"], json!("Invalid"));
    assert_eq!(body["message"], json!(message));
    assert_eq!(body["details"]["causes"], json!([{"message": message}]));
    assert_eq!(stored(&server, "fp0").await, None, "nothing stored");
    let (code, body) = create(&server, "fp1", "ignore").await;
    assert_eq!(code, 201, "{body}");
    let object = stored(&server, "fp1").await.unwrap();
    assert_eq!(object["spec"], crontab("fp1", &[])["spec"], "unmutated");
    // kube's mutating admission policy metrics: one check per mutation run.
    let metrics = server.metrics().await;
    for policy in ["fails", "ignores"] {
        let line = format!(
            "apiserver_mutating_admission_policy_check_total{{policy=\"{policy}\",policy_binding=\"{policy}-binding\",error_type=\"invalid_error\"}} 1"
        );
        assert!(metrics.contains(&line), "{line} in\n{metrics}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn params_from_configmap_applied_missing_denied() {
    let params = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "owner", "namespace": "params"},
        "data": {"owner": "from-params@example.com", "replicas": "3"}});
    let mutation = ac(
        "Object{spec: Object.spec{owner: params.data.owner, replicas: int(params.data.replicas)}}",
    );
    let param_kind = json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}});
    let mut missing = binding("from-params", "missing", None);
    missing["metadata"]["name"] = json!("from-params-missing");
    missing["spec"]["paramRef"] =
        json!({"name": "nope", "namespace": "params", "parameterNotFoundAction": "Deny"});
    let (_fake, server) = host(vec![
        params,
        policy("from-params", json!([mutation]), param_kind),
        binding(
            "from-params",
            "params",
            Some(
                json!({"name": "owner", "namespace": "params", "parameterNotFoundAction": "Deny"}),
            ),
        ),
        missing,
    ]);
    // The param kind's informer starts with the policy: its first list may come after
    // the first request (reported as "paramKind kind ... not known"); wait for it with
    // dry runs, which store nothing.
    let probe = crontab("probe", &[("case", "params")]);
    let url = server.url(&format!("{CRONTABS}?dryRun=All"));
    common::eventually(Duration::from_secs(10), "params served", || async {
        let response = server
            .client()
            .post(&url)
            .json(&probe)
            .send()
            .await
            .unwrap();
        (response.status().as_u16() == 201).then_some(())
    })
    .await;
    let (code, body) = create(&server, "pa0", "params").await;
    assert_eq!(code, 201, "{body}");
    let object = stored(&server, "pa0").await.unwrap();
    assert_eq!(object["spec"]["owner"], json!("from-params@example.com"));
    assert_eq!(object["spec"]["replicas"], json!(3));
    let (code, body) = create(&server, "pa1", "missing").await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        json!(
            "policy 'from-params' with binding 'from-params-missing' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"
        )
    );
    assert_eq!(stored(&server, "pa1").await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutation_producing_invalid_object_refused_by_crd_validation() {
    let invalid = jp(r#"[JSONPatch{op: "add", path: "/spec/replicas", value: "many"}]"#);
    let (_fake, server) = host(vec![
        policy(
            "invalid",
            json!([invalid]),
            json!({"failurePolicy": "Ignore"}),
        ),
        binding("invalid", "invalid", None),
    ]);
    let (code, body) = create(&server, "in0", "invalid").await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(body["reason"], json!("Invalid"));
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with("CronTab.stable.example.com \"in0\" is invalid: ")
            && message.contains("spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\""),
        "{message}"
    );
    assert_eq!(stored(&server, "in0").await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compile_error_per_failure_policy_other_policies_still_applied() {
    let good = ac("Object{spec: Object.spec{replicas: 7}}");
    let (_fake, server) = host(vec![
        policy("broken-fail", json!([ac("Object{spec: ")]), json!({})),
        binding("broken-fail", "fail", None),
        policy(
            "broken-ignore",
            json!([ac("object.spec")]),
            json!({"failurePolicy": "Ignore"}),
        ),
        binding("broken-ignore", "ignore", None),
        policy("good", json!([good]), json!({})),
        {
            let mut b = binding("good", "ignore", None);
            b["spec"]["matchResources"]["objectSelector"] = json!({});
            b
        },
    ]);
    let (code, body) = create(&server, "ce0", "fail").await;
    assert_eq!(code, 403, "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with("policy 'broken-fail' with binding 'broken-fail-binding' denied request: compilation failed: ERROR: <input>:1:14: Syntax error:"),
        "{message}"
    );
    let (code, body) = create(&server, "ce1", "ignore").await;
    assert_eq!(code, 201, "{body}");
    let object = stored(&server, "ce1").await.unwrap();
    assert_eq!(
        object["spec"]["replicas"],
        json!(7),
        "the good policy applied"
    );
}
