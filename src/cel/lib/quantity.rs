//! kube's quantity library (k8s.io/apiserver `pkg/cel/library/quantity.go`):
//! `quantity`, `isQuantity`, `sign`, comparisons, `add`/`sub`, `asInteger`, `isInteger`
//! and `asApproximateFloat` on `kubernetes.Quantity` values, with apimachinery's
//! `resource.Quantity` semantics ported in the submodules.

mod amount;
mod bigint;
mod dec;
mod parse;
mod resource;
#[cfg(test)]
mod tests;

use std::any::Any;
use std::cell::RefCell;
use std::cmp::Ordering;

use self::dec::TooLarge;
use self::parse::parse_quantity;
use self::resource::Quantity;
use super::argv;
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, Opaque, Value};

pub const QUANTITY_TYPE: &str = "kubernetes.Quantity";

/// A `kubernetes.Quantity` value. `add`/`sub` results are `*apiservercel.Quantity` in
/// kube while `quantity()` makes an `apiservercel.Quantity`, and `Equal` accepts only
/// the latter on its right: `pointer` keeps that difference visible.
#[derive(Debug)]
pub struct CelQuantity {
    /// Interior mutability because Go mutates through the shared pointer (see
    /// [`resource`]).
    quantity: RefCell<Quantity>,
    pointer: bool,
}

impl CelQuantity {
    pub fn new(quantity: Quantity) -> CelQuantity {
        CelQuantity {
            quantity: RefCell::new(quantity),
            pointer: false,
        }
    }

    /// `Cmp` on the receiver itself, as kube's comparison functions call it.
    fn cmp(&self, other: &CelQuantity) -> Ordering {
        let other = other.quantity.borrow().clone();
        self.quantity.borrow_mut().cmp(&other)
    }
}

impl Opaque for CelQuantity {
    fn type_name(&self) -> &'static str {
        QUANTITY_TYPE
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        self.try_equals(Some(other)).unwrap_or(false)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    /// `Quantity.Equal`: a value-receiver `Cmp` (the receiver's copy may turn decimal,
    /// the receiver does not); `no such overload` for anything but a non-pointer quantity.
    fn try_equals(&self, other: Option<&dyn Opaque>) -> Result<bool, EvalError> {
        match other.and_then(|o| o.as_any().downcast_ref::<CelQuantity>()) {
            Some(o) if !o.pointer => {
                let mut copy = self.quantity.borrow().clone();
                Ok(copy.cmp(&o.quantity.borrow()) == Ordering::Equal)
            }
            _ => Err(argv::no_such_overload()),
        }
    }
}

/// The quantity library's overloads.
pub fn library() -> Library {
    let q = || Type::Opaque(QUANTITY_TYPE);
    let decls = vec![
        Decl::global("string_to_quantity", "quantity", vec![Type::String], q()),
        Decl::global(
            "is_quantity_string",
            "isQuantity",
            vec![Type::String],
            Type::Bool,
        ),
        Decl::global("quantity_sign", "sign", vec![q()], Type::Int),
        Decl::member(
            "quantity_is_greater_than",
            "isGreaterThan",
            vec![q(), q()],
            Type::Bool,
        ),
        Decl::member(
            "quantity_is_less_than",
            "isLessThan",
            vec![q(), q()],
            Type::Bool,
        ),
        Decl::member(
            "quantity_compare_to",
            "compareTo",
            vec![q(), q()],
            Type::Int,
        ),
        Decl::member(
            "quantity_get_float",
            "asApproximateFloat",
            vec![q()],
            Type::Double,
        ),
        Decl::member("quantity_get_int", "asInteger", vec![q()], Type::Int),
        Decl::member("quantity_is_integer", "isInteger", vec![q()], Type::Bool),
        Decl::member("quantity_add", "add", vec![q(), q()], q()),
        Decl::member("quantity_add_int", "add", vec![q(), Type::Int], q()),
        Decl::member("quantity_sub", "sub", vec![q(), q()], q()),
        Decl::member("quantity_sub_int", "sub", vec![q(), Type::Int], q()),
    ];
    let impls = vec![
        ("string_to_quantity", Impl::Unary(string_to_quantity)),
        ("is_quantity_string", Impl::Unary(is_quantity)),
        ("quantity_sign", Impl::Unary(sign)),
        ("quantity_is_greater_than", Impl::Binary(is_greater_than)),
        ("quantity_is_less_than", Impl::Binary(is_less_than)),
        ("quantity_compare_to", Impl::Binary(compare_to)),
        ("quantity_get_float", Impl::Unary(as_approximate_float)),
        ("quantity_get_int", Impl::Unary(as_integer)),
        ("quantity_is_integer", Impl::Unary(is_integer)),
        ("quantity_add", Impl::Binary(add)),
        ("quantity_add_int", Impl::Binary(add_int)),
        ("quantity_sub", Impl::Binary(sub)),
        ("quantity_sub_int", Impl::Binary(sub_int)),
    ];
    Library { decls, impls }
}

