//! Rules end to end in process: compiled from a schema, run on objects, with kube's texts.

use serde_json::{Value, json};

use super::*;

fn crontab(rules: Value) -> Schema {
    Schema::parse(&json!({"type": "object", "properties": {"spec": {
    "type": "object",
    "x-kubernetes-validations": rules,
    "properties": {
        "minReplicas": {"type": "integer"},
        "replicas": {"type": "integer"},
        "maxReplicas": {"type": "integer"},
        "mode": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 10,
            "x-kubernetes-validations": [{"rule": "self != 'bad'"}]}},
        "labels": {"type": "object", "additionalProperties": {"type": "string",
            "x-kubernetes-validations": [{"rule": "self.size() < 5", "message": "too long"}]}}
    }}}}))
}

fn messages(findings: &Findings) -> Vec<String> {
    findings.errors.iter().map(FieldError::message).collect()
}

#[test]
fn validate_seed_crontab_rules_report_kube_texts() {
    let schema = crontab(json!([
        {"rule": "self.minReplicas <= self.replicas", "message": "replicas should be greater than or equal to minReplicas."},
        {"rule": "self.replicas <= self.maxReplicas"}
    ]));
    let rules = Rules::compile(&schema);
    let ok = json!({"spec": {"minReplicas": 0, "replicas": 5, "maxReplicas": 10}});
    assert!(rules.validate(&schema, &ok, None).errors.is_empty());
    let bad = json!({"spec": {"minReplicas": 0, "replicas": 20, "maxReplicas": 10}});
    assert_eq!(
        messages(&rules.validate(&schema, &bad, None)),
        vec!["spec: Invalid value: failed rule: self.replicas <= self.maxReplicas"]
    );
    let both = json!({"spec": {"minReplicas": 30, "replicas": 20, "maxReplicas": 10}});
    assert_eq!(
        messages(&rules.validate(&schema, &both, None)),
        vec![
            "spec: Invalid value: replicas should be greater than or equal to minReplicas.",
            "spec: Invalid value: failed rule: self.replicas <= self.maxReplicas",
        ]
    );
}

#[test]
fn validate_list_items_and_map_values_report_their_paths() {
    // Fields in key order (kube's follow Go's random map order).
    let schema = crontab(json!([]));
    let rules = Rules::compile(&schema);
    let bad = json!({"spec": {"tags": ["ok", "bad"], "labels": {"a": "x", "b": "toolong"}}});
    assert_eq!(
        messages(&rules.validate(&schema, &bad, None)),
        vec![
            "spec.labels[b]: Invalid value: \"toolong\": too long",
            "spec.tags[1]: Invalid value: \"bad\": failed rule: self != 'bad'",
        ]
    );
}

#[test]
fn validate_transition_rule_runs_only_on_update() {
    let schema =
        crontab(json!([{"rule": "self.replicas >= oldSelf.replicas", "message": "no scale down"}]));
    let rules = Rules::compile(&schema);
    let new = json!({"spec": {"replicas": 1}});
    assert!(rules.validate(&schema, &new, None).errors.is_empty());
    let old = json!({"spec": {"replicas": 3}});
    assert_eq!(
        messages(&rules.validate(&schema, &new, Some(&old))),
        vec!["spec: Invalid value: no scale down"]
    );
}

#[test]
fn validate_optional_old_self_runs_on_create_with_none() {
    let schema = crontab(
        json!([{"rule": "!oldSelf.hasValue() || self.mode == oldSelf.value().mode",
        "optionalOldSelf": true, "message": "immutable"}]),
    );
    let rules = Rules::compile(&schema);
    let new = json!({"spec": {"mode": "a"}});
    assert!(rules.validate(&schema, &new, None).errors.is_empty());
    let old = json!({"spec": {"mode": "b"}});
    assert_eq!(
        messages(&rules.validate(&schema, &new, Some(&old))),
        vec!["spec: Invalid value: immutable"]
    );
}

#[test]
fn validate_unchanged_invalid_value_ratchets_to_warning() {
    let schema = crontab(json!([{"rule": "self.replicas < 10"}]));
    let rules = Rules::compile(&schema);
    let old = json!({"spec": {"replicas": 20}});
    let findings = rules.validate(&schema, &old.clone(), Some(&old));
    assert!(findings.errors.is_empty());
    assert_eq!(
        findings.warnings,
        vec!["spec: Invalid value: failed rule: self.replicas < 10"]
    );
}

#[test]
fn validate_message_expression_falls_back_to_message_when_empty() {
    let schema = crontab(json!([
        {"rule": "self.replicas < 10", "messageExpression": "'replicas ' + string(self.replicas) + ' too high'"},
        {"rule": "self.replicas < 5", "messageExpression": "''", "message": "fallback"}
    ]));
    let rules = Rules::compile(&schema);
    let bad = json!({"spec": {"replicas": 20}});
    assert_eq!(
        messages(&rules.validate(&schema, &bad, None)),
        vec![
            "spec: Invalid value: replicas 20 too high",
            "spec: Invalid value: fallback"
        ]
    );
}

#[test]
fn validate_runtime_error_reports_evaluating_rule() {
    let schema = crontab(json!([{"rule": "self.replicas / self.minReplicas > 0"}]));
    let rules = Rules::compile(&schema);
    let bad = json!({"spec": {"replicas": 20, "minReplicas": 0}});
    assert_eq!(
        messages(&rules.validate(&schema, &bad, None)),
        vec![
            "spec: Invalid value: \"object\": division by zero evaluating rule: self.replicas / self.minReplicas > 0"
        ]
    );
    let missing = json!({"spec": {"replicas": 20}});
    assert_eq!(
        messages(&rules.validate(&schema, &missing, None)),
        vec![
            "spec: Invalid value: \"object\": no such key: minReplicas evaluating rule: self.replicas / self.minReplicas > 0"
        ]
    );
}

