//! The environment of admission expressions (k8s.io/apiserver
//! `pkg/admission/plugin/cel/compile.go`, as webhooks' `matchConditions` use it: no
//! `params`, with the authorizer): the stored-expressions functions, and the variables
//! `object` and `oldObject` (dyn), `namespaceObject` (`kubernetes.Namespace`), `request`
//! (`kubernetes.AdmissionRequest`), `authorizer` and `authorizer.requestResource`. One
//! expression compiles into an [`AdmissionProgram`] with kube's texts and evaluates
//! against an [`Activation`] of plain JSON and authorizer values.
//!
//! Admission policies add `params` and the composited `variables`:
//! [`composition`] compiles a policy's expressions, [`context`] evaluates them.

pub mod composition;
pub mod context;
mod types;

#[cfg(test)]
mod composition_tests;
#[cfg(test)]
mod tests;

use serde_json::Value as Json;

use super::check::{self, Var};
use super::cost::{self, CostEstimate};
use super::decl::DeclType;
use super::env::Env;
use super::eval::{CostTracker, Plan, try_from_json};
use super::lib::authz::{AUTHORIZER_TYPE, RESOURCE_CHECK_TYPE};
use super::types::Type;
use super::value::{EvalError, Value};
pub use types::{namespace_type, request_type};

pub const OBJECT: &str = "object";
pub const OLD_OBJECT: &str = "oldObject";
pub const NAMESPACE_OBJECT: &str = "namespaceObject";
pub const REQUEST: &str = "request";
pub const AUTHORIZER: &str = "authorizer";
pub const REQUEST_RESOURCE: &str = "authorizer.requestResource";

/// The variables in slot order.
const VARS: [&str; 6] = [
    OBJECT,
    OLD_OBJECT,
    NAMESPACE_OBJECT,
    REQUEST,
    AUTHORIZER,
    REQUEST_RESOURCE,
];

/// The values of one evaluation: JSON as the request carries it (`None` is `null`), the
/// request in kube's `AdmissionRequest` wire form (absent fields as Go omits them), and
/// the authorizer values of [`crate::cel::lib::authz`]. The declared types only check
/// expressions: at run time kube reads `request` and `namespaceObject` as plain JSON
/// (`SchemalessTypedToVal`), and so does this.
pub struct Activation<'a> {
    pub object: Option<&'a Json>,
    pub old_object: Option<&'a Json>,
    pub namespace_object: Option<&'a Json>,
    pub request: &'a Json,
    pub authorizer: Value<'a>,
    pub request_resource: Value<'a>,
}

/// A compiled boolean admission expression, shared read-only between requests.
pub struct AdmissionProgram {
    plan: Plan,
    /// cel-go's estimated maximum cost of one evaluation.
    pub cost: CostEstimate,
}

impl std::fmt::Debug for AdmissionProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdmissionProgram")
            .field("cost", &self.cost)
            .finish()
    }
}

impl AdmissionProgram {
    /// Compiles an expression that must evaluate to a bool; the error is kube's detail
    /// (`compilation failed: ERROR: <input>:1:1: ...`, `must evaluate to bool but got
    /// dyn`, `program instantiation failed: ...`).
    pub fn compile(env: &Env, source: &str) -> Result<AdmissionProgram, String> {
        let ast = super::parse::parse(source).map_err(|e| format!("compilation failed: {e}"))?;
        let checked =
            check::check(ast, env, &vars()).map_err(|e| format!("compilation failed: {e}"))?;
        let output = checked.type_of(checked.ast.expr.id);
        if !matches!(output, Type::Bool) {
            return Err(format!("must evaluate to bool but got {output}"));
        }
        let cost = cost::estimate_with_root(&checked, None);
        let not_instantiated = |e: String| format!("program instantiation failed: {e}");
        check::instantiate(&checked).map_err(not_instantiated)?;
        let plan = Plan::new(&checked, env, &VARS).map_err(not_instantiated)?;
        Ok(AdmissionProgram { plan, cost })
    }

    /// Evaluates, adding cel-go's run-time cost to `tracker` (which stops at its limit).
    pub fn evaluate<'a>(
        &self,
        activation: &Activation<'a>,
        tracker: &mut CostTracker,
    ) -> Result<Value<'a>, EvalError> {
        // kube binds every JSON variable as cel-go's adapter reads decoded JSON, whatever
        // its declared type: a missing field is `no such key`, a null one `null`.
        let dynamic = |v: Option<&'a Json>| match v {
            Some(json) => try_from_json(json, DeclType::dyn_json()),
            None => Ok(Value::Null),
        };
        let values = [
            dynamic(activation.object)?,
            dynamic(activation.old_object)?,
            dynamic(activation.namespace_object)?,
            dynamic(Some(activation.request))?,
            activation.authorizer.clone(),
            activation.request_resource.clone(),
        ];
        self.plan.evaluate(&values, tracker)
    }
}

fn vars() -> [Var; 6] {
    let var = |name: &str, ty: Type, decl: Option<&std::sync::Arc<DeclType>>| Var {
        name: name.to_string(),
        ty,
        decl: decl.cloned(),
    };
    let request = request_type();
    let namespace = namespace_type();
    [
        var(OBJECT, Type::Dyn, None),
        var(OLD_OBJECT, Type::Dyn, None),
        var(
            NAMESPACE_OBJECT,
            Type::Object(std::sync::Arc::clone(namespace)),
            Some(namespace),
        ),
        var(
            REQUEST,
            Type::Object(std::sync::Arc::clone(request)),
            Some(request),
        ),
        var(AUTHORIZER, Type::Opaque(AUTHORIZER_TYPE), None),
        var(REQUEST_RESOURCE, Type::Opaque(RESOURCE_CHECK_TYPE), None),
    ]
}