fn quantity_of<'v>(value: &'v Value<'_>) -> Result<&'v CelQuantity, EvalError> {
    argv::opaque::<CelQuantity>(value)
}

fn string_to_quantity<'a>(s: &Value<'a>) -> Outcome<'a> {
    let q = parse_quantity(argv::string(s)?).map_err(|e| EvalError::new(e.to_string()))?;
    Ok(argv::wrap(CelQuantity::new(q)))
}

fn is_quantity<'a>(s: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(parse_quantity(argv::string(s)?).is_ok()))
}

fn sign<'a>(q: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Int(quantity_of(q)?.quantity.borrow().sign()))
}

fn compare<'a>(a: &Value<'a>, b: &Value<'a>) -> Result<Ordering, EvalError> {
    Ok(quantity_of(a)?.cmp(quantity_of(b)?))
}

fn is_greater_than<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(compare(a, b)?.is_gt()))
}

fn is_less_than<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(compare(a, b)?.is_lt()))
}

fn compare_to<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Int(compare(a, b)? as i64))
}

fn as_approximate_float<'a>(q: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Double(
        quantity_of(q)?.quantity.borrow().as_approximate_float64(),
    ))
}

fn as_integer<'a>(q: &Value<'a>) -> Outcome<'a> {
    let value = quantity_of(q)?.quantity.borrow().as_int64();
    value
        .map(Value::Int)
        .ok_or_else(|| EvalError::new("cannot convert value to integer"))
}

fn is_integer<'a>(q: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(
        quantity_of(q)?.quantity.borrow().as_int64().is_some(),
    ))
}

/// `copy := *q; copy.Add(y)`: the copy shares a decimal with `q` (see [`resource`]).
fn arithmetic<'a>(
    q: &Value<'a>,
    y: Quantity,
    op: fn(&mut Quantity, &Quantity) -> Result<(), TooLarge>,
) -> Outcome<'a> {
    let mut copy = quantity_of(q)?.quantity.borrow().clone();
    op(&mut copy, &y)
        .map_err(|TooLarge| EvalError::new("quantity exceeds the supported precision"))?;
    Ok(argv::wrap(CelQuantity {
        quantity: RefCell::new(copy),
        pointer: true,
    }))
}

fn add<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    let y = quantity_of(b)?.quantity.borrow().clone();
    arithmetic(a, y, Quantity::add)
}

fn add_int<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    arithmetic(a, Quantity::from_i64(argv::int(b)?), Quantity::add)
}

fn sub<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    let y = quantity_of(b)?.quantity.borrow().clone();
    arithmetic(a, y, Quantity::sub)
}

fn sub_int<'a>(a: &Value<'a>, b: &Value<'a>) -> Outcome<'a> {
    arithmetic(a, Quantity::from_i64(argv::int(b)?), Quantity::sub)
}
