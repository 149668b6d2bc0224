//! The function behind cel-go's two-variable comprehension macros
//! (`ext.TwoVarComprehensions`, `ext/comprehensions.go`): `cel.@mapInsert`, which the
//! `transformMap` and `transformMapEntry` expansions call to grow their accumulator.
//! Inserting a key already present fails with cel-go's `insert failed: key k already
//! exists`. Its cost is cel-go's default (kube lists it as a known unhandled function).

use std::rc::Rc;

use crate::cel::eval::ops::{equal, go_format, map_entries};
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::lib::argv::no_such_overload;
use crate::cel::types::Type;
use crate::cel::value::{EvalError, Map, Value};

/// The function name the macro expansions call.
pub const MAP_INSERT: &str = "cel.@mapInsert";

/// `cel.@mapInsert(map, key, value)` and `cel.@mapInsert(map, map)`.
pub fn library() -> Library {
    let map = || Type::map(Type::Param("K"), Type::Param("V"));
    let decls = vec![
        Decl::global(
            "@mapInsert_map_key_value",
            MAP_INSERT,
            vec![map(), Type::Param("K"), Type::Param("V")],
            map(),
        ),
        Decl::global("@mapInsert_map_map", MAP_INSERT, vec![map(), map()], map()),
    ];
    let impls = vec![
        ("@mapInsert_map_key_value", Impl::Ternary(insert_key_value)),
        ("@mapInsert_map_map", Impl::Binary(insert_map)),
    ];
    Library { decls, impls }
}

/// cel-go's `types.InsertMapKeyValue`: a new map with the entry added.
fn insert_key_value<'a>(map: &Value<'a>, key: &Value<'a>, value: &Value<'a>) -> Outcome<'a> {
    let Value::Map(target) = map else {
        return Err(no_such_overload());
    };
    let mut entries = map_entries(target)?;
    insert(&mut entries, key, value)?;
    Ok(Value::Map(Map::Owned(Rc::new(entries))))
}

/// Every entry of `update` inserted in turn; the first key already present fails.
fn insert_map<'a>(map: &Value<'a>, update: &Value<'a>) -> Outcome<'a> {
    let (Value::Map(target), Value::Map(update)) = (map, update) else {
        return Err(no_such_overload());
    };
    let mut entries = map_entries(target)?;
    for (key, value) in map_entries(update)? {
        insert(&mut entries, &key, &value)?;
    }
    Ok(Value::Map(Map::Owned(Rc::new(entries))))
}

/// Map keys are ints, uints, strings or bools, which CEL equality compares (ints and
/// uints across types), as cel-go's map lookup does.
fn insert<'a>(
    entries: &mut Vec<(Value<'a>, Value<'a>)>,
    key: &Value<'a>,
    value: &Value<'a>,
) -> Result<(), EvalError> {
    if entries.iter().any(|(k, _)| equal(k, key).unwrap_or(false)) {
        return Err(EvalError::new(format!(
            "insert failed: key {} already exists",
            go_format(key)
        )));
    }
    entries.push((key.clone(), value.clone()));
    Ok(())
}

#[cfg(test)]
mod tests;