#[test]
fn validate_reason_and_field_path_shape_the_cause() {
    let schema = crontab(json!([
        {"rule": "self.replicas < 10", "reason": "FieldValueForbidden", "fieldPath": ".replicas", "message": "too many"},
        {"rule": "has(self.mode)", "reason": "FieldValueRequired", "message": "mode is required"}
    ]));
    let rules = Rules::compile(&schema);
    let bad = json!({"spec": {"replicas": 20}});
    let findings = rules.validate(&schema, &bad, None);
    assert_eq!(
        messages(&findings),
        vec![
            "spec.replicas: Forbidden: too many",
            "spec: Required value: mode is required"
        ]
    );
    assert_eq!(findings.errors[0].reason, ErrorType::Forbidden);
}

#[test]
fn definition_errors_report_compile_failures_at_rule_paths() {
    let env = crate::cel::env::stored();
    let schema = crontab(
        json!([{"rule": "self.replicas == true"}, {"rule": "self.nope > 0"}, {"rule": "1"}]),
    );
    let errors: Vec<String> = definition::errors(&env, &schema, "spec.validation.openAPIV3Schema")
        .iter()
        .map(FieldError::message)
        .collect();
    let at = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations";
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(
        errors[0].starts_with(&format!(
            "{at}[0].rule: Invalid value: {{\"Rule\":\"self.replicas == true\","
        )),
        "{}",
        errors[0]
    );
    assert!(errors[0].contains("compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, bool)'"), "{}", errors[0]);
    assert!(
        errors[1].contains("undefined field 'nope'"),
        "{}",
        errors[1]
    );
    assert!(
        errors[2].ends_with("cel expression must evaluate to a bool"),
        "{}",
        errors[2]
    );
}

#[test]
fn definition_errors_refuse_old_self_under_atomic_list() {
    let env = crate::cel::env::stored();
    let schema = Schema::parse(
        &json!({"type": "object", "properties": {"list": {"type": "array", "maxItems": 10,
        "items": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}),
    );
    let errors: Vec<String> = definition::errors(&env, &schema, "s")
        .iter()
        .map(FieldError::message)
        .collect();
    assert_eq!(
        errors,
        vec![
            "s.properties[list].items.x-kubernetes-validations[0].rule: Invalid value: \"self == oldSelf\": oldSelf cannot be used on the uncorrelatable portion of the schema within s.properties[list]"
        ]
    );
}

#[test]
fn blocked_by_required_or_type_errors_only() {
    let required = FieldError::required("spec.x", "");
    let invalid = FieldError::invalid("spec.x", &json!(1), "bad");
    assert!(blocked(&[invalid.clone(), required]));
    assert!(!blocked(&[invalid]));
    assert_eq!(
        not_checked().message(),
        "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"
    );
}

#[test]
fn validate_stored_null_is_no_old_value_for_transition_rules() {
    let schema = Schema::parse(&json!({"type": "object", "properties": {"spec": {
        "type": "object", "nullable": true,
        "x-kubernetes-validations": [{"rule": "self.mode == oldSelf.mode", "message": "immutable"}],
        "properties": {"mode": {"type": "string"}}}}}));
    let rules = Rules::compile(&schema);
    let new = json!({"spec": {"mode": "a"}});
    let old = json!({"spec": null});
    assert!(rules.validate(&schema, &new, Some(&old)).errors.is_empty());
}

#[test]
fn validate_message_expression_with_unbound_old_self_falls_back() {
    // No rule of the node uses oldSelf: kube leaves it unbound for the message.
    let schema = crontab(json!([{"rule": "self.replicas < 10", "message": "static",
        "messageExpression": "'was ' + string(oldSelf.replicas)"}]));
    let rules = Rules::compile(&schema);
    let new = json!({"spec": {"replicas": 20}});
    let old = json!({"spec": {"replicas": 5}});
    assert_eq!(
        messages(&rules.validate(&schema, &new, Some(&old))),
        vec!["spec: Invalid value: static"]
    );
}

#[test]
fn validate_ratcheted_warnings_are_deduplicated_and_bounded() {
    let schema = Schema::parse(&json!({"type": "object", "properties": {"list": {
        "type": "array", "items": {"type": "string",
            "x-kubernetes-validations": [{"rule": "self.size() < 2"}]}}}}));
    let rules = Rules::compile(&schema);
    let list: Vec<String> = (0..5000).map(|i| format!("v{i}")).collect();
    let object = json!({"list": list});
    let findings = rules.validate(&schema, &object, Some(&object));
    assert!(findings.errors.is_empty());
    // About 4096 runes of warnings are all kube's recorder keeps.
    assert!(findings.warnings.len() < 250, "{}", findings.warnings.len());
    assert_eq!(
        findings.warnings[0],
        "list[0]: Invalid value: \"v0\": failed rule: self.size() < 2"
    );
}

#[test]
fn definition_errors_refuse_optional_old_self_false_without_old_self() {
    let env = crate::cel::env::stored();
    let schema = crontab(json!([{"rule": "self.replicas > 0", "optionalOldSelf": false}]));
    let errors: Vec<String> = definition::errors(&env, &schema, "s")
        .iter()
        .map(FieldError::message)
        .collect();
    assert_eq!(
        errors,
        vec![
            "s.properties[spec].x-kubernetes-validations[0].optionalOldSelf: Invalid value: false: may not be set if oldSelf is not used in rule"
        ]
    );
}
