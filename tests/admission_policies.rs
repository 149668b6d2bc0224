//! ValidatingAdmissionPolicy end to end (issue 31): the real server in dev mode following the
//! fake core API's policies, bindings and params (tests/common/fake_kube*.rs). Each test
//! asserts on the answer (code, the whole Status body, Warning headers), the object stored
//! (read back, or not stored) and, where the point is one, `/metrics` or the
//! SubjectAccessReviews the host received:
//! - `following` (issue point 1): changes followed without restart, writes waiting for the
//!   first lists then kube's "not yet ready" 403, a policy compiled once per generation;
//! - `evaluation` (points 2, 4, 5): Deny/Warn/Audit with kube's check metrics, reasons and
//!   their codes, messageExpression, lazy variables, the authorizer, cost limits;
//! - `params` (point 3): host ConfigMaps by name, namespace and selector, a cluster-scoped
//!   param, parameterNotFoundAction, a param change followed;
//! - `bad_policies`: CEL that does not compile, a paramKind the host does not serve, a selector
//!   that does not parse, per failurePolicy, never taking the good policy down.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/webhook_host.rs"]
mod webhook_host;

#[path = "admission_policies/bad_policies.rs"]
mod bad_policies;
#[path = "admission_policies/evaluation.rs"]
mod evaluation;
#[path = "admission_policies/following.rs"]
mod following;
#[path = "admission_policies/params.rs"]
mod params;

use std::time::Duration;

use common::{Server, eventually};
use serde_json::{Value, json};
use webhook_host::{Answer, answer};

/// How long a host change may take to reach the server.
const FOLLOWED_WITHIN: Duration = Duration::from_secs(15);

/// kube's rule for every operation on v1 crontabs.
fn crontab_rules() -> Value {
    json!([{"apiGroups": ["stable.example.com"], "apiVersions": ["v1"], "operations": ["*"],
        "resources": ["crontabs"], "scope": "*"}])
}

/// A ValidatingAdmissionPolicy as kube-apiserver serves it (defaults filled in) on every
/// operation on v1 crontabs, failurePolicy Fail, with `spec` merged over it.
fn vap(name: &str, spec: Value) -> Value {
    let mut policy = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
        "spec": {"failurePolicy": "Fail", "matchConstraints": {"matchPolicy": "Equivalent",
            "namespaceSelector": {}, "objectSelector": {}, "resourceRules": crontab_rules()}}});
    for (k, v) in spec.as_object().unwrap() {
        policy["spec"][k] = v.clone();
    }
    policy
}

/// A binding of `policy` for crontabs labelled `case=<case>` with `actions`, `spec` merged
/// over it.
fn binding(name: &str, policy: &str, case: &str, actions: &[&str], spec: Value) -> Value {
    let mut binding = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
        "spec": {"policyName": policy, "validationActions": actions,
            "matchResources": {"matchPolicy": "Equivalent", "namespaceSelector": {},
                "objectSelector": {"matchLabels": {"case": case}},
                "resourceRules": crontab_rules()}}});
    for (k, v) in spec.as_object().unwrap() {
        binding["spec"][k] = v.clone();
    }
    binding
}

/// A CronTab `name` in `namespace`, labelled `case=<case>`, with `replicas`.
fn crontab_in(namespace: &str, name: &str, case: &str, replicas: i64) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name, "namespace": namespace, "labels": {"case": case}},
        "spec": {"cronSpec": "* * * * */5", "image": "my-cron-image", "replicas": replicas}})
}

fn crontab(name: &str, case: &str, replicas: i64) -> Value {
    crontab_in("default", name, case, replicas)
}

fn crontabs_of(namespace: &str) -> String {
    format!("/apis/stable.example.com/v1/namespaces/{namespace}/crontabs")
}

/// POSTs `object` into its namespace as the admin.
async fn create(server: &Server, object: &Value) -> Answer {
    let namespace = object["metadata"]["namespace"].as_str().unwrap();
    let url = server.url(&crontabs_of(namespace));
    answer(server.client().post(url).json(object).send().await.unwrap())
        .await
        .unwrap()
}

