#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;

use super::metrics::{Enforcement, ValidatingMetrics};
use super::tests::{request, spec};
use super::{Denial, Entry, Invocation, ValidateInput, Validator, dispatch};
use crate::admission::Recorder;

fn run(
    policies: &[(&str, &str, &[&str], &Validator)],
) -> (Option<Denial>, Recorder, ValidatingMetrics) {
    let object = json!({"spec": {"replicas": 5}});
    let request = request();
    let actions: Vec<Vec<String>> = policies
        .iter()
        .map(|(_, _, a, _)| a.iter().map(|s| s.to_string()).collect())
        .collect();
    let entries: Vec<Entry<'_>> = policies
        .iter()
        .zip(&actions)
        .map(|((policy, binding, _, validator), actions)| {
            Entry::Invocation(Invocation {
                policy,
                binding,
                validation_actions: actions,
                validator,
                input: ValidateInput {
                    object: Some(&object),
                    old_object: None,
                    params: None,
                    namespace_object: None,
                    request: &request,
                    match_request: &request,
                    authorizer: None,
                },
            })
        })
        .collect();
    let recorder = Recorder::default();
    let metrics = ValidatingMetrics::default();
    let denial = dispatch(&entries, &recorder, &metrics);
    (denial, recorder, metrics)
}

fn failing(reason: Option<&str>) -> Validator {
    Validator::compile(&spec(json!({
        "validations": [{"expression": "object.spec.replicas < 3", "message": "too many", "reason": reason}],
        "auditAnnotations": [{"key": "replicas", "valueExpression": "string(object.spec.replicas)"}]
    })))
}

#[test]
fn dispatch_deny_is_kubes_text_reason_and_code() {
    let first = failing(Some("Forbidden"));
    let second = failing(None);
    let (denial, _, metrics) = run(&[
        ("p1", "b1", &["Deny"], &first),
        ("p2", "b2", &["Deny"], &second),
    ]);
    assert_eq!(
        denial,
        Some(Denial {
            message: "ValidatingAdmissionPolicy 'p1' with binding 'b1' denied request: too many"
                .into(),
            reason: "Forbidden".into(),
            code: 403,
        })
    );
    assert_eq!(
        metrics.checks("p1", "b1", "invalid_error", Enforcement::Deny),
        1
    );
    assert_eq!(
        metrics.checks("p2", "b2", "invalid_error", Enforcement::Deny),
        1
    );
    let (denial, _, _) = run(&[("p2", "b2", &["Deny"], &second)]);
    assert_eq!(
        denial.map(|d| (d.reason, d.code)),
        Some(("Invalid".into(), 422))
    );
}

#[test]
fn dispatch_warn_and_audit_record_and_admit() {
    let validator = failing(None);
    let (denial, recorder, metrics) = run(&[("p", "b", &["Warn", "Audit"], &validator)]);
    assert_eq!(denial, None);
    assert_eq!(
        recorder.take_warnings(),
        ["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': too many"]
    );
    let annotations = recorder.annotations();
    assert_eq!(
        annotations["validation.policy.admission.k8s.io/validation_failure"],
        r#"[{"message":"too many","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Warn","Audit"]}]"#
    );
    assert_eq!(annotations["p/replicas"], "5");
    assert_eq!(
        metrics.checks("p", "b", "invalid_error", Enforcement::Warn),
        1
    );
    assert_eq!(
        metrics.checks("p", "b", "invalid_error", Enforcement::Audit),
        1
    );
}

#[test]
fn dispatch_audit_annotations_of_one_policy_join_distinct_values() {
    let validator = failing(None);
    let (_, recorder, _) = run(&[
        ("p", "b1", &["Audit"], &validator),
        ("p", "b2", &["Audit"], &validator),
    ]);
    assert_eq!(recorder.annotations()["p/replicas"], "5");
    let other = Validator::compile(&spec(json!({
        "auditAnnotations": [{"key": "replicas", "valueExpression": "'other'"}]
    })));
    let (_, recorder, _) = run(&[
        ("p", "b1", &["Audit"], &validator),
        ("p", "b2", &["Audit"], &other),
    ]);
    assert_eq!(recorder.annotations()["p/replicas"], "5, other");
}

#[test]
fn dispatch_config_errors_deny_unless_ignored() {
    let recorder = Recorder::default();
    let metrics = ValidatingMetrics::default();
    let entries = [
        Entry::ConfigError {
            policy: "p0",
            binding: None,
            failure_policy: Some("Ignore"),
            error: "x".into(),
        },
        Entry::ConfigError {
            policy: "p1",
            binding: Some("b1"),
            failure_policy: None,
            error: "no params".into(),
        },
    ];
    assert_eq!(
        dispatch(&entries, &recorder, &metrics).map(|d| d.message),
        Some("ValidatingAdmissionPolicy 'p1' with binding 'b1' denied request: failed to configure binding: no params".into())
    );
    let entries = [Entry::ConfigError {
        policy: "p",
        binding: None,
        failure_policy: Some("Fail"),
        error: "bad".into(),
    }];
    assert_eq!(
        dispatch(&entries, &recorder, &metrics).map(|d| (d.message, d.code)),
        Some((
            "ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: bad".into(),
            422
        ))
    );
}

/// The issue's benchmark shape (one policy, three validations, one variable) admits
/// with nothing recorded and no error counted.
#[test]
fn dispatch_compiled_policy_evaluates_without_recompiling() {
    let validator = Validator::compile(&spec(json!({
        "variables": [{"name": "r", "expression": "object.spec.replicas"}],
        "validations": [{"expression": "variables.r >= 0"}, {"expression": "variables.r < 100"},
                        {"expression": "has(object.spec)"}]
    })));
    let (denial, recorder, metrics) = run(&[("p", "b", &["Deny"], &validator)]);
    assert_eq!(denial, None);
    assert!(recorder.take_warnings().is_empty());
    assert_eq!(metrics.checks("p", "b", "no_error", Enforcement::Allow), 0);
}

#[test]
fn dispatch_two_audit_failures_first_policy_recorded_only() {
    let validator = failing(None);
    let (denial, recorder, _) = run(&[
        ("p1", "b1", &["Audit"], &validator),
        ("p2", "b2", &["Warn", "Audit"], &validator),
    ]);
    assert_eq!(denial, None);
    // kube 1.36 (the reference's recording) keeps the first failure under the key.
    assert_eq!(
        recorder.annotations()["validation.policy.admission.k8s.io/validation_failure"],
        r#"[{"message":"too many","policy":"p1","binding":"b1","expressionIndex":0,"validationActions":["Audit"]}]"#
    );
}
