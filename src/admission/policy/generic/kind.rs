//! What a policy kind (validating, mutating) gives the shared machinery: its two API
//! types, what a policy compiles into, and read access to the fields kube's
//! `PolicyAccessor` and `BindingAccessor` expose.

use k8s_openapi::api::admissionregistration::v1::{MatchResources, ParamKind, ParamRef};

use crate::cluster::informer::Followable;

/// The fields kube's `PolicyAccessor` reads.
#[derive(Clone, Copy, Debug)]
pub struct PolicyView<'a> {
    pub name: &'a str,
    pub param_kind: Option<&'a ParamKind>,
    pub match_constraints: Option<&'a MatchResources>,
    pub failure_policy: Option<&'a str>,
}

/// The fields kube's `BindingAccessor` reads.
#[derive(Clone, Copy, Debug)]
pub struct BindingView<'a> {
    pub name: &'a str,
    pub policy_name: &'a str,
    pub param_ref: Option<&'a ParamRef>,
    pub match_resources: Option<&'a MatchResources>,
}

/// Where kube converts the request's objects to the version a binding matched at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Versioning {
    /// The generic `policyDispatcher` (MutatingAdmissionPolicy): once the binding matches,
    /// before its params; a failure is the policy's configuration error (no binding).
    BeforeParams,
    /// The validating dispatcher: once the binding has params; a failure is the binding's
    /// configuration error, `failed to convert object version: <error>`.
    AfterParams,
}

/// One policy kind.
pub trait PolicyKind: Send + Sync + 'static {
    /// `ValidatingAdmissionPolicy` / `MutatingAdmissionPolicy` (v1).
    type Policy: Followable;
    /// Its binding type.
    type Binding: Followable;
    /// What a policy compiles into (once per generation).
    type Compiled: Send + Sync + 'static;
    /// kube's kind name, `ValidatingAdmissionPolicy`.
    const KIND: &'static str;
    /// The plural names followed (policies, bindings), for the logs.
    const RESOURCES: (&'static str, &'static str);
    /// Where the request's objects are converted to a binding's version.
    const VERSIONING: Versioning;

    fn compile(policy: &Self::Policy) -> Self::Compiled;
    fn policy(policy: &Self::Policy) -> PolicyView<'_>;
    fn binding(binding: &Self::Binding) -> BindingView<'_>;
    /// Whether two versions of a policy compile the same (the same generation: the same spec).
    fn same_policy(a: &Self::Policy, b: &Self::Policy) -> bool;
}
