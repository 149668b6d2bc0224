//! One invocation of a MutatingAdmissionPolicy (the loop body of kube's
//! `dispatchInvocations` and `dispatchOne`, and the patchers' `Patch`): its
//! matchConditions, then each mutation in order evaluated against the object as the
//! previous ones left it (each in an evaluation context of its own, within kube's
//! runtime budget), its result applied and defaulted; a failing mutation is a
//! configuration error of the invocation (kube's text) and the next one still runs.

use std::time::{Duration, Instant};

use serde_json::Value as Json;

use super::compile::{CompiledMutations, Patcher};
use super::patch::{apply_configuration, apply_json_patch};
use crate::admission::policy::generic::conditions;
use crate::cel::admission::context::{Bindings, Context, RUNTIME_CEL_COST_BUDGET, Values};
use crate::cel::mutation::{Output, json_patch_ops, object_json};
use crate::cel::value::Value;
use crate::fieldmanager::typed::TypeRef;

/// The values of an invocation besides the object (which each mutation updates).
pub struct InvocationInput<'a> {
    pub old_object: Option<&'a Json>,
    /// `request` with the matched resource.
    pub request: &'a Json,
    /// `request` as matchConditions see it: the request's own resource.
    pub match_request: &'a Json,
    pub params: Option<&'a Json>,
    pub namespace_object: Option<&'a Json>,
    /// `authorizer` and `authorizer.requestResource`.
    pub authorizer: Option<(Value<'a>, Value<'a>)>,
}

/// What the mutations of one invocation did.
#[derive(Debug, Default, PartialEq)]
pub struct Outcome {
    /// The object after the mutations that applied.
    pub object: Option<Json>,
    /// The failed mutations' messages (kube's `addConfigError`, reason Invalid).
    pub errors: Vec<String>,
}

/// kube's internal error for a policy whose compiled patchers do not match its mutations.
pub fn patcher_count_error(policy: &str, compiled: &CompiledMutations) -> Option<String> {
    (compiled.patchers.len() != compiled.expected).then(|| {
        format!(
            "expected {} compiled evaluators for policy {policy}, got {}",
            compiled.expected,
            compiled.patchers.len()
        )
    })
}

/// kube's `matchconditions.matcher.Match` (no namespace bound, the request's own
/// resource), as [`conditions::matches`] judges it.
pub fn matches(
    compiled: &CompiledMutations,
    object: Option<&Json>,
    input: &InvocationInput<'_>,
) -> Result<bool, String> {
    let values = Values::new(&Bindings {
        object,
        old_object: input.old_object,
        params: input.params,
        namespace_object: None,
        request: input.match_request,
        authorizer: input.authorizer.clone(),
    });
    let (composition, policy) = (&compiled.composition, compiled.failure_policy);
    conditions::matches(composition, &compiled.match_conditions, values, policy)
}

/// What runs around each mutation: kube's object defaulter on each patched object, and
/// the metrics told of each mutation run (its error, how long it took).
pub struct Hooks<'h> {
    pub default: &'h dyn Fn(&mut Json),
    pub observe: &'h dyn Fn(Option<&str>, Duration),
}

/// Runs every mutation in order on `object` (`None`: nothing to patch, as for DELETE).
pub fn run_mutations(
    compiled: &CompiledMutations,
    ty: &TypeRef,
    object: Option<Json>,
    input: &InvocationInput<'_>,
    hooks: &Hooks<'_>,
) -> Outcome {
    let mut outcome = Outcome {
        object,
        errors: Vec::new(),
    };
    for patcher in &compiled.patchers {
        let Some(current) = &outcome.object else {
            continue;
        };
        let started = Instant::now();
        let result = run_one(compiled, patcher, ty, current, input);
        (hooks.observe)(result.as_ref().err().map(String::as_str), started.elapsed());
        match result {
            Ok(mut next) => {
                (hooks.default)(&mut next);
                outcome.object = Some(next);
            }
            Err(e) => outcome.errors.push(e),
        }
    }
    outcome
}

/// One patcher's `Patch`: kube's texts for a compile error (its detail as is), an
/// evaluation error (`expression '<e>' resulted in error: <err>`) and a failed patch.
fn run_one(
    compiled: &CompiledMutations,
    patcher: &Patcher,
    ty: &TypeRef,
    object: &Json,
    input: &InvocationInput<'_>,
) -> Result<Json, String> {
    if let Err(detail) = &patcher.expression.program {
        return Err(detail.clone());
    }
    let values = Values::new(&Bindings {
        object: Some(object),
        old_object: input.old_object,
        params: input.params,
        namespace_object: input.namespace_object,
        request: input.request,
        authorizer: input.authorizer.clone(),
    })
    .map_err(|e| e.to_string())?;
    let mut context = Context::new(&compiled.composition, &values);
    let mut remaining = RUNTIME_CEL_COST_BUDGET;
    let evaluation = context
        .evaluate(&patcher.expression, &mut remaining)
        .map_err(|e| e.to_string())?;
    let value = evaluation.result?;
    match patcher.output {
        Output::ApplyConfiguration => apply_configuration(ty, object, object_json(&value)?),
        Output::JsonPatch => apply_json_patch(object, &json_patch_ops(&value)?),
    }
}
