//! A ValidatingAdmissionPolicy compiled once (kube's `compilePolicy`): its variables,
//! then its matchConditions, validations and auditAnnotations (with the authorizer) and
//! messageExpressions (without), all in the policy's composited environment, `params`
//! declared when it has a `paramKind`. An expression that does not compile is kept with
//! its error, which its evaluation reports (`compilation error: ...`).

use std::sync::Arc;

use k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicySpec;

use crate::cel::admission::composition::{
    Compiler, Composition, Declarations, Output, PolicyExpression,
};

pub use crate::admission::failure::FailurePolicy;

/// One `validations` entry.
#[derive(Debug)]
pub struct CompiledValidation {
    pub expression: PolicyExpression,
    pub message: String,
    pub reason: Option<String>,
    pub message_expression: Option<PolicyExpression>,
}

/// What a compiled policy's expressions can read of the costly variables. Building a
/// `request` (kube's `CreateAdmissionRequest`, with the user's groups and extra and the
/// options) costs more than evaluating a few expressions, so one no expression can read
/// is bound as `null` instead; and only a policy that can call the `authorizer` (whose
/// SubjectAccessReviews block) is evaluated off the runtime's worker. Decided once per
/// compile, conservatively: an expression "can read" a variable when its source contains
/// the word (a string literal with it only costs the build).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reads {
    /// `request` by the validations, messages, audit annotations or mutations (and
    /// variables).
    pub request: bool,
    /// `request` by the matchConditions (and variables).
    pub match_request: bool,
    /// `authorizer` (or `authorizer.requestResource`) by any expression.
    pub authorizer: bool,
}

impl Reads {
    /// What a policy reads whose variables, matchConditions and other expressions have
    /// these sources.
    pub fn of<'s>(
        variables: impl IntoIterator<Item = &'s str>,
        match_conditions: impl IntoIterator<Item = &'s str>,
        others: impl IntoIterator<Item = &'s str>,
    ) -> Reads {
        let mention = |word: &str, sources: &[&str]| sources.iter().any(|s| s.contains(word));
        let variables: Vec<&str> = variables.into_iter().collect();
        let conditions: Vec<&str> = match_conditions.into_iter().collect();
        let others: Vec<&str> = others.into_iter().collect();
        let in_variables = mention("request", &variables);
        let everywhere = [&variables[..], &conditions, &others].concat();
        Reads {
            request: in_variables || mention("request", &others),
            match_request: in_variables || mention("request", &conditions),
            authorizer: mention("authorizer", &everywhere),
        }
    }
}

/// A compiled policy, shared read-only between requests.
#[derive(Debug)]
pub struct Validator {
    pub(super) composition: Arc<Composition>,
    pub(super) match_conditions: Vec<(String, PolicyExpression)>,
    pub(super) validations: Vec<CompiledValidation>,
    pub(super) audit_annotations: Vec<(String, PolicyExpression)>,
    pub failure_policy: FailurePolicy,
    /// What the expressions can read of the costly variables.
    pub reads: Reads,
}

impl Validator {
    pub fn compile(spec: &ValidatingAdmissionPolicySpec) -> Validator {
        let has_params = spec.param_kind.is_some();
        let with_authorizer = Declarations {
            has_params,
            has_authorizer: true,
            has_patch_types: false,
        };
        let without_authorizer = Declarations {
            has_authorizer: false,
            ..with_authorizer
        };
        let mut compiler = Compiler::new();
        for v in spec.variables.iter().flatten() {
            compiler.compile_variable(&v.name, &v.expression, with_authorizer);
        }
        let compile = |source: &str, decls, output| compiler.compile(source, decls, output);
        let match_conditions = spec
            .match_conditions
            .iter()
            .flatten()
            .map(|c| {
                let expression = compile(&c.expression, with_authorizer, Output::Bool);
                (c.name.clone(), expression)
            })
            .collect();
        let validations = spec
            .validations
            .iter()
            .flatten()
            .map(|v| CompiledValidation {
                expression: compile(&v.expression, with_authorizer, Output::Bool),
                message: v.message.clone().unwrap_or_default(),
                reason: v.reason.clone(),
                message_expression: v
                    .message_expression
                    .as_deref()
                    .filter(|m| !m.is_empty())
                    .map(|m| compile(m, without_authorizer, Output::String)),
            })
            .collect();
        let audit_annotations = spec
            .audit_annotations
            .iter()
            .flatten()
            .map(|a| {
                let expression =
                    compile(&a.value_expression, with_authorizer, Output::StringOrNull);
                (a.key.clone(), expression)
            })
            .collect();
        let reads = Reads::of(
            spec.variables
                .iter()
                .flatten()
                .map(|v| v.expression.as_str()),
            (spec.match_conditions.iter().flatten()).map(|c| c.expression.as_str()),
            (spec.validations.iter().flatten())
                .flat_map(|v| [Some(v.expression.as_str()), v.message_expression.as_deref()])
                .flatten()
                .chain(
                    (spec.audit_annotations.iter().flatten()).map(|a| a.value_expression.as_str()),
                ),
        );
        Validator {
            reads,
            composition: compiler.finish(),
            match_conditions,
            validations,
            audit_annotations,
            failure_policy: FailurePolicy::of(spec.failure_policy.as_deref()),
        }
    }

    /// `(what, error)` of each expression that failed to compile, to log once per
    /// generation (`variables[0]`, `validations[1].messageExpression`, ...).
    pub fn compile_errors(&self) -> Vec<(String, &str)> {
        let mut errors = Vec::new();
        fn note<'v>(errors: &mut Vec<(String, &'v str)>, what: String, e: &'v PolicyExpression) {
            if let Err(message) = &e.program {
                errors.push((what, message.as_str()));
            }
        }
        for (i, v) in self.composition.variables.iter().enumerate() {
            note(&mut errors, format!("variables[{i}]"), &v.expression);
        }
        for (i, (_, c)) in self.match_conditions.iter().enumerate() {
            note(&mut errors, format!("matchConditions[{i}]"), c);
        }
        for (i, v) in self.validations.iter().enumerate() {
            note(&mut errors, format!("validations[{i}]"), &v.expression);
            if let Some(m) = &v.message_expression {
                note(
                    &mut errors,
                    format!("validations[{i}].messageExpression"),
                    m,
                );
            }
        }
        for (i, (_, a)) in self.audit_annotations.iter().enumerate() {
            note(&mut errors, format!("auditAnnotations[{i}]"), a);
        }
        errors
    }
}
