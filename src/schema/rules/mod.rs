//! CEL validation rules (`x-kubernetes-validations`) of a served version: checked when
//! the definition loads (compile errors, costs), compiled once into a validator tree
//! mirroring the schema, and run after schema validation on every write, as
//! apiextensions-apiserver's `schema/cel` package and the CRD strategy run them.
//! `adaptor` shows the structural schema to the CEL engine through cel's own
//! `cel::schema::Schema` trait (kube's `model.SchemaAdaptor`).

mod adaptor;
mod causes;
mod compile;
pub mod definition;
mod evaluate;
mod fieldpath;
mod path;
mod ratchet;

use serde_json::Value;

pub use evaluate::Findings;

use crate::error::{ErrorType, FieldError};
use crate::schema::Schema;

/// A version's compiled rules (nothing when its schema has none).
#[derive(Debug, Default)]
pub struct Rules {
    root: Option<compile::Validator>,
}

impl Rules {
    /// Compiles every rule of `schema` in the stored-expression environment. Rules
    /// that do not compile stay in the tree and report kube's "rule compile error" when
    /// they would run (the load-time check refuses such definitions first).
    pub fn compile(schema: &Schema) -> Rules {
        let env = crate::cel::env::stored();
        Rules {
            root: compile::root(&env, schema),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.root.is_none()
    }

    /// Runs the rules on `new` (and `old` on update) with kube's per-object budget.
    pub fn validate(&self, schema: &Schema, new: &Value, old: Option<&Value>) -> Findings {
        let Some(root) = &self.root else {
            return Findings::default();
        };
        let mut walk = evaluate::Walk::new();
        let corr = ratchet::Correlation::root(schema, new, old);
        walk.node(root, schema, &path::Path::Root, new, old, &corr);
        walk.findings()
    }
}

/// kube's `hasBlockingErr`: schema failures after which rules are not run (the object
/// may not have the shape the rules were compiled for).
pub fn blocked(errors: &[FieldError]) -> bool {
    errors.iter().any(|e| {
        matches!(
            e.reason,
            ErrorType::NotSupported
                | ErrorType::Required
                | ErrorType::TooLong
                | ErrorType::TooMany
                | ErrorType::TypeInvalid
        )
    })
}

/// The cause kube adds instead of running the rules.
pub fn not_checked() -> FieldError {
    FieldError::invalid(
        "<nil>",
        &Value::Null,
        "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
    )
}

#[cfg(test)]
mod tests;
