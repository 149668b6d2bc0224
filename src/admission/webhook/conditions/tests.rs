#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value as Json, json};

use super::{
    Answer, Attributes, Authorizer, ConditionError, ConditionInput, Decision, Gvk, Gvr,
    MatchConditions, request_json,
};
use crate::request::user::UserInfo;

/// Allows everything; records what it was asked.
#[derive(Default)]
struct Recorder {
    asked: Mutex<Vec<Attributes>>,
}

impl Authorizer for Recorder {
    fn authorize(&self, attributes: &Attributes) -> Answer {
        self.asked.lock().unwrap().push(attributes.clone());
        Answer {
            decision: Decision::Allow,
            reason: String::new(),
            error: None,
        }
    }
}

const V2: Gvk<'static> = Gvk {
    group: "stable.example.com",
    version: "v2",
    kind: "CronTab",
};
const V1: Gvk<'static> = Gvk {
    group: "stable.example.com",
    version: "v1",
    kind: "CronTab",
};
const CRONTABS: Gvr<'static> = Gvr {
    group: "stable.example.com",
    version: "v1",
    resource: "crontabs",
};

fn user() -> UserInfo {
    UserInfo {
        name: "alice".into(),
        uid: "u-1".into(),
        groups: vec!["devs".into(), "system:authenticated".into()],
        extra: BTreeMap::from([("scopes".to_string(), vec!["a".to_string()])]),
    }
}

fn input<'a>(
    user: &'a UserInfo,
    object: Option<&'a Json>,
    options: Option<&'a Json>,
) -> ConditionInput<'a> {
    ConditionInput {
        kind: V2,
        request_kind: V1,
        resource: CRONTABS,
        request_resource: CRONTABS,
        sub_resource: "status",
        name: "c1",
        namespace: "ns1",
        operation: "UPDATE",
        user,
        dry_run: true,
        options,
        object,
        old_object: object,
    }
}

fn conditions(exprs: &[&str]) -> MatchConditions {
    let pairs: Vec<(String, String)> = exprs
        .iter()
        .enumerate()
        .map(|(i, e)| (format!("c{i}"), e.to_string()))
        .collect();
    MatchConditions::compile(&pairs)
}

fn evaluate(exprs: &[&str]) -> Result<bool, ConditionError> {
    let user = user();
    let object = json!({"metadata": {"name": "c1", "labels": {"env": "prod"}}});
    let authz: Arc<dyn Authorizer> = Arc::new(Recorder::default());
    conditions(exprs).evaluate(&input(&user, Some(&object), None), &authz)
}

#[test]
fn request_json_is_kubes_admission_request_with_omitted_empties() {
    let user = user();
    let options = json!({"kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1"});
    let got = request_json(&input(&user, None, Some(&options)));
    let want = json!({
        "kind": {"group": "stable.example.com", "version": "v2", "kind": "CronTab"},
        "resource": {"group": "stable.example.com", "version": "v1", "resource": "crontabs"},
        "subResource": "status",
        "requestKind": {"group": "stable.example.com", "version": "v1", "kind": "CronTab"},
        "requestResource": {"group": "stable.example.com", "version": "v1", "resource": "crontabs"},
        "requestSubResource": "status",
        "name": "c1",
        "namespace": "ns1",
        "operation": "UPDATE",
        "userInfo": {
            "username": "alice", "uid": "u-1",
            "groups": ["devs", "system:authenticated"], "extra": {"scopes": ["a"]},
        },
        "dryRun": true,
        "options": {"kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1"},
    });
    assert_eq!(got, want);
    let anonymous = UserInfo::new(String::new(), Vec::new());
    let bare = ConditionInput {
        sub_resource: "",
        name: "",
        namespace: "",
        ..input(&anonymous, None, None)
    };
    let got = request_json(&bare);
    let keys: Vec<&str> = got
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let want = [
        "dryRun",
        "kind",
        "operation",
        "options",
        "requestKind",
        "requestResource",
        "resource",
        "userInfo",
    ];
    assert_eq!(keys, want);
    assert_eq!(got["userInfo"], json!({}));
    assert_eq!(got["options"], Json::Null);
}

