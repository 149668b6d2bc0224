//! The two production policy kinds: ValidatingAdmissionPolicy and MutatingAdmissionPolicy.

use k8s_openapi::api::admissionregistration::v1::{
    MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding, ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding,
};

use super::kind::{BindingView, PolicyKind, PolicyView, Versioning};

/// kube's ValidatingAdmissionPolicy plugin's kind.
pub struct ValidatingPolicies;

/// kube's MutatingAdmissionPolicy plugin's kind.
pub struct MutatingPolicies;

impl PolicyKind for ValidatingPolicies {
    type Policy = ValidatingAdmissionPolicy;
    type Binding = ValidatingAdmissionPolicyBinding;
    type Compiled = crate::admission::policy::validating::Validator;
    const KIND: &'static str = "ValidatingAdmissionPolicy";
    const RESOURCES: (&'static str, &'static str) = (
        "validatingadmissionpolicies",
        "validatingadmissionpolicybindings",
    );
    const VERSIONING: Versioning = Versioning::AfterParams;

    fn compile(policy: &ValidatingAdmissionPolicy) -> Self::Compiled {
        let spec = policy.spec.clone().unwrap_or_default();
        crate::admission::policy::validating::Validator::compile(&spec)
    }

    fn policy(policy: &ValidatingAdmissionPolicy) -> PolicyView<'_> {
        let spec = policy.spec.as_ref();
        PolicyView {
            name: policy.metadata.name.as_deref().unwrap_or_default(),
            param_kind: spec.and_then(|s| s.param_kind.as_ref()),
            match_constraints: spec.and_then(|s| s.match_constraints.as_ref()),
            failure_policy: spec.and_then(|s| s.failure_policy.as_deref()),
        }
    }

    fn binding(binding: &ValidatingAdmissionPolicyBinding) -> BindingView<'_> {
        let spec = &binding.spec;
        BindingView {
            name: binding.metadata.name.as_deref().unwrap_or_default(),
            policy_name: &spec.policy_name,
            param_ref: spec.param_ref.as_ref(),
            match_resources: spec.match_resources.as_ref(),
        }
    }

    fn same_policy(a: &ValidatingAdmissionPolicy, b: &ValidatingAdmissionPolicy) -> bool {
        a.spec == b.spec
    }
}

impl PolicyKind for MutatingPolicies {
    type Policy = MutatingAdmissionPolicy;
    type Binding = MutatingAdmissionPolicyBinding;
    type Compiled = crate::admission::policy::mutating::compile::CompiledMutations;
    const KIND: &'static str = "MutatingAdmissionPolicy";
    const RESOURCES: (&'static str, &'static str) = (
        "mutatingadmissionpolicies",
        "mutatingadmissionpolicybindings",
    );
    const VERSIONING: Versioning = Versioning::BeforeParams;

    fn compile(policy: &MutatingAdmissionPolicy) -> Self::Compiled {
        let compiled = crate::admission::policy::mutating::compile::compile_mutations(policy);
        let name = policy.metadata.name.as_deref().unwrap_or_default();
        for (what, error) in compiled.compile_errors() {
            tracing::warn!(policy = name, %what, %error, "MutatingAdmissionPolicy expression does not compile");
        }
        compiled
    }

    fn policy(policy: &MutatingAdmissionPolicy) -> PolicyView<'_> {
        let spec = policy.spec.as_ref();
        PolicyView {
            name: policy.metadata.name.as_deref().unwrap_or_default(),
            param_kind: spec.and_then(|s| s.param_kind.as_ref()),
            match_constraints: spec.and_then(|s| s.match_constraints.as_ref()),
            failure_policy: spec.and_then(|s| s.failure_policy.as_deref()),
        }
    }

    fn binding(binding: &MutatingAdmissionPolicyBinding) -> BindingView<'_> {
        let spec = binding.spec.as_ref();
        BindingView {
            name: binding.metadata.name.as_deref().unwrap_or_default(),
            policy_name: spec
                .and_then(|s| s.policy_name.as_deref())
                .unwrap_or_default(),
            param_ref: spec.and_then(|s| s.param_ref.as_ref()),
            match_resources: spec.and_then(|s| s.match_resources.as_ref()),
        }
    }

    fn same_policy(a: &MutatingAdmissionPolicy, b: &MutatingAdmissionPolicy) -> bool {
        a.spec == b.spec
    }
}
