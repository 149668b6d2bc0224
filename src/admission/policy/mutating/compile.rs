//! kube's `compilePolicy` (`mutating/compilation.go`): a MutatingAdmissionPolicy compiled
//! once per generation in its composited environment — its variables (with `params` when
//! it has a `paramKind`, and the authorizer), its matchConditions, then each mutation for
//! its `patchType` with the mutation types on; a compile error is kept and reported when
//! the policy is invoked.

use std::sync::Arc;

use k8s_openapi::api::admissionregistration::v1::MutatingAdmissionPolicy;

use crate::admission::policy::generic::hooks::FailurePolicy;
use crate::admission::policy::validating::compile::Reads;
use crate::cel::admission::composition::{
    Compiler, Composition, Declarations, Output as ExpressionOutput, PolicyExpression,
};
use crate::cel::mutation::Output;

/// One compiled mutation (kube's `Patcher`): its output and compiled expression (or
/// compile error).
#[derive(Debug)]
pub struct Patcher {
    pub output: Output,
    pub expression: PolicyExpression,
}

/// `reinvocationPolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReinvocationPolicy {
    Never,
    IfNeeded,
}

/// A policy's mutations compiled (kube's `PolicyEvaluator`).
#[derive(Debug)]
pub struct CompiledMutations {
    /// The policy's variables, which its expressions read lazily.
    pub composition: Arc<Composition>,
    /// `matchConditions` by name.
    pub match_conditions: Vec<(String, PolicyExpression)>,
    /// `len(spec.mutations)`: kube refuses an invocation whose patchers do not match it.
    pub expected: usize,
    pub patchers: Vec<Patcher>,
    pub reinvocation: ReinvocationPolicy,
    pub failure_policy: FailurePolicy,
    /// What the expressions can read of the costly variables.
    pub reads: Reads,
}

/// kube's `compilePolicy`: a mutation whose `patchType` names a missing body (or an
/// unknown type) gets no patcher, as in kube.
pub fn compile_mutations(policy: &MutatingAdmissionPolicy) -> CompiledMutations {
    let spec = policy.spec.as_ref();
    let decls = Declarations {
        has_params: spec.is_some_and(|s| s.param_kind.is_some()),
        has_authorizer: true,
        has_patch_types: false,
    };
    let patch_decls = Declarations {
        has_patch_types: true,
        ..decls
    };
    let mut compiler = Compiler::new();
    for v in spec
        .and_then(|s| s.variables.as_deref())
        .unwrap_or_default()
    {
        compiler.compile_variable(&v.name, &v.expression, decls);
    }
    let match_conditions = spec
        .and_then(|s| s.match_conditions.as_deref())
        .unwrap_or_default()
        .iter()
        .map(|c| {
            let compiled = compiler.compile(&c.expression, decls, ExpressionOutput::Bool);
            (c.name.clone(), compiled)
        })
        .collect();
    let mutations = spec
        .and_then(|s| s.mutations.as_deref())
        .unwrap_or_default();
    let patchers: Vec<Patcher> = mutations
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
            let source = expression.unwrap_or_default();
            let expression =
                compiler.compile(&source, patch_decls, ExpressionOutput::Patch(output));
            Some(Patcher { output, expression })
        })
        .collect();
    let reinvocation = match spec.and_then(|s| s.reinvocation_policy.as_deref()) {
        Some("IfNeeded") => ReinvocationPolicy::IfNeeded,
        _ => ReinvocationPolicy::Never,
    };
    let reads = Reads::of(
        (spec
            .and_then(|s| s.variables.as_deref())
            .unwrap_or_default())
        .iter()
        .map(|v| v.expression.as_str()),
        (spec
            .and_then(|s| s.match_conditions.as_deref())
            .unwrap_or_default())
        .iter()
        .map(|c| c.expression.as_str()),
        patchers
            .iter()
            .map(|p: &Patcher| p.expression.source.as_str()),
    );
    CompiledMutations {
        reads,
        composition: compiler.finish(),
        match_conditions,
        expected: mutations.len(),
        patchers,
        reinvocation,
        failure_policy: FailurePolicy::of(spec.and_then(|s| s.failure_policy.as_deref())),
    }
}

impl CompiledMutations {
    /// `(what, error)` of each expression that failed to compile, to log once per
    /// generation (`variables[0]`, `mutations[1]`, ...).
    pub fn compile_errors(&self) -> Vec<(String, &str)> {
        let variables = self.composition.variables.iter().map(|v| &v.expression);
        let conditions = self.match_conditions.iter().map(|(_, e)| e);
        let mutations = self.patchers.iter().map(|p| &p.expression);
        let groups: [(&str, Vec<&PolicyExpression>); 3] = [
            ("variables", variables.collect()),
            ("matchConditions", conditions.collect()),
            ("mutations", mutations.collect()),
        ];
        let mut errors = Vec::new();
        for (what, expressions) in groups {
            for (i, e) in expressions.into_iter().enumerate() {
                if let Err(message) = &e.program {
                    errors.push((format!("{what}[{i}]"), message.as_str()));
                }
            }
        }
        errors
    }
}
