//! Reading a lazily computed root variable (kube's composited `variables`, a
//! `lazy.MapValue`): `variables.<name>` asks the evaluator's [`super::Lazy`] for the
//! field, which computes it on first access; the access costs what a qualifier costs.
//! `has(variables.<name>)` and `variables.?<name>` compute the field too, as kube's
//! `Find` does; an error computing it is the expression's error.

use crate::cel::value::{EvalError, Value};

use super::exec::{Frame, fatal};
use super::node::{Qual, QualKey};
use super::ops::{self, Outcome};

impl<'a> Frame<'_, 'a> {
    pub(super) fn lazy_attr(&mut self, quals: &[Qual]) -> Outcome<'a> {
        let Some((first, rest)) = quals.split_first() else {
            // The map itself is not a value this engine hands out.
            return Err(EvalError::new("no such overload: variables"));
        };
        let key = match &first.key {
            QualKey::Const(c) => c.to_value(),
            QualKey::Dynamic(k) => match self.resolve(k) {
                Ok(v) => v,
                Err(e) if fatal(&e) => return Err(e),
                Err(e) => {
                    self.charge(1)?;
                    return Err(e);
                }
            },
        };
        let Value::String(name) = &key else {
            return Err(ops::no_such_overload());
        };
        let found = match self.lazy.as_deref_mut() {
            Some(lazy) => lazy.field(name.as_str()),
            None => None,
        };
        let value = match found {
            None if first.test_only => {
                self.charge(1)?;
                return Ok(Value::Bool(false));
            }
            None if first.optional => return Ok(Value::Optional(None)),
            None => {
                self.charge(1)?;
                let shown = name.as_str();
                return Err(EvalError::new(format!("no such key: {shown}")));
            }
            Some(value) => value,
        };
        self.charge(1)?;
        let value = value?;
        if first.test_only {
            return Ok(Value::Bool(true));
        }
        self.qualify_all(value, rest, first.optional)
    }
}
