//! Comprehensions as cel-go's `evalFold` runs them: the range once, then per element
//! the loop condition (only a `false` stops; an error does not) and the step, then
//! the result. Two-variable forms bind index and value (lists) or key and value (maps).

use crate::cel::value::{EvalError, Value};

use super::exec::Frame;
use super::node::Fold;
use super::ops::{self, Outcome};

impl<'a> Frame<'_, 'a> {
    pub(super) fn fold(&mut self, f: &Fold) -> Outcome<'a> {
        let range = self.eval(&f.range)?;
        let elements = elements(&range, f.iter2.is_some())?;
        // cel-go initializes the accumulator on its first reference (a lazy slot).
        self.slots[f.accu] = None;
        for (first, second) in elements {
            self.slots[f.iter] = Some(first);
            if let Some(i2) = f.iter2 {
                self.slots[i2] = Some(second);
            }
            match self.eval(&f.cond) {
                Ok(Value::Bool(false)) => break,
                Err(EvalError::CostLimitExceeded) => return Err(EvalError::CostLimitExceeded),
                _ => {}
            }
            let step = self.eval(&f.step);
            if matches!(&step, Err(EvalError::CostLimitExceeded)) {
                return step;
            }
            self.slots[f.accu] = Some(step);
        }
        self.slots[f.iter] = None;
        if let Some(i2) = f.iter2 {
            self.slots[i2] = None;
        }
        let result = self.eval(&f.result);
        self.slots[f.accu] = None;
        result
    }
}

type Elements<'a> = Vec<(Outcome<'a>, Outcome<'a>)>;

/// What a comprehension iterates: list elements (with their index for two variables)
/// or map keys (with their value).
fn elements<'a>(range: &Value<'a>, two: bool) -> Result<Elements<'a>, EvalError> {
    match range {
        Value::List(l) => Ok((0..ops::list_len(l))
            .map(|i| {
                let v = ops::list_get(l, i);
                if two {
                    (Ok(Value::Int(i as i64)), v)
                } else {
                    (v, Ok(Value::Null))
                }
            })
            .collect()),
        Value::Map(m) if two => Ok(ops::map_entries(m)?
            .into_iter()
            .map(|(k, v)| (Ok(k), Ok(v)))
            .collect()),
        Value::Map(m) => Ok(ops::map_keys(m)?
            .into_iter()
            .map(|k| (Ok(k), Ok(Value::Null)))
            .collect()),
        other if two => Err(EvalError::new(format!(
            "unsupported comprehension range type: {}",
            ops::go_type(other)
        ))),
        other => Err(EvalError::new(format!(
            "got '{}', expected iterable type",
            ops::go_type(other)
        ))),
    }
}
