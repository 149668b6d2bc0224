//! cel-go's lists extension at the version kube enables (`ext.Lists(ext.ListsVersion(3))`):
//! `slice`, `flatten`, `sort`, `@sortByAssociatedKeys` (what the `sortBy` macro expands
//! to), `lists.range`, `reverse` and `distinct`, with cel-go's error texts.

use super::argv;
use super::elems::{compare, equal, is_comparable, items};
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, Value};

/// `lists.range`'s default maximum (`defaultMaxRangeSize`).
const MAX_RANGE_SIZE: i64 = 1_000_000;

/// cel-go's `comparableTypes` as `t.TypeName()` spells them in the overload ids.
const SORTABLE: [(&str, &str, Type); 8] = [
    ("list_int_sort", "list_int_sortByAssociatedKeys", Type::Int),
    (
        "list_uint_sort",
        "list_uint_sortByAssociatedKeys",
        Type::Uint,
    ),
    (
        "list_double_sort",
        "list_double_sortByAssociatedKeys",
        Type::Double,
    ),
    (
        "list_bool_sort",
        "list_bool_sortByAssociatedKeys",
        Type::Bool,
    ),
    (
        "list_google.protobuf.Duration_sort",
        "list_google.protobuf.Duration_sortByAssociatedKeys",
        Type::Duration,
    ),
    (
        "list_google.protobuf.Timestamp_sort",
        "list_google.protobuf.Timestamp_sortByAssociatedKeys",
        Type::Timestamp,
    ),
    (
        "list_string_sort",
        "list_string_sortByAssociatedKeys",
        Type::String,
    ),
    (
        "list_bytes_sort",
        "list_bytes_sortByAssociatedKeys",
        Type::Bytes,
    ),
];

/// The lists extension's overloads.
pub fn library() -> Library {
    let t = || Type::Param("T");
    let list_t = || Type::list(t());
    let mut lib = Library::default();
    let mut add = |decl: Decl, imp: Impl| {
        lib.impls.push((decl.id, imp));
        lib.decls.push(decl);
    };
    add(
        Decl::member(
            "list_slice",
            "slice",
            vec![list_t(), Type::Int, Type::Int],
            list_t(),
        ),
        Impl::Ternary(slice),
    );
    add(
        Decl::member(
            "list_flatten",
            "flatten",
            vec![Type::list(list_t())],
            list_t(),
        ),
        Impl::Unary(flatten_once),
    );
    let list_dyn = || Type::list(Type::Dyn);
    add(
        Decl::member(
            "list_flatten_int",
            "flatten",
            vec![list_dyn(), Type::Int],
            list_dyn(),
        ),
        Impl::Binary(flatten_depth),
    );
    for (sort_id, sort_by_id, elem) in SORTABLE {
        let list_u = Type::list(elem);
        add(
            Decl::member(sort_id, "sort", vec![list_u.clone()], list_u.clone()),
            Impl::Unary(sort),
        );
        let by = Decl::member(
            sort_by_id,
            "@sortByAssociatedKeys",
            vec![list_t(), list_u],
            list_t(),
        );
        add(by, Impl::Binary(sort_by_associated_keys));
    }
    add(
        Decl::global(
            "lists_range",
            "lists.range",
            vec![Type::Int],
            Type::list(Type::Int),
        ),
        Impl::Unary(range),
    );
    add(
        Decl::member("list_reverse", "reverse", vec![list_t()], list_t()),
        Impl::Unary(reverse),
    );
    add(
        Decl::member("list_distinct", "distinct", vec![list_t()], list_t()),
        Impl::Unary(distinct),
    );
    lib
}

fn slice<'a>(list: &Value<'a>, start: &Value<'a>, end: &Value<'a>) -> Outcome<'a> {
    let (start, end) = (argv::int(start)?, argv::int(end)?);
    let elements = items(list)?;
    let fail = |why: String| {
        Err(EvalError::new(format!(
            "cannot slice({start}, {end}), {why}"
        )))
    };
    if start < 0 || end < 0 {
        return fail("negative indexes not supported".to_string());
    }
    if start > end {
        return fail("start index must be less than or equal to end index".to_string());
    }
    if (elements.len() as i64) < end {
        return fail(format!("list is length {}", elements.len()));
    }
    Ok(Value::list(elements[start as usize..end as usize].to_vec()))
}

