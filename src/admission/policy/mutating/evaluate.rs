//! One invocation's mutations (the loop body of kube's `dispatchInvocations` and
//! `dispatchOne`, and the patchers' `Patch`): each mutation in order evaluated against the
//! object as the previous ones left it, its result applied; a failing mutation is a
//! configuration error of the invocation (kube's text) and the next one still runs.

use serde_json::Value as Json;

use super::compile::{CompiledMutations, Patcher};
use super::patch::{apply_configuration, apply_json_patch};
use crate::cel::cost::PER_CALL_LIMIT;
use crate::cel::eval::CostTracker;
use crate::cel::mutation::{MutationInput, Output, json_patch_ops, object_json};
use crate::fieldmanager::typed::TypeRef;

/// The values of an invocation besides the object (which each mutation updates).
pub struct InvocationInput<'a> {
    pub old_object: Option<&'a Json>,
    pub request: &'a Json,
    pub params: Option<&'a Json>,
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

/// Runs every mutation in order on `object` (`None`: nothing to patch, as for DELETE).
pub fn run_mutations(
    compiled: &CompiledMutations,
    ty: &TypeRef,
    object: Option<Json>,
    input: &InvocationInput<'_>,
) -> Outcome {
    let mut outcome = Outcome {
        object,
        errors: Vec::new(),
    };
    for patcher in &compiled.patchers {
        let Some(current) = &outcome.object else {
            continue;
        };
        match run_one(patcher, ty, current, input) {
            Ok(next) => outcome.object = Some(next),
            Err(e) => outcome.errors.push(e),
        }
    }
    outcome
}

/// One patcher's `Patch`: kube's texts for a compile error (its detail as is), an
/// evaluation error (`expression '<e>' resulted in error: <err>`) and a failed patch.
fn run_one(
    patcher: &Patcher,
    ty: &TypeRef,
    object: &Json,
    input: &InvocationInput<'_>,
) -> Result<Json, String> {
    let program = patcher.program.as_ref().map_err(Clone::clone)?;
    let mut tracker = CostTracker {
        actual: 0,
        limit: Some(PER_CALL_LIMIT),
    };
    let values = MutationInput {
        object: Some(object),
        old_object: input.old_object,
        request: input.request,
        params: input.params,
    };
    let value = program
        .evaluate(&values, &mut tracker)
        .map_err(|e| format!("expression '{}' resulted in error: {e}", patcher.expression))?;
    match patcher.output {
        Output::ApplyConfiguration => apply_configuration(ty, object, object_json(&value)?),
        Output::JsonPatch => apply_json_patch(object, &json_patch_ops(&value)?),
    }
}
