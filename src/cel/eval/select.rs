//! The common qualifier, a field of the object under validation selected by a constant
//! name (`self.spec.replicas`, `has(self.x)`): looked up in its JSON by that name,
//! without building a key value, with the same outcomes, errors and costs as the
//! general qualification in `exec`.

use crate::cel::value::{EvalError, Map, Value};

use super::exec::Frame;
use super::json;
use super::konst::Const;
use super::node::{Qual, QualKey};

/// A field selection's outcome.
pub(super) enum Selected<'a> {
    /// The field's value: qualification goes on.
    Value(Value<'a>),
    /// An optional selection missed: the attribute is `optional.none()`.
    Missing,
    /// The answer of a presence test (`has()`): the attribute's value.
    Present(bool),
}

impl<'a> Frame<'_, 'a> {
    /// `q` applied to `obj` when it selects a field of a JSON object by a constant
    /// name; `None` for any other qualification.
    pub(super) fn select_field(
        &mut self,
        obj: &Value<'a>,
        q: &Qual,
        optional: bool,
    ) -> Option<Result<Selected<'a>, EvalError>> {
        let (QualKey::Const(Const::String(name)), Value::Map(Map::Json { fields, decl })) =
            (&q.key, obj)
        else {
            return None;
        };
        let found = json::map_find(fields, decl, name);
        Some(self.selected(found, name, q.test_only, optional))
    }

    /// Charged as `presence` and `qualify` charge: 1, but nothing for an optional miss.
    fn selected(
        &mut self,
        found: Result<Option<Value<'a>>, EvalError>,
        name: &str,
        test_only: bool,
        optional: bool,
    ) -> Result<Selected<'a>, EvalError> {
        if test_only {
            self.charge(1)?;
            return found.map(|v| Selected::Present(v.is_some()));
        }
        if optional {
            if !matches!(found, Ok(None)) {
                self.charge(1)?;
            }
            return found.map(|v| v.map_or(Selected::Missing, Selected::Value));
        }
        self.charge(1)?;
        match found? {
            Some(v) => Ok(Selected::Value(v)),
            None => Err(EvalError::new(format!("no such key: {name}"))),
        }
    }
}