#[test]
fn match_conditions_outcomes_follow_kubes_matcher() {
    let broken = "object.metadata.name";
    let erroring = "object.spec.x == 1";
    let compile_error = "compilation error: must evaluate to bool but got dyn";
    let eval_error = "expression 'object.spec.x == 1' resulted in error: no such key: spec";
    let cases: Vec<(Vec<&str>, Result<bool, ConditionError>)> = vec![
        (vec![], Ok(true)),
        (
            vec!["true", "object.metadata.labels.env == 'prod'"],
            Ok(true),
        ),
        (vec!["true", "request.kind.version == 'v1'"], Ok(false)),
        // false wins over errors before and after it
        (vec![erroring, "false", broken], Ok(false)),
        (
            vec![erroring],
            Err(ConditionError::Failed(vec![eval_error.into()])),
        ),
        (
            vec![broken, "true", erroring],
            Err(ConditionError::Failed(vec![
                compile_error.into(),
                eval_error.into(),
            ])),
        ),
        (
            vec![
                "request.userInfo.username == 'alice' && request.dryRun",
                "has(request.options) && request.options == null",
            ],
            Ok(true),
        ),
        (
            vec!["request.resource.version == 'v1' && request.kind.version == 'v2'"],
            Ok(true),
        ),
    ];
    for (exprs, want) in cases {
        assert_eq!(evaluate(&exprs), want, "{exprs:?}");
    }
}

#[test]
fn condition_errors_display_kubes_texts() {
    let one = ConditionError::Failed(vec!["a".into()]);
    assert_eq!(one.to_string(), "a");
    let repeated = ConditionError::Failed(vec!["a".into(), "a".into()]);
    assert_eq!(repeated.to_string(), "a");
    let two = ConditionError::Failed(vec!["a".into(), "b".into(), "a".into()]);
    assert_eq!(two.to_string(), "[a, b]");
    assert_eq!(
        ConditionError::OutOfBudget.to_string(),
        "validation failed due to running out of cost budget, no further validation rules will be run"
    );
    let compile = evaluate(&["object.("]).unwrap_err().to_string();
    assert!(
        compile.starts_with(
            "compilation error: compilation failed: ERROR: <input>:1:8: Syntax error:"
        ),
        "{compile}"
    );
}

/// kube's plugin enforces no count (the reference evaluated 65): only the host's API
/// validation refuses more than 64.
#[test]
fn match_conditions_over_64_evaluated_as_kube() {
    let many = vec!["true"; 65];
    assert_eq!(evaluate(&many), Ok(true));
    let mut one_false = vec!["true"; 65];
    one_false[64] = "false";
    assert_eq!(evaluate(&one_false), Ok(false));
}

/// Two authorization checks cost 700000: three such conditions fit kube's 2500000
/// budget, a fourth does not, and then nothing else counts (not even a false).
#[test]
fn match_conditions_cost_budget_is_kubes() {
    let two_checks =
        "[authorizer.path('/a').check('get'), authorizer.path('/b').check('get')].size() == 2";
    assert_eq!(evaluate(&[two_checks; 3]), Ok(true));
    assert_eq!(evaluate(&[two_checks; 4]), Err(ConditionError::OutOfBudget));
    let mut false_first = vec!["false"];
    false_first.extend([two_checks; 4]);
    assert_eq!(evaluate(&false_first), Err(ConditionError::OutOfBudget));
    let three_checks = "[authorizer.path('/a').check('get'), authorizer.path('/b').check('get'), authorizer.path('/c').check('get')].size() == 3";
    let want = format!(
        "expression '{three_checks}' resulted in error: operation cancelled: actual cost limit exceeded"
    );
    assert_eq!(
        evaluate(&[three_checks]),
        Err(ConditionError::Failed(vec![want]))
    );
}

#[test]
fn match_conditions_authorizer_asks_for_the_requesting_user_and_resource() {
    let user = user();
    let recorder = Arc::new(Recorder::default());
    let authz: Arc<dyn Authorizer> = recorder.clone();
    let conditions = conditions(&["authorizer.requestResource.check('patch').allowed()"]);
    assert_eq!(
        conditions.evaluate(&input(&user, None, None), &authz),
        Ok(true)
    );
    let asked = recorder.asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    let want = Attributes {
        user: super::authz_user(&user),
        verb: "patch".into(),
        resource_request: true,
        api_group: "stable.example.com".into(),
        api_version: "*".into(),
        resource: "crontabs".into(),
        subresource: "status".into(),
        namespace: "ns1".into(),
        name: "c1".into(),
        ..Attributes::default()
    };
    assert_eq!(asked[0], want);
}

#[test]
fn match_conditions_compile_errors_listed_for_logging() {
    let conditions = conditions(&["true", "object.metadata.name"]);
    assert_eq!(
        conditions.compile_errors(),
        vec![("c1", "must evaluate to bool but got dyn")]
    );
    assert!(!conditions.is_empty());
}
