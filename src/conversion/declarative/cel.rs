//! A direction written as one CEL expression: compiled once in the stored-expressions
//! environment of CRD validation rules with kube's mutation types (as a
//! MutatingAdmissionPolicy's ApplyConfiguration builds objects: `Object{spec:
//! Object.spec{...}}`), the input object bound as `object` (plain JSON, read as
//! admission expressions read objects: a missing field is `no such key`), evaluated
//! under the cost limit of one validation rule (kube's `PerCallLimit`). It returns the
//! converted object: an `Object{...}` value or a map (kube's environment wants map
//! literals of one value type: `dyn(...)` mixes them).

use serde_json::Value as Json;

use crate::cel::check::{self, Var};
use crate::cel::cost::PER_CALL_LIMIT;
use crate::cel::decl::DeclType;
use crate::cel::eval::{CostTracker, Plan, ops, try_from_json};
use crate::cel::mutation::{Output, object_json, to_json};
use crate::cel::types::Type;
use crate::cel::value::Value;

/// The expression's one variable: the object to convert.
pub const OBJECT: &str = "object";

/// A compiled conversion expression, shared read-only between requests.
pub struct CelRule {
    plan: Plan,
}

impl std::fmt::Debug for CelRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CelRule")
    }
}

impl CelRule {
    /// Compiles `source`; the error is the engine's text (`compilation failed: ERROR:
    /// <input>:1:8: ...`) or the wrong result type.
    pub fn compile(source: &str) -> Result<CelRule, String> {
        let env = crate::cel::env::with_patch_types();
        let ast =
            crate::cel::parse::parse(source).map_err(|e| format!("compilation failed: {e}"))?;
        let vars = [Var {
            name: OBJECT.to_string(),
            ty: Type::Dyn,
            decl: None,
        }];
        let checked =
            check::check(ast, &env, &vars).map_err(|e| format!("compilation failed: {e}"))?;
        let output = checked.type_of(checked.ast.expr.id);
        let object = Output::ApplyConfiguration.accepts(output);
        if !object && !matches!(output, Type::Map(..) | Type::Dyn) {
            return Err(format!(
                "must evaluate to the converted object (Object or a map) but got {output}"
            ));
        }
        let not_instantiated = |e: String| format!("program instantiation failed: {e}");
        check::instantiate(&checked).map_err(not_instantiated)?;
        let plan = Plan::new(&checked, &env, &[OBJECT]).map_err(not_instantiated)?;
        Ok(CelRule { plan })
    }

    /// Evaluates on `object`; the result is the expression's map as JSON.
    pub fn evaluate(&self, object: &Json) -> Result<Json, String> {
        let input = try_from_json(object, DeclType::dyn_json()).map_err(|e| e.to_string())?;
        let mut tracker = CostTracker {
            actual: 0,
            limit: Some(PER_CALL_LIMIT),
        };
        let result = self
            .plan
            .evaluate(&[input], &mut tracker)
            .map_err(|e| e.to_string())?;
        match &result {
            Value::Map(_) => to_json(&result),
            Value::Opaque(_) => object_json(&result).map(Json::Object),
            other => Err(format!(
                "the expression returned {} instead of the converted object (Object or a map)",
                ops::type_name(other)
            )),
        }
    }
}
