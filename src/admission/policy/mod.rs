//! Admission policies (kube's `admission/plugin/policy`): ValidatingAdmissionPolicy and
//! MutatingAdmissionPolicy.

pub mod mutating;
