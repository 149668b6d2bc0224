#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use serde_json::{Value as Json, json};

use super::{Activation, AdmissionProgram};
use crate::cel::env;
use crate::cel::eval::CostTracker;
use crate::cel::lib::authz::{
    Answer, Attributes, Authorizer, Decision, User, authorizer_value, request_resource_value,
};
use crate::cel::value::Value;

/// Allows `get`, denies anything else with a reason, errs on `error`; records each ask.
#[derive(Default)]
struct Recorder {
    asked: Mutex<Vec<Attributes>>,
}

impl Authorizer for Recorder {
    fn authorize(&self, attributes: &Attributes) -> Answer {
        self.asked.lock().unwrap().push(attributes.clone());
        match attributes.verb.as_str() {
            "get" => Answer {
                decision: Decision::Allow,
                reason: "rbac says so".into(),
                error: None,
            },
            "error" => Answer {
                decision: Decision::NoOpinion,
                reason: String::new(),
                error: Some("webhook authorizer unreachable".into()),
            },
            _ => Answer {
                decision: Decision::Deny,
                reason: "no rule".into(),
                error: None,
            },
        }
    }
}

fn user() -> User {
    User {
        name: "alice".into(),
        uid: "u-1".into(),
        groups: vec!["devs".into()],
        ..User::default()
    }
}

fn request() -> Json {
    json!({
        "kind": {"group": "stable.example.com", "version": "v1", "kind": "CronTab"},
        "resource": {"group": "stable.example.com", "version": "v1", "resource": "crontabs"},
        "requestKind": {"group": "stable.example.com", "version": "v1", "kind": "CronTab"},
        "requestResource": {"group": "stable.example.com", "version": "v1", "resource": "crontabs"},
        "name": "c1",
        "namespace": "ns1",
        "operation": "CREATE",
        "userInfo": {"username": "alice", "groups": ["devs"]},
        "dryRun": false,
        "options": null,
    })
}

/// Compiles and evaluates `expr` against `object` (no old object); `true`, `false`,
/// `error: <text>` or `compile: <text>`, with the run-time cost.
fn run(expr: &str, object: Option<&Json>, authz: &Arc<Recorder>) -> (String, u64) {
    let program = match AdmissionProgram::compile(&env::stored(), expr) {
        Ok(p) => p,
        Err(e) => return (format!("compile: {e}"), 0),
    };
    let request = request();
    let authorizer: Arc<dyn Authorizer> = authz.clone();
    let resource = ["stable.example.com", "crontabs", "", "ns1", "c1"];
    let activation = Activation {
        object,
        old_object: None,
        namespace_object: None,
        request: &request,
        authorizer: authorizer_value(user(), Arc::clone(&authorizer)),
        request_resource: request_resource_value(user(), authorizer, resource),
    };
    let mut tracker = CostTracker {
        actual: 0,
        limit: Some(1_000_000),
    };
    let out = match program.evaluate(&activation, &mut tracker) {
        Ok(Value::Bool(b)) => b.to_string(),
        Ok(other) => format!("{other:?}"),
        Err(e) => format!("error: {e}"),
    };
    (out, tracker.actual)
}

fn outcome(expr: &str, object: Option<&Json>) -> String {
    run(expr, object, &Arc::new(Recorder::default())).0
}

#[test]
fn admission_variables_read_like_kube() {
    let object = json!({
        "apiVersion": "stable.example.com/v1",
        "kind": "CronTab",
        "metadata": {"name": "c1", "labels": {"team": "a"}},
        "spec": {"replicas": 3, "ratio": 0.5, "tags": ["x", "y"], "gone": null},
    });
    let cases = [
        ("object.metadata.name == 'c1'", "true"),
        ("object.metadata.labels['team'] == 'a'", "true"),
        (
            "has(object.metadata.labels) && !has(object.metadata.annotations)",
            "true",
        ),
        (
            "object.spec.replicas == 3 && type(object.spec.replicas) == int",
            "true",
        ),
        ("type(object.spec.ratio) == double", "true"),
        (
            "object.spec.tags.exists(t, t == 'y') && size(object.spec.tags) == 2",
            "true",
        ),
        ("object.spec.gone == null && has(object.spec.gone)", "true"),
        (
            "object.metadata.labels == {'team': 'a'} && object.spec.tags == ['x', 'y']",
            "true",
        ),
        (
            "object.spec.tags != ['y', 'x'] && object.metadata != {'name': 'c1'}",
            "true",
        ),
        ("object.spec.missing == 1", "error: no such key: missing"),
        ("oldObject == null", "true"),
        ("namespaceObject == null", "true"),
        (
            "request.operation == 'CREATE' && request.name == 'c1'",
            "true",
        ),
        ("request.namespace == 'ns1'", "true"),
        (
            "request.kind.kind == 'CronTab' && request.resource.resource == 'crontabs'",
            "true",
        ),
        (
            "request.userInfo.username == 'alice' && 'devs' in request.userInfo.groups",
            "true",
        ),
        ("request.dryRun == false && request.options == null", "true"),
        ("has(request.subResource)", "false"),
        (
            "request.subResource == ''",
            "error: no such key: subResource",
        ),
        ("has(request.userInfo.extra)", "false"),
    ];
    for (expr, want) in cases {
        assert_eq!(outcome(expr, Some(&object)), want, "{expr}");
    }
    assert_eq!(outcome("object == null", None), "true");
}

