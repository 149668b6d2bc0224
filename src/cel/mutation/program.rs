//! What a mutation evaluates to (kube's `patchType`) and its exact output types
//! (`Object` for ApplyConfiguration, `list(JSONPatch)` for JSONPatch) with kube's texts;
//! the policies compile mutations through `cel::admission::composition`. The unit tests
//! of the mutation types compile expressions on their own with [`standalone`]: `object`,
//! `oldObject`, `request` and `params` as dyn.

use super::{JSON_PATCH_TYPE_NAME, OBJECT_TYPE_NAME};
use crate::cel::types::Type;

/// What a mutation evaluates to (kube's `patchType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// `ApplyConfiguration`: an `Object{...}` value.
    ApplyConfiguration,
    /// `JSONPatch`: a list of `JSONPatch{...}` values.
    JsonPatch,
}

impl Output {
    /// Whether a checked output type is exactly this one (cel-go's `IsExactType`).
    pub fn accepts(self, t: &Type) -> bool {
        match (self, t) {
            (Output::ApplyConfiguration, Type::Object(d)) => d.name == OBJECT_TYPE_NAME,
            (Output::JsonPatch, Type::List(elem)) => {
                matches!(&**elem, Type::Object(d) if d.name == JSON_PATCH_TYPE_NAME)
            }
            _ => false,
        }
    }

    /// The type's name as kube prints it in `must evaluate to <type> but got <type>`.
    pub fn type_name(self) -> &'static str {
        match self {
            Output::ApplyConfiguration => "Object",
            Output::JsonPatch => "list(JSONPatch)",
        }
    }
}

#[cfg(test)]
pub mod standalone {
    //! A mutation expression compiled on its own, for the mutation types' unit tests.

    use serde_json::Value as Json;

    use super::Output;
    use crate::cel::check::{self, Var};
    use crate::cel::decl::DeclType;
    use crate::cel::env::Env;
    use crate::cel::eval::{CostTracker, Plan, try_from_json};
    use crate::cel::types::Type;
    use crate::cel::value::{EvalError, Value};

    const VARS: [&str; 4] = ["object", "oldObject", "request", "params"];

    /// A compiled mutation expression.
    pub struct MutationProgram {
        plan: Plan,
    }

    impl std::fmt::Debug for MutationProgram {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("MutationProgram")
        }
    }

    /// The JSON values of one evaluation (`None` is `null`).
    pub struct MutationInput<'a> {
        pub object: Option<&'a Json>,
        pub old_object: Option<&'a Json>,
        pub request: &'a Json,
        pub params: Option<&'a Json>,
    }

    impl MutationProgram {
        /// Compiles `source` in `env` (which must have the mutation types on); the error is
        /// kube's detail (`compilation failed: ...`, `must evaluate to Object but got dyn`).
        pub fn compile(env: &Env, source: &str, output: Output) -> Result<MutationProgram, String> {
            let ast =
                crate::cel::parse::parse(source).map_err(|e| format!("compilation failed: {e}"))?;
            let vars = VARS.map(|name| Var {
                name: name.to_string(),
                ty: Type::Dyn,
                decl: None,
            });
            let checked =
                check::check(ast, env, &vars).map_err(|e| format!("compilation failed: {e}"))?;
            let found = checked.type_of(checked.ast.expr.id);
            if !output.accepts(found) {
                return Err(format!(
                    "must evaluate to {} but got {found}",
                    output.type_name()
                ));
            }
            let not_instantiated = |e: String| format!("program instantiation failed: {e}");
            check::instantiate(&checked).map_err(not_instantiated)?;
            let plan = Plan::new(&checked, env, &VARS).map_err(not_instantiated)?;
            Ok(MutationProgram { plan })
        }

        /// Evaluates, adding cel-go's run-time cost to `tracker`.
        pub fn evaluate<'a>(
            &self,
            input: &MutationInput<'a>,
            tracker: &mut CostTracker,
        ) -> Result<Value<'a>, EvalError> {
            let dynamic = |v: Option<&'a Json>| match v {
                Some(json) => try_from_json(json, DeclType::dyn_json()),
                None => Ok(Value::Null),
            };
            let values = [
                dynamic(input.object)?,
                dynamic(input.old_object)?,
                dynamic(Some(input.request))?,
                dynamic(input.params)?,
            ];
            self.plan.evaluate(&values, tracker)
        }
    }
}
