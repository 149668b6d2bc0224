//! Argument access for library implementations. The checker has matched the overload,
//! so a mismatch can only come from a `dyn` value; cel-go answers it `no such overload`.

use std::rc::Rc;

use crate::cel::value::{EvalError, List, Opaque, Value};

pub(super) fn no_such_overload() -> EvalError {
    EvalError::new("no such overload")
}

pub(super) fn string<'v>(value: &'v Value<'_>) -> Result<&'v str, EvalError> {
    match value {
        Value::String(s) => Ok(s.as_str()),
        _ => Err(no_such_overload()),
    }
}

pub(super) fn int(value: &Value<'_>) -> Result<i64, EvalError> {
    match value {
        Value::Int(i) => Ok(*i),
        _ => Err(no_such_overload()),
    }
}

/// The library value of type `T` inside an opaque value.
pub(super) fn opaque<'v, T: 'static>(value: &'v Value<'_>) -> Result<&'v T, EvalError> {
    match value {
        Value::Opaque(o) => o.as_any().downcast_ref::<T>().ok_or_else(no_such_overload),
        _ => Err(no_such_overload()),
    }
}

/// kube's library types' `Equal`: a value of the same type compares, anything else is
/// `no such overload`.
pub(super) fn same_type_equals(
    this: &dyn Opaque,
    other: Option<&dyn Opaque>,
) -> Result<bool, EvalError> {
    match other {
        Some(o) if o.type_name() == this.type_name() => Ok(this.equals(o)),
        _ => Err(no_such_overload()),
    }
}

pub(super) fn wrap<'a>(value: impl Opaque + 'static) -> Value<'a> {
    Value::Opaque(Rc::new(value))
}

/// A list of strings as a CEL list.
pub(super) fn string_list<'a>(items: impl IntoIterator<Item = String>) -> Value<'a> {
    Value::list(items.into_iter().map(Value::string).collect())
}

/// The strings of a `list(string)`; an element of another type is reported by `bad`.
pub(super) fn strings_of<'a>(
    list: &List<'a>,
    bad: impl Fn(&Value<'a>) -> EvalError,
) -> Result<Vec<Rc<str>>, EvalError> {
    crate::cel::eval::ops::list_items(list)?
        .iter()
        .map(|item| match item {
            Value::String(s) => Ok(Rc::from(s.as_str())),
            other => Err(bad(other)),
        })
        .collect()
}

#[cfg(test)]
pub(super) mod testing {
    //! Calling implementations by overload id in unit tests.

    use crate::cel::functions::{Impl, Library};
    use crate::cel::value::{EvalError, Value};

    /// Runs overload `id` of `lib` on `args`.
    pub fn call<'a>(lib: &Library, id: &str, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
        assert!(lib.decls.iter().any(|d| d.id == id), "{id} is declared");
        let (_, imp) = lib
            .impls
            .iter()
            .find(|(i, _)| *i == id)
            .unwrap_or_else(|| panic!("{id} has an implementation"));
        let decl = lib.decls.iter().find(|d| d.id == id).unwrap();
        assert_eq!(decl.params.len(), args.len(), "{id} arity");
        match (imp, args) {
            (Impl::Unary(f), [a]) => f(a),
            (Impl::Binary(f), [a, b]) => f(a, b),
            (Impl::Ternary(f), [a, b, c]) => f(a, b, c),
            (Impl::Variadic(f), args) => f(args),
            _ => panic!("{id}: implementation arity differs from {}", args.len()),
        }
    }

    pub fn s<'a>(text: &str) -> Value<'a> {
        Value::string(text)
    }

    /// The value as a comparable text: strings bare, lists `[a, b]`, optionals
    /// `none`/`some(x)`, booleans and ints as Rust prints them.
    pub fn show(value: &Value<'_>) -> String {
        match value {
            Value::String(s) => s.as_str().to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::List(crate::cel::value::List::Owned(items)) => {
                let parts: Vec<String> = items.iter().map(show).collect();
                format!("[{}]", parts.join(", "))
            }
            Value::Map(crate::cel::value::Map::Owned(entries)) => {
                let parts: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{}: {}", show(k), show(v)))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            Value::Optional(None) => "none".to_string(),
            Value::Optional(Some(v)) => format!("some({})", show(v)),
            other => format!("{other:?}"),
        }
    }

    /// `show` of the result, or `error: <text>`.
    pub fn outcome(result: Result<Value<'_>, EvalError>) -> String {
        match result {
            Ok(v) => show(&v),
            Err(e) => format!("error: {e}"),
        }
    }
}