#[test]
fn admission_compile_errors_use_kube_texts() {
    let cases = [
        (
            "object.spec.enabled",
            "compile: must evaluate to bool but got dyn",
        ),
        (
            "request.name",
            "compile: must evaluate to bool but got string",
        ),
        (
            "request.kind",
            "compile: must evaluate to bool but got kubernetes.GroupVersionKind",
        ),
        (
            "request.uid == ''",
            "compile: compilation failed: ERROR: <input>:1:8: undefined field 'uid'",
        ),
        (
            "params.x == 1",
            "compile: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')",
        ),
        (
            "object.(",
            "compile: compilation failed: ERROR: <input>:1:8: Syntax error:",
        ),
        (
            "authorizer.check('get')",
            "compile: compilation failed: ERROR: <input>:1:17: found no matching overload for 'check' applied to 'kubernetes.authorization.Authorizer.(string)'",
        ),
    ];
    for (expr, want) in cases {
        let got = outcome(expr, None);
        assert!(got.starts_with(want), "{expr}: {got}");
    }
}

#[test]
fn authorizer_library_asks_the_authorizer_as_kube_does() {
    let cases: [(&str, &str, Attributes); 4] = [
        (
            "authorizer.path('/healthz').check('get').allowed()",
            "true",
            Attributes {
                user: user(),
                verb: "get".into(),
                path: "/healthz".into(),
                ..Attributes::default()
            },
        ),
        (
            "authorizer.group('apps').resource('deployments').subresource('scale').namespace('n').name('d').check('update').reason() == 'no rule'",
            "true",
            resource_attributes("update", "apps", "deployments", "scale", "n", "d"),
        ),
        (
            "authorizer.requestResource.check('get').allowed()",
            "true",
            resource_attributes("get", "stable.example.com", "crontabs", "", "ns1", "c1"),
        ),
        (
            "authorizer.serviceAccount('kube-system', 'ctl').group('').resource('pods').labelSelector('a=b').fieldSelector('x=y').check('list').allowed()",
            "false",
            Attributes {
                user: User {
                    name: "system:serviceaccount:kube-system:ctl".into(),
                    groups: vec![
                        "system:serviceaccounts".into(),
                        "system:serviceaccounts:kube-system".into(),
                    ],
                    ..User::default()
                },
                field_selector: "x=y".into(),
                label_selector: "a=b".into(),
                ..resource_attributes("list", "", "pods", "", "", "")
            },
        ),
    ];
    for (expr, want, asked) in cases {
        let authz = Arc::new(Recorder::default());
        let (got, cost) = run(expr, None, &authz);
        assert_eq!(got, want, "{expr}");
        assert_eq!(*authz.asked.lock().unwrap(), vec![asked], "{expr}");
        assert!((350_000..351_000).contains(&cost), "{expr}: cost {cost}");
    }
}

fn resource_attributes(
    verb: &str,
    group: &str,
    resource: &str,
    sub: &str,
    ns: &str,
    name: &str,
) -> Attributes {
    Attributes {
        user: user(),
        verb: verb.into(),
        resource_request: true,
        api_group: group.into(),
        api_version: "*".into(),
        resource: resource.into(),
        subresource: sub.into(),
        namespace: ns.into(),
        name: name.into(),
        ..Attributes::default()
    }
}

#[test]
fn authorizer_library_decisions_and_argument_errors() {
    let cases = [
        ("authorizer.path('/x').check('error').errored()", "true"),
        (
            "authorizer.path('/x').check('error').error() == 'webhook authorizer unreachable'",
            "true",
        ),
        (
            "authorizer.path('/x').check('get').error() == '' && !authorizer.path('/x').check('get').errored()",
            "true",
        ),
        ("authorizer.path('/x').check('error').allowed()", "false"),
        (
            "authorizer.path(' ').check('get').allowed()",
            "error: path must not be empty",
        ),
        (
            "authorizer.group('').resource('').check('get').allowed()",
            "error: resource must not be empty",
        ),
        (
            "authorizer.serviceAccount('ns', 'Bad_Name').path('/x').check('get').allowed()",
            "error: Invalid service account name",
        ),
        (
            "authorizer.serviceAccount('a.b', 'sa').path('/x').check('get').allowed()",
            "error: Invalid service account namespace",
        ),
        ("authorizer == authorizer", "error: no such overload"),
    ];
    for (expr, want) in cases {
        assert_eq!(outcome(expr, None), want, "{expr}");
    }
}

#[test]
fn authorizer_checks_beyond_the_per_call_limit_stop_evaluation() {
    let authz = Arc::new(Recorder::default());
    let three = "[authorizer.path('/a').check('get'), authorizer.path('/b').check('get'), authorizer.path('/c').check('get')].size() == 3";
    let (got, cost) = run(three, None, &authz);
    assert_eq!(
        got,
        "error: operation cancelled: actual cost limit exceeded"
    );
    assert!(cost > 1_000_000, "{cost}");
    let (got, _) = run(
        "[authorizer.path('/a').check('get'), authorizer.path('/b').check('get')].size() == 2",
        None,
        &authz,
    );
    assert_eq!(got, "true");
}