/// The stored CronTab `name` of `namespace`, if any.
async fn stored_in(server: &Server, namespace: &str, name: &str) -> Option<Value> {
    let url = server.url(&format!("{}/{name}", crontabs_of(namespace)));
    let resp = server.client().get(url).send().await.unwrap();
    match resp.status().as_u16() {
        200 => Some(resp.json().await.unwrap()),
        404 => None,
        code => panic!("GET {namespace}/{name}: {code}"),
    }
}

async fn stored(server: &Server, name: &str) -> Option<Value> {
    stored_in(server, "default", name).await
}

/// The create answered 201 and the object stored is the one answered.
async fn assert_created(server: &Server, object: &Value, answer: &Answer) {
    let name = object["metadata"]["name"].as_str().unwrap();
    let namespace = object["metadata"]["namespace"].as_str().unwrap();
    assert_eq!(answer.code, 201, "{name}: {:?}", answer.body);
    let found = stored_in(server, namespace, name).await.expect("stored");
    assert_eq!(found["metadata"]["uid"], answer.body["metadata"]["uid"]);
    assert_eq!(found["spec"], object["spec"]);
}

/// The create answered exactly `want` (a Status) and nothing was stored.
async fn assert_refused(server: &Server, object: &Value, answer: &Answer, want: &Value) {
    let name = object["metadata"]["name"].as_str().unwrap();
    let namespace = object["metadata"]["namespace"].as_str().unwrap();
    assert_eq!(
        (answer.code, &answer.body),
        (want["code"].as_u64().unwrap() as u16, want)
    );
    assert_eq!(
        stored_in(server, namespace, name).await,
        None,
        "{name} stored"
    );
}

/// kube's answer when ValidatingAdmissionPolicy `policy` (through `binding`, if any) denies
/// CronTab `name` with `message` and `reason` (its code from kube's table).
fn denial(name: &str, policy: &str, binding: Option<&str>, message: &str, reason: &str) -> Value {
    let said = match binding {
        Some(b) => format!(
            "ValidatingAdmissionPolicy '{policy}' with binding '{b}' denied request: {message}"
        ),
        None => format!("ValidatingAdmissionPolicy '{policy}' denied request: {message}"),
    };
    let code = match reason {
        "Unauthorized" => 401,
        "Forbidden" => 403,
        "RequestEntityTooLarge" => 413,
        _ => 422,
    };
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": format!("crontabs.stable.example.com \"{name}\" is forbidden: {said}"),
        "reason": reason,
        "details": {"name": name, "group": "stable.example.com", "kind": "crontabs",
            "causes": [{"message": said}]},
        "code": code})
}

/// Creates `object` renamed `<name>-<n>` for n = 1, 2, … until its answer satisfies `done`
/// (a host change reached the server); returns the object sent and the answer.
async fn create_until(
    server: &Server,
    object: &Value,
    done: impl Fn(&Answer) -> bool,
) -> (Value, Answer) {
    let (mut n, done) = (0, &done);
    let base = object["metadata"]["name"].as_str().unwrap().to_string();
    eventually(FOLLOWED_WITHIN, &base.clone(), || {
        n += 1;
        let mut object = object.clone();
        object["metadata"]["name"] = json!(format!("{base}-{n}"));
        async move {
            let answer = create(server, &object).await;
            done(&answer).then_some((object, answer))
        }
    })
    .await
}

/// The sample of `series` whose labels are exactly `labels`.
fn sample(metrics: &str, series: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let mut want: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect();
    want.sort();
    metrics.lines().find_map(|line| {
        let (sample, number) = line.rsplit_once(' ')?;
        let (name, rest) = sample.split_once('{').unwrap_or((sample, "}"));
        let mut got: Vec<String> = rest
            .strip_suffix('}')?
            .split(',')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        got.sort();
        (name == series && got == want).then(|| number.parse().unwrap())
    })
}

/// The server's CPU time so far (utime + stime of /proc/<pid>/stat).
fn cpu(server: &Server) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", server.pid())).unwrap();
    // Fields after the command name start at state (field 3); utime, stime are 14 and 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // USER_HZ is 100 on every Linux platform we run on.
    Duration::from_millis(ticks * 10)
}
