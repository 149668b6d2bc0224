//! Admission policies (kube's `pkg/admission/plugin/policy`): ValidatingAdmissionPolicy.

pub mod validating;
