#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicySpec;
use serde_json::{Value as Json, json};

use super::{
    AuditAnnotationAction, PolicyDecisionAction as A, PolicyDecisionEvaluation as E, ValidateInput,
    ValidateResult, Validator, reason_to_code,
};

pub(super) fn spec(value: Json) -> ValidatingAdmissionPolicySpec {
    serde_json::from_value(value).unwrap()
}

pub(super) fn request() -> Json {
    json!({"operation": "CREATE", "name": "c1", "namespace": "ns1",
           "resource": {"group": "g", "version": "v1", "resource": "crontabs"},
           "userInfo": {"username": "alice"}})
}

pub(super) fn validate(spec_json: Json, object: &Json) -> ValidateResult {
    let validator = Validator::compile(&spec(spec_json));
    let request = request();
    let params = json!({"max": 3});
    validator.validate(&ValidateInput {
        object: Some(object),
        old_object: None,
        params: Some(&params),
        namespace_object: None,
        request: &request,
        match_request: &request,
        authorizer: None,
    })
}

/// `(action, evaluation, message, reason)` of each decision.
fn decisions(r: &ValidateResult) -> Vec<(A, E, String, String)> {
    r.decisions
        .iter()
        .map(|d| (d.action, d.evaluation, d.message.clone(), d.reason.clone()))
        .collect()
}

fn d(a: A, e: E, message: &str, reason: &str) -> (A, E, String, String) {
    (a, e, message.to_string(), reason.to_string())
}

#[test]
fn validate_messages_follow_kubes_fallbacks() {
    let object = json!({"spec": {"replicas": 5}});
    let r = validate(
        json!({"validations": [
            {"expression": "object.spec.replicas < 3"},
            {"expression": "object.spec.replicas < 3", "message": "  too many  "},
            {"expression": "object.spec.replicas < 3", "message": "m",
             "messageExpression": "'replicas: ' + string(object.spec.replicas)", "reason": "Forbidden"},
            {"expression": "object.spec.replicas < 3", "message": "fallback", "messageExpression": "'a\\nb'"},
            {"expression": "object.spec.replicas < 3", "message": "fallback", "messageExpression": "'   '"},
            {"expression": "object.spec.replicas < 3", "message": "fallback", "messageExpression": "'x'.repeat(5121)"},
            {"expression": "object.spec.replicas < 3", "message": "fallback", "messageExpression": "string(1/0)"},
            {"expression": "object.spec.replicas > 3", "message": "unused"}
        ]}),
        &object,
    );
    assert_eq!(
        decisions(&r),
        [
            d(
                A::Deny,
                E::Deny,
                "failed expression: object.spec.replicas < 3",
                "Invalid"
            ),
            d(A::Deny, E::Deny, "too many", "Invalid"),
            d(A::Deny, E::Deny, "replicas: 5", "Forbidden"),
            d(A::Deny, E::Deny, "fallback", "Invalid"),
            d(A::Deny, E::Deny, "fallback", "Invalid"),
            d(A::Deny, E::Deny, "fallback", "Invalid"),
            d(A::Deny, E::Deny, "fallback", "Invalid"),
            d(A::Admit, E::Admit, "", ""),
        ]
    );
}

#[test]
fn validate_errors_follow_the_failure_policy() {
    let object = json!({"spec": {}});
    let fail =
        json!({"validations": [{"expression": "object.spec.missing == 1"}, {"expression": "1"}]});
    let r = validate(fail.clone(), &object);
    assert_eq!(
        decisions(&r),
        [
            d(
                A::Deny,
                E::Error,
                "expression 'object.spec.missing == 1' resulted in error: no such key: missing",
                ""
            ),
            d(
                A::Deny,
                E::Error,
                "compilation error: must evaluate to bool but got int",
                ""
            ),
        ]
    );
    let mut ignore = fail;
    ignore["failurePolicy"] = json!("Ignore");
    let r = validate(ignore, &object);
    assert!(
        r.decisions
            .iter()
            .all(|d| d.action == A::Admit && d.evaluation == E::Error)
    );
}

#[test]
fn validate_match_conditions_gate_the_validations() {
    let object = json!({"spec": {"replicas": 5}});
    let policy = |conditions: Json, failure: &str| {
        json!({"failurePolicy": failure, "matchConditions": conditions,
               "validations": [{"expression": "false", "message": "no"}]})
    };
    let no_match = validate(
        policy(
            json!([{"name": "a", "expression": "false"}, {"name": "b", "expression": "1/0 == 1"}]),
            "Fail",
        ),
        &object,
    );
    assert_eq!(no_match, ValidateResult::default());
    let matches = validate(
        policy(
            json!([{"name": "a", "expression": "object.spec.replicas == 5"}]),
            "Fail",
        ),
        &object,
    );
    assert_eq!(decisions(&matches), [d(A::Deny, E::Deny, "no", "Invalid")]);
    let erring =
        json!([{"name": "a", "expression": "1/0 == 1"}, {"name": "b", "expression": "true"}]);
    let failed = validate(policy(erring.clone(), "Fail"), &object);
    assert_eq!(
        decisions(&failed),
        [d(
            A::Deny,
            E::Error,
            "expression '1/0 == 1' resulted in error: division by zero",
            ""
        )]
    );
    assert_eq!(
        validate(policy(erring, "Ignore"), &object),
        ValidateResult::default()
    );
}

