//! kube's `compilePolicy` (`mutating/compilation.go`) for the mutations: each mutation
//! compiled once, in order, for its `patchType`, through a [`MutationCompiler`] (the seam
//! where the policy environment with `params`, `variables` and `namespaceObject` plugs
//! in); a compile error is kept and reported when the policy is invoked.

use k8s_openapi::api::admissionregistration::v1::MutatingAdmissionPolicy;

use crate::cel::mutation::{MutationProgram, Output};

/// Compiles one mutation expression for its output type; the error is kube's detail.
pub type MutationCompiler = fn(&str, Output) -> Result<MutationProgram, String>;

/// The standalone compiler: `object`, `oldObject`, `request`, `params` as dyn.
pub fn standalone_compiler(source: &str, output: Output) -> Result<MutationProgram, String> {
    MutationProgram::compile(&crate::cel::env::with_patch_types(), source, output)
}

/// One compiled mutation (kube's `Patcher`): its expression, output and program or
/// compile error.
#[derive(Debug)]
pub struct Patcher {
    pub expression: String,
    pub output: Output,
    pub program: Result<MutationProgram, String>,
}

/// `reinvocationPolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReinvocationPolicy {
    Never,
    IfNeeded,
}

/// A policy's mutations compiled (kube's `PolicyEvaluator` without the matcher, which
/// the shared matchConditions compile).
#[derive(Debug)]
pub struct CompiledMutations {
    /// `len(spec.mutations)`: kube refuses an invocation whose patchers do not match it.
    pub expected: usize,
    pub patchers: Vec<Patcher>,
    pub reinvocation: ReinvocationPolicy,
}

/// kube's `compilePolicy` for the mutations: a mutation whose `patchType` names a missing
/// body (or an unknown type) gets no patcher, as in kube.
pub fn compile_mutations(
    policy: &MutatingAdmissionPolicy,
    compiler: MutationCompiler,
) -> CompiledMutations {
    let spec = policy.spec.as_ref();
    let mutations = spec
        .and_then(|s| s.mutations.as_deref())
        .unwrap_or_default();
    let patchers = mutations
        .iter()
        .filter_map(|m| {
            let (output, expression) = match m.patch_type.as_str() {
                "JSONPatch" => (Output::JsonPatch, m.json_patch.as_ref()?.expression.clone()),
                "ApplyConfiguration" => (
                    Output::ApplyConfiguration,
                    m.apply_configuration.as_ref()?.expression.clone(),
                ),
                _ => return None,
            };
            let expression = expression.unwrap_or_default();
            let program = compiler(&expression, output);
            Some(Patcher {
                expression,
                output,
                program,
            })
        })
        .collect();
    let reinvocation = match spec.and_then(|s| s.reinvocation_policy.as_deref()) {
        Some("IfNeeded") => ReinvocationPolicy::IfNeeded,
        _ => ReinvocationPolicy::Never,
    };
    CompiledMutations {
        expected: mutations.len(),
        patchers,
        reinvocation,
    }
}