fn flatten<'a>(list: &Value<'a>, depth: i64, out: &mut Vec<Value<'a>>) -> Result<(), EvalError> {
    if depth < 0 {
        return Err(EvalError::new("level must be non-negative"));
    }
    for item in items(list)? {
        match item {
            Value::List(_) if depth != 0 => flatten(&item, depth - 1, out)?,
            other => out.push(other),
        }
    }
    Ok(())
}

fn flatten_once<'a>(list: &Value<'a>) -> Outcome<'a> {
    flatten_depth(list, &Value::Int(1))
}

fn flatten_depth<'a>(list: &Value<'a>, depth: &Value<'a>) -> Outcome<'a> {
    let mut out = Vec::new();
    flatten(list, argv::int(depth)?, &mut out)?;
    Ok(Value::list(out))
}

fn sort<'a>(list: &Value<'a>) -> Outcome<'a> {
    sort_by_associated_keys(list, list)
}

/// `sortListByAssociatedKeys`: Go's `sort.Slice` with `Compare(...) == -1` as less.
/// Go sorts up to 12 elements by insertion (stable); its pdqsort beyond may order equal
/// keys differently from this insertion sort.
fn sort_by_associated_keys<'a>(list: &Value<'a>, keys: &Value<'a>) -> Outcome<'a> {
    let elements = items(list)?;
    let keys = items(keys)?;
    if elements.len() != keys.len() {
        return Err(EvalError::new(format!(
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got {} and {} elements respectively",
            elements.len(),
            keys.len()
        )));
    }
    let Some(first) = keys.first() else {
        return Ok(list.clone());
    };
    if !is_comparable(first) {
        return Err(EvalError::new("list elements must be comparable"));
    }
    let same_type = |k: &Value<'_>| std::mem::discriminant(k) == std::mem::discriminant(first);
    if keys.len() > 1 && !keys.iter().all(same_type) {
        return Err(EvalError::new("list elements must have the same type"));
    }
    let less = |i: usize, j: usize| compare(&keys[i], &keys[j]).is_ok_and(|o| o.is_lt());
    let mut order: Vec<usize> = (0..keys.len()).collect();
    for i in 1..order.len() {
        let mut j = i;
        while j > 0 && less(order[j], order[j - 1]) {
            order.swap(j, j - 1);
            j -= 1;
        }
    }
    Ok(Value::list(
        order.into_iter().map(|i| elements[i].clone()).collect(),
    ))
}

fn range<'a>(n: &Value<'a>) -> Outcome<'a> {
    let n = argv::int(n)?;
    if n < 0 {
        return Err(EvalError::new(format!(
            "lists.range: size must be non-negative, got {n}"
        )));
    }
    if n > MAX_RANGE_SIZE {
        return Err(EvalError::new(format!(
            "lists.range: size {n} exceeds maximum allowed ({MAX_RANGE_SIZE})"
        )));
    }
    Ok(Value::list((0..n).map(Value::Int).collect()))
}

fn reverse<'a>(list: &Value<'a>) -> Outcome<'a> {
    let mut elements = items(list)?;
    elements.reverse();
    Ok(Value::list(elements))
}

/// `distinctList`: the first of each group of equal elements (`val.Equal(seen)`).
fn distinct<'a>(list: &Value<'a>) -> Outcome<'a> {
    let elements = items(list)?;
    if elements.is_empty() {
        return Ok(list.clone());
    }
    let mut unique: Vec<Value<'a>> = Vec::with_capacity(elements.len());
    for value in elements {
        if !unique
            .iter()
            .any(|seen| equal(&value, seen).unwrap_or(false))
        {
            unique.push(value);
        }
    }
    Ok(Value::list(unique))
}
