//! The benches' ValidatingAdmissionPolicy (one variable, three validations that hold for
//! the 1 KiB CronTab) and its `Deny` binding, shared by the throughput bench's `policy`
//! sections and the in-process `policy` bench.

use serde_json::{Value, json};

/// The policy and its binding, with every field kube-apiserver's defaulting sets (the
/// reference refuses a policy without them).
pub fn policy_and_binding() -> [Value; 2] {
    let policy = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "bench", "generation": 1},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {
                "resourceRules": [{"operations": ["CREATE", "UPDATE"],
                    "apiGroups": ["stable.example.com"], "apiVersions": ["v1"],
                    "resources": ["crontabs"], "scope": "*"}],
                "matchPolicy": "Equivalent", "namespaceSelector": {}, "objectSelector": {}},
            "variables": [{"name": "spec", "expression": "object.spec"}],
            "validations": [
                {"expression": "variables.spec.cronSpec.size() > 0"},
                {"expression": "variables.spec.image.size() <= 4096"},
                {"expression": "!has(variables.spec.replicas) || variables.spec.replicas >= 0"}]}});
    let binding = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "bench", "generation": 1},
        "spec": {"policyName": "bench", "validationActions": ["Deny"],
            "matchResources": {"matchPolicy": "Equivalent", "namespaceSelector": {},
                "objectSelector": {}}}});
    [policy, binding]
}
