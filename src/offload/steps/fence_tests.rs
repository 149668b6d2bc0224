//! The fence's objects as the host gets them, and how an existing one is brought to them.

use serde_json::json;

use super::*;

#[test]
fn policy_denies_group_writes_to_all_but_our_own_non_dry_run_writes() {
    let policy =
        serde_json::to_value(policy("stable.example.com", "system:serviceaccount:ns:sa")).unwrap();
    assert_eq!(
        policy,
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {
                "name": "crd-apiserver-offload-fence.stable.example.com",
                "labels": {"app.kubernetes.io/managed-by": "crd-apiserver"},
            },
            "spec": {
                "failurePolicy": "Fail",
                "matchConstraints": {"resourceRules": [{
                    "apiGroups": ["stable.example.com"],
                    "apiVersions": ["*"],
                    "resources": ["*/*"],
                    "operations": ["CREATE", "UPDATE", "DELETE"],
                }],
                "matchPolicy": "Equivalent", "namespaceSelector": {}, "objectSelector": {}},
                "matchConditions": [{
                    "name": "not-crd-apiserver",
                    "expression": "request.userInfo.username != 'system:serviceaccount:ns:sa' || request.dryRun",
                }],
                "validations": [{
                    "expression": "false",
                    "reason": "Forbidden",
                    "message": "the resources of API group \"stable.example.com\" are being moved by crd-apiserver (offload): writes are refused until the move completes; retry shortly",
                }],
            },
        })
    );
}

#[test]
fn binding_denies_with_the_policy() {
    let binding = serde_json::to_value(binding("g.example.com")).unwrap();
    assert_eq!(
        binding,
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {
                "name": "crd-apiserver-offload-fence.g.example.com",
                "labels": {"app.kubernetes.io/managed-by": "crd-apiserver"},
            },
            "spec": {"policyName": "crd-apiserver-offload-fence.g.example.com", "validationActions": ["Deny"]},
        })
    );
}

#[test]
fn denial_is_kubes_dispatcher_text() {
    assert_eq!(
        denial("g"),
        "ValidatingAdmissionPolicy 'crd-apiserver-offload-fence.g' with binding \
         'crd-apiserver-offload-fence.g' denied request: the resources of API group \"g\" are \
         being moved by crd-apiserver (offload): writes are refused until the move completes; \
         retry shortly"
    );
}

#[test]
fn match_condition_quotes_the_username_as_a_cel_string() {
    assert_eq!(
        match_condition(r"o'd\user"),
        r"request.userInfo.username != 'o\'d\\user' || request.dryRun"
    );
}

#[test]
fn covers_table() {
    let cases = [
        (
            json!({"a": 1, "b": {"c": 2, "d": 3}}),
            json!({"b": {"c": 2}}),
            true,
        ),
        (json!({"a": 1}), json!({"a": 2}), false),
        (
            json!({"a": [{"x": 1, "y": 2}]}),
            json!({"a": [{"x": 1}]}),
            true,
        ),
        (
            json!({"a": [{"x": 1}, {"x": 2}]}),
            json!({"a": [{"x": 1}]}),
            false,
        ),
        (json!({}), json!({"a": null}), false),
        (json!("s"), json!("s"), true),
    ];
    for (existing, desired, want) in cases {
        assert_eq!(covers(&existing, &desired), want, "{existing} ⊇ {desired}");
    }
}

#[test]
fn plan_absent_creates() {
    let desired = json!({"metadata": {"name": "p", "labels": {"l": "v"}}, "spec": {"a": 1}});
    assert_eq!(plan(None, &desired), Put::Create(desired.clone()));
}

#[test]
fn plan_defaulted_by_the_host_changes_nothing() {
    let desired = json!({"metadata": {"name": "p", "labels": {"l": "v"}}, "spec": {"a": 1}});
    let existing = json!({"metadata": {"name": "p", "resourceVersion": "7", "labels": {"l": "v", "o": "x"}},
        "spec": {"a": 1, "matchPolicy": "Equivalent"}});
    assert_eq!(plan(Some(&existing), &desired), Put::Nothing);
}

#[test]
fn plan_changed_spec_updates_keeping_resource_version_and_other_labels() {
    let desired = json!({"metadata": {"name": "p", "labels": {"l": "v"}}, "spec": {"a": 1}});
    let existing = json!({"metadata": {"name": "p", "resourceVersion": "7", "labels": {"o": "x"}},
        "spec": {"a": 2, "b": 3}});
    assert_eq!(
        plan(Some(&existing), &desired),
        Put::Update(
            json!({"metadata": {"name": "p", "resourceVersion": "7", "labels": {"o": "x", "l": "v"}},
            "spec": {"a": 1}})
        )
    );
}