#[test]
fn validate_variables_and_params_are_visible_everywhere() {
    let object = json!({"spec": {"replicas": 5}});
    let r = validate(
        json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
               "variables": [{"name": "replicas", "expression": "object.spec.replicas"},
                             {"name": "over", "expression": "variables.replicas > params.max"}],
               "matchConditions": [{"name": "m", "expression": "variables.over"}],
               "validations": [{"expression": "!variables.over",
                                "messageExpression": "'replicas ' + string(variables.replicas) + ' over ' + string(params.max)"}],
               "auditAnnotations": [{"key": "replicas", "valueExpression": "string(variables.replicas)"},
                                    {"key": "none", "valueExpression": "null"},
                                    {"key": "blank", "valueExpression": "'  '"}]}),
        &object,
    );
    assert_eq!(
        decisions(&r),
        [d(A::Deny, E::Deny, "replicas 5 over 3", "Invalid")]
    );
    let audits: Vec<_> = r
        .audit_annotations
        .iter()
        .map(|a| (a.key.as_str(), a.action, a.value.as_str()))
        .collect();
    assert_eq!(
        audits,
        [
            ("replicas", AuditAnnotationAction::Publish, "5"),
            ("none", AuditAnnotationAction::Exclude, ""),
            ("blank", AuditAnnotationAction::Exclude, ""),
        ]
    );
    // Without a paramKind, `params` is undeclared.
    let r = validate(
        json!({"validations": [{"expression": "params.max > 1"}]}),
        &object,
    );
    assert!(r.decisions[0].message.starts_with("compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'"), "{}", r.decisions[0].message);
}

#[test]
fn validate_audit_annotation_errors_follow_the_failure_policy() {
    let object = json!({});
    let policy = |failure: &str| json!({"failurePolicy": failure, "auditAnnotations": [{"key": "k", "valueExpression": "string(1/0)"}]});
    let r = validate(policy("Fail"), &object);
    assert_eq!(r.audit_annotations[0].action, AuditAnnotationAction::Error);
    assert_eq!(
        r.audit_annotations[0].error,
        "expression 'string(1/0)' resulted in error: division by zero"
    );
    let r = validate(policy("Ignore"), &object);
    assert_eq!(
        r.audit_annotations[0].action,
        AuditAnnotationAction::Exclude
    );
}

#[test]
fn validate_out_of_budget_in_messages_fails_every_decision() {
    // Each messageExpression spends the per-call limit (1M) before it is stopped;
    // twelve of them exceed the 10M budget left after the validations.
    let costly = "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true)))))) ? 'm' : 'n'";
    let validations: Vec<Json> = (0..12)
        .map(|_| json!({"expression": "true", "messageExpression": costly}))
        .collect();
    let r = validate(json!({"validations": validations}), &json!({}));
    assert_eq!(r.decisions.len(), 12);
    for decision in &r.decisions {
        assert_eq!(
            (
                decision.action,
                decision.evaluation,
                decision.message.as_str()
            ),
            (
                A::Deny,
                E::Error,
                "failed messageExpression: validation failed due to running out of cost budget, no further validation rules will be run"
            )
        );
        assert_eq!(decision.error_type(), "invalid_error");
    }
}

#[test]
fn reason_to_code_is_kubes_table() {
    let codes: Vec<u16> = [
        "Unauthorized",
        "Forbidden",
        "Invalid",
        "RequestEntityTooLarge",
        "Other",
    ]
    .iter()
    .map(|r| reason_to_code(r))
    .collect();
    assert_eq!(codes, [401, 403, 422, 413, 422]);
}

#[test]
fn reads_request_and_authorizer_only_where_an_expression_can() {
    use super::compile::Reads;
    let reads = |request, match_request, authorizer| Reads {
        request,
        match_request,
        authorizer,
    };
    // (variables, matchConditions, other expressions, what they read)
    type Case<'a> = (&'a [&'a str], &'a [&'a str], &'a [&'a str], Reads);
    let cases: [Case<'_>; 7] = [
        // Neither read: both requests bound as null, no authorizer.
        (
            &["object.spec"],
            &["has(object.spec)"],
            &["variables.spec.x > 0"],
            reads(false, false, false),
        ),
        // A validation reads request: only it is built.
        (
            &[],
            &["true"],
            &["request.operation == 'CREATE'"],
            reads(true, false, false),
        ),
        // A matchCondition reads it: only the match request is built.
        (
            &[],
            &["request.userInfo.username != ''"],
            &["true"],
            reads(false, true, false),
        ),
        // A variable reads it: both (variables are read from either).
        (&["request.namespace"], &[], &[], reads(true, true, false)),
        // A string that contains the word: conservatively built.
        (&[], &[], &["'request' != ''"], reads(true, false, false)),
        // The authorizer, from any expression (its requestResource names `request` too).
        (
            &[],
            &["authorizer.group('').resource('pods').check('get').allowed()"],
            &[],
            reads(false, false, true),
        ),
        (
            &[],
            &[],
            &["authorizer.requestResource.check('get').allowed()"],
            reads(true, false, true),
        ),
    ];
    for (variables, conditions, others, want) in cases {
        let got = Reads::of(
            variables.iter().copied(),
            conditions.iter().copied(),
            others.iter().copied(),
        );
        assert_eq!(got, want, "{variables:?} {conditions:?} {others:?}");
    }
    // Compiled from a spec: messageExpressions and audit annotations count as validations.
    let spec = serde_json::from_value(serde_json::json!({
        "validations": [{"expression": "true", "messageExpression": "request.name"}]}))
    .unwrap();
    assert_eq!(
        super::Validator::compile(&spec).reads,
        reads(true, false, false)
    );
}
