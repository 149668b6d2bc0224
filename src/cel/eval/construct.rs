//! Evaluating literals: lists and maps (with cel-go's optional entries) and the
//! construction of the mutation types' structs (cel-go's `evalObj`).

use std::rc::Rc;
use std::sync::Arc;

use crate::cel::value::{EvalError, Map, Value};

use super::exec::Frame;
use super::node::Node;
use super::ops::{self, Outcome};

impl<'a> Frame<'_, 'a> {
    pub(super) fn list(&mut self, elements: &[Node], optional: &[bool]) -> Outcome<'a> {
        let mut out = Vec::with_capacity(elements.len());
        for (i, e) in elements.iter().enumerate() {
            let v = self.eval(e)?;
            if optional.get(i).copied().unwrap_or(false) {
                match v {
                    Value::Optional(Some(inner)) => out.push(Value::clone(&inner)),
                    Value::Optional(None) => {}
                    other => {
                        return Err(EvalError::new(format!(
                            "cannot initialize optional list element from non-optional value {}",
                            ops::go_format(&other)
                        )));
                    }
                }
            } else {
                out.push(v);
            }
        }
        Ok(Value::list(out))
    }

    pub(super) fn map(&mut self, entries: &[(Node, Node, bool)]) -> Outcome<'a> {
        let mut out: Vec<(Value<'a>, Value<'a>)> = Vec::with_capacity(entries.len());
        for (k, v, optional) in entries {
            let key = self.eval(k)?;
            let mut val = self.eval(v)?;
            if *optional {
                match val {
                    Value::Optional(Some(inner)) => val = Value::clone(&inner),
                    Value::Optional(None) => {
                        out.retain(|(existing, _)| !same_key(existing, &key));
                        continue;
                    }
                    other => {
                        return Err(EvalError::new(format!(
                            "cannot initialize optional entry '{}' from non-optional value {}",
                            ops::go_format(&key),
                            ops::go_format(&other)
                        )));
                    }
                }
            }
            out.retain(|(existing, _)| !same_key(existing, &key));
            out.push((key, val));
        }
        Ok(Value::Map(Map::Owned(Rc::new(out))))
    }

    /// cel-go's `evalObj`: the fields in order, an `?field` set only from a present
    /// optional.
    pub(super) fn create_struct(
        &mut self,
        ty: &crate::cel::mutation::StructType,
        fields: &[(Arc<str>, Node, bool)],
    ) -> Outcome<'a> {
        let mut out: Vec<(&str, Value<'a>)> = Vec::with_capacity(fields.len());
        for (name, node, optional) in fields {
            let v = self.eval(node)?;
            if !*optional {
                out.push((name, v));
                continue;
            }
            match v {
                Value::Optional(Some(inner)) => out.push((name, Value::clone(&inner))),
                Value::Optional(None) => {}
                other => {
                    return Err(EvalError::new(format!(
                        "cannot initialize optional entry '{name}' from non-optional value {}",
                        ops::go_format(&other)
                    )));
                }
            }
        }
        crate::cel::mutation::construct(ty, out)
    }
}

/// Go map keys: equal only with the same type.
fn same_key(a: &Value<'_>, b: &Value<'_>) -> bool {
    ops::type_name(a) == ops::type_name(b) && ops::equal(a, b).unwrap_or(false)
}
