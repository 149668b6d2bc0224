//! One expression compiled for a schema node, as apiextensions' `compileRule` compiles
//! it: parsed, checked with `self` and `oldSelf` declared (oldSelf optional for
//! `optionalOldSelf` rules), its result type required, planned and cost-estimated.

use std::sync::Arc;

use super::check::{self, Var};
use super::cost::{self, CostEstimate};
use super::decl::DeclType;
use super::env::Env;
use super::eval::{CostTracker, Plan};
use super::types::Type;
use super::value::{EvalError, Value};

/// The variables of a rule, in slot order.
pub const SELF: &str = "self";
pub const OLD_SELF: &str = "oldSelf";
const SELF_TYPE: &str = "selfType";

/// What a compiled expression must produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// A rule: `cel expression must evaluate to a bool`.
    Rule,
    /// A messageExpression: `messageExpression must evaluate to a string`.
    Message,
}

/// A compiled expression, shared read-only between requests.
pub struct Program {
    plan: Plan,
    /// cel-go's estimated maximum cost of one evaluation.
    pub cost: CostEstimate,
    /// Whether the expression refers to `oldSelf` (a transition rule).
    pub uses_old_self: bool,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("cost", &self.cost)
            .field("uses_old_self", &self.uses_old_self)
            .finish()
    }
}

impl Program {
    /// Compiles `source` against the node `decl`; the error is kube's detail text
    /// (`compilation failed: ERROR: <input>:1:6: ...`).
    pub fn compile(
        env: &Env,
        source: &str,
        decl: &Arc<DeclType>,
        optional_old_self: bool,
        output: Output,
    ) -> Result<Program, String> {
        let (failed, wrong_type, expected, instantiation) = match output {
            Output::Rule => (
                "compilation failed: ",
                "cel expression must evaluate to a bool",
                Type::Bool,
                "program instantiation failed: ",
            ),
            Output::Message => (
                "messageExpression compilation failed: ",
                "messageExpression must evaluate to a string",
                Type::String,
                "messageExpression instantiation failed: ",
            ),
        };
        // kube names the scope's object type `selfType<nanoseconds>`; the number is
        // not reproducible, so messages say `selfType`.
        let decl = &decl.scoped(SELF_TYPE);
        let self_type = decl.cel_type();
        let old_type = if optional_old_self {
            Type::optional(self_type.clone())
        } else {
            self_type.clone()
        };
        let vars = [
            Var {
                name: SELF.to_string(),
                ty: self_type,
                decl: Some(Arc::clone(decl)),
            },
            Var {
                name: OLD_SELF.to_string(),
                ty: old_type,
                decl: (!optional_old_self).then(|| Arc::clone(decl)),
            },
        ];
        let ast = super::parse::parse(source).map_err(|e| format!("{failed}{e}"))?;
        let checked = check::check(ast, env, &vars).map_err(|e| format!("{failed}{e}"))?;
        if !same_output(checked.type_of(checked.ast.expr.id), &expected) {
            return Err(wrong_type.to_string());
        }
        let uses_old_self = checked
            .refs
            .values()
            .any(|r| matches!(r, super::checked::Reference::Variable(n) if n == OLD_SELF));
        let cost = cost::estimate_with_root(&checked, Some(decl));
        let not_instantiated = |e: String| format!("{instantiation}{e}");
        check::instantiate(&checked).map_err(not_instantiated)?;
        let plan = Plan::new(&checked, env, &[SELF, OLD_SELF]).map_err(not_instantiated)?;
        Ok(Program {
            plan,
            cost,
            uses_old_self,
        })
    }

    /// Evaluates with `self` and `oldSelf` bound; the tracker counts cel-go's run-time
    /// cost and stops at its limit.
    pub fn evaluate<'a>(
        &self,
        self_value: Value<'a>,
        old_self: Value<'a>,
        tracker: &mut CostTracker,
    ) -> Result<Value<'a>, EvalError> {
        self.plan.evaluate(&[self_value, old_self], tracker)
    }
}

/// cel-go's `ast.OutputType() != cel.BoolType`: exactly that type (not `dyn`).
fn same_output(found: &Type, expected: &Type) -> bool {
    matches!(
        (found, expected),
        (Type::Bool, Type::Bool) | (Type::String, Type::String)
    )
}
