//! kube-openapi's `SchemaValidator.Validate` for one value: the keyword validators run in
//! upstream's order (type, allOf/anyOf/oneOf/not, string, format, number, array, enum,
//! object), each only for the kinds of value it applies to, and — when the value has a
//! correlated old value — the ratcheting rule of apiextensions' `ratcheting.go`.

use std::cell::Cell;

use serde_json::Value;

use super::path::Trail;
use super::result::{self, Outcome};
use super::{array, composition, number, object, ratchet, string, types};
use crate::error::FieldError;
use crate::gofmt::Num;
use crate::schema::Schema;

static NULL: Value = Value::Null;

/// The state of one validation walk.
pub(super) struct Walker<'v> {
    pub(super) trail: Trail<'v>,
    /// Bytes of error text left before further issues are muted (see `result`).
    pub(super) budget: Cell<usize>,
}

/// Validates `value` (correlated with `old` when ratcheting) and returns kube's field
/// errors in kube-openapi's order. `prefix` is the field path the validator is called
/// with: `None` (kube's nil path, printed `<nil>`) for whole objects, `status` for the
/// status subresource.
pub(super) fn run(
    schema: &Schema,
    value: &Value,
    old: Option<&Value>,
    prefix: Option<&str>,
) -> Vec<FieldError> {
    let mut walker = Walker {
        trail: Trail::new(),
        budget: result::budget(),
    };
    walker.node(schema, value, old).into_errors(prefix)
}

impl<'v> Walker<'v> {
    /// One value against one schema node. `old` is the correlated old value: children
    /// are then correlated too, and all errors are dropped when the value is unchanged.
    pub(super) fn node(
        &mut self,
        s: &'v Schema,
        v: &'v Value,
        old: Option<&'v Value>,
    ) -> Outcome<'v> {
        let mut res = match v {
            Value::Null => self.null(s),
            _ => self.present(s, v, old),
        };
        if let Some(old) = old
            && !res.is_valid()
            && ratchet::deep_equal(s, v, old)
        {
            res.ratchet();
        }
        res
    }

    /// A null value: only the type (nullable) and enum checks run.
    fn null(&mut self, s: &'v Schema) -> Outcome<'v> {
        let mut res = types::check_null(self, s);
        res.merge(types::check_enum(self, s, &NULL));
        res
    }

    fn present(&mut self, s: &'v Schema, v: &'v Value, old: Option<&'v Value>) -> Outcome<'v> {
        let view = types::View::of(s);
        let mut res = Outcome::default();
        let apply = |res: &mut Outcome<'v>, one: Outcome<'v>| {
            res.merge(one);
            res.inc();
        };
        if view.type_applies() {
            apply(&mut res, types::check_type(self, &view, v));
        }
        apply(&mut res, composition::check(self, s, v));
        match v {
            Value::String(text) => {
                apply(&mut res, string::check(self, s, text));
                if view.checks_string_format() {
                    apply(&mut res, string::check_format(self, view.format, text));
                }
            }
            Value::Number(n) => apply(&mut res, number::check(self, s, &view, Num::of(n))),
            Value::Array(items) => apply(&mut res, array::check(self, s, items, old)),
            _ => {}
        }
        apply(&mut res, types::check_enum(self, s, v));
        if let Value::Object(map) = v {
            apply(&mut res, object::check(self, s, map, old));
        }
        res.inc();
        res
    }
}
