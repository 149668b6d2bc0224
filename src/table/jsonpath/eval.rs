//! Template evaluation, following client-go's `jsonpath.go` walk and text/template comparisons.

use serde_json::Value;

use super::{EvalError, Item, Node, Param};

/// An evaluation error plus the values Go returns alongside it: an `exists` filter still
/// looks at those, so the partial result is part of the observable behaviour.
pub(super) struct Failure<'a> {
    pub(super) partial: Vec<Item<'a>>,
    pub(super) error: EvalError,
}

type Eval<'a> = Result<Vec<Item<'a>>, Failure<'a>>;

fn fail<'a>(partial: &[Item<'a>], error: EvalError) -> Eval<'a> {
    Err(Failure {
        partial: partial.to_vec(),
        error,
    })
}

/// Applies one node to every input value.
pub(super) fn walk<'a>(input: &[Item<'a>], node: &'a Node) -> Eval<'a> {
    match node {
        Node::List(nodes) => eval_list(input, nodes),
        Node::Text(text) => Ok(vec![Item::Text(text)]),
        Node::Field(name) => Ok(eval_field(input, name)),
        Node::Array(params) => eval_array(input, *params),
        Node::Filter {
            left,
            right,
            operator,
        } => eval_filter(input, left, right, operator),
        Node::Int(i) => Ok(vec![Item::Int(*i); input.len()]),
        Node::Float(f) => Ok(vec![Item::Float(*f); input.len()]),
        Node::Bool(b) => Ok(vec![Item::Bool(*b); input.len()]),
        Node::Wildcard => Ok(input.iter().flat_map(children).collect()),
        Node::Recursive => Ok(eval_recursive(input)),
        Node::Union(branches) => {
            let mut result = Vec::new();
            for branch in branches {
                match eval_list(input, branch) {
                    Ok(values) => result.extend(values),
                    Err(failure) => return fail(input, failure.error),
                }
            }
            Ok(result)
        }
        Node::Identifier(name) => fail(input, EvalError::UnrecognizedIdentifier(name.clone())),
    }
}

/// The nodes of one action in sequence; on failure Go returns what the failing node returned.
fn eval_list<'a>(input: &[Item<'a>], nodes: &'a [Node]) -> Eval<'a> {
    let mut current = input.to_vec();
    for node in nodes {
        current = walk(&current, node)?;
    }
    Ok(current)
}

/// Map lookups; nil, missing keys and non-maps contribute nothing (missing keys allowed).
fn eval_field<'a>(input: &[Item<'a>], name: &str) -> Vec<Item<'a>> {
    input
        .iter()
        .filter_map(|item| match item {
            Item::Json(Value::Object(map)) => map.get(name).map(Item::Json),
            _ => None,
        })
        .collect()
}

/// What `*` and `..` descend into: map values, array elements, the bytes of a string.
fn children<'a>(item: &Item<'a>) -> Vec<Item<'a>> {
    match item {
        Item::Json(Value::Object(map)) => map.values().map(Item::Json).collect(),
        Item::Json(Value::Array(items)) => items.iter().map(Item::Json).collect(),
        Item::Json(Value::String(s)) => s.bytes().map(Item::Byte).collect(),
        Item::Text(s) => s.bytes().map(Item::Byte).collect(),
        _ => Vec::new(),
    }
}

/// Every value that has children, followed by its descendants, depth first.
fn eval_recursive<'a>(input: &[Item<'a>]) -> Vec<Item<'a>> {
    let mut result = Vec::new();
    for item in input {
        let below = children(item);
        if !below.is_empty() {
            result.push(*item);
            result.extend(eval_recursive(&below));
        }
    }
    result
}

/// Go's reflect kind name, for error texts.
fn kind_name(item: &Item<'_>) -> &'static str {
    match item {
        Item::Json(Value::Null) => "nil",
        Item::Json(Value::Bool(_)) | Item::Bool(_) => "bool",
        Item::Json(Value::Number(n)) if n.as_i64().is_some() => "int64",
        Item::Json(Value::Number(_)) | Item::Float(_) => "float64",
        Item::Json(Value::String(_)) | Item::Text(_) => "string",
        Item::Json(Value::Array(_)) => "[]interface {}",
        Item::Json(Value::Object(_)) => "map[string]interface {}",
        Item::Byte(_) => "uint8",
        Item::Int(_) => "int",
    }
}

fn eval_array<'a>(input: &[Item<'a>], params: [Param; 3]) -> Eval<'a> {
    let mut result = Vec::new();
    for item in input {
        let items = match item {
            Item::Json(Value::Null) => continue,
            Item::Json(Value::Array(items)) => items,
            other => return fail(input, EvalError::NotArray(kind_name(other))),
        };
        let length = i64::try_from(items.len()).unwrap_or(i64::MAX);
        let mut p = params;
        if !p[0].known {
            p[0].value = 0;
        }
        if p[0].value < 0 {
            p[0].value = p[0].value.wrapping_add(length);
        }
        if !p[1].known {
            p[1].value = length;
        }
        if p[1].value < 0 || (p[1].value == 0 && p[1].derived) {
            p[1].value = p[1].value.wrapping_add(length);
        }
        let (start, end) = (p[0].value, p[1].value);
        if start == end {
            // Go returns at once here, dropping any further inputs.
            return Ok(result);
        }
        if start >= length || start < 0 {
            return fail(
                input,
                EvalError::IndexOutOfBounds {
                    index: start,
                    length,
                },
            );
        }
        if end > length || end < 0 {
            let index = end.wrapping_sub(1);
            return fail(input, EvalError::IndexOutOfBounds { index, length });
        }
        if start > end {
            return fail(input, EvalError::StartAfterEnd { start, end });
        }
        let step = if p[2].known { p[2].value } else { 1 };
        if step <= 0 {
            return fail(input, EvalError::StepNotPositive);
        }
        let slice = items
            .get(usize::try_from(start).unwrap_or(0)..usize::try_from(end).unwrap_or(0))
            .unwrap_or_default();
        let step = usize::try_from(step).unwrap_or(usize::MAX);
        result.extend(slice.iter().step_by(step).map(Item::Json));
    }
    Ok(result)
}

fn eval_filter<'a>(
    input: &[Item<'a>],
    left: &'a [Node],
    right: &'a [Node],
    operator: &str,
) -> Eval<'a> {
    let mut result = Vec::new();
    for item in input {
        let elements = match item {
            Item::Json(Value::Array(items)) => items,
            other => return fail(input, EvalError::NotFilterable(kind_name(other))),
        };
        for element in elements {
            let candidate = [Item::Json(element)];
            let lefts = eval_list(&candidate, left);
            if operator == "exists" {
                let found = match &lefts {
                    Ok(values) => !values.is_empty(),
                    Err(failure) => !failure.partial.is_empty(),
                };
                if found {
                    result.push(Item::Json(element));
                }
                continue;
            }
            let Some(lhs) = single(lefts, input)? else {
                continue;
            };
            let Some(rhs) = single(eval_list(&candidate, right), input)? else {
                continue;
            };
            let pass = match operator {
                "==" => equal(&lhs, &rhs),
                "!=" => equal(&lhs, &rhs).map(|eq| !eq),
                "<" => less(&lhs, &rhs),
                "<=" => less_equal(&lhs, &rhs),
                ">" => less_equal(&lhs, &rhs).map(|le| !le),
                ">=" => less(&lhs, &rhs).map(|lt| !lt),
                other => Err(EvalError::UnrecognizedOperator(other.to_owned())),
            };
            match pass {
                Ok(true) => result.push(Item::Json(element)),
                Ok(false) => {}
                Err(error) => return fail(&result, error),
            }
        }
    }
    Ok(result)
}

/// One side of a comparison: none (skip the element), one value, or an error.
fn single<'a>(side: Eval<'a>, input: &[Item<'a>]) -> Result<Option<Item<'a>>, Failure<'a>> {
    let values = match side {
        Ok(values) => values,
        Err(failure) => return fail(input, failure.error).map(|_| None),
    };
    match values.as_slice() {
        [] => Ok(None),
        [value] => Ok(Some(*value)),
        _ => fail(input, EvalError::CompareMany).map(|_| None),
    }
}

/// text/template's basic kinds.
#[derive(Debug, Clone, Copy)]
enum Basic<'a> {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(&'a str),
}

fn basic<'a>(item: &Item<'a>) -> Result<Basic<'a>, EvalError> {
    Ok(match item {
        Item::Json(Value::Bool(b)) | Item::Bool(b) => Basic::Bool(*b),
        Item::Json(Value::Number(n)) => match n.as_i64() {
            Some(i) => Basic::Int(i),
            None => Basic::Float(n.as_f64().unwrap_or(0.0)),
        },
        Item::Json(Value::String(s)) => Basic::Str(s),
        Item::Text(s) => Basic::Str(s),
        Item::Int(i) => Basic::Int(*i),
        Item::Float(f) => Basic::Float(*f),
        Item::Byte(b) => Basic::Uint(u64::from(*b)),
        Item::Json(Value::Null | Value::Array(_) | Value::Object(_)) => {
            return Err(EvalError::BadComparisonType);
        }
    })
}

/// text/template `eq`: same kinds compare; signed and unsigned integers compare by value.
fn equal(a: &Item<'_>, b: &Item<'_>) -> Result<bool, EvalError> {
    Ok(match (basic(a)?, basic(b)?) {
        (Basic::Bool(x), Basic::Bool(y)) => x == y,
        (Basic::Int(x), Basic::Int(y)) => x == y,
        (Basic::Uint(x), Basic::Uint(y)) => x == y,
        (Basic::Float(x), Basic::Float(y)) => x == y,
        (Basic::Str(x), Basic::Str(y)) => x == y,
        (Basic::Int(x), Basic::Uint(y)) | (Basic::Uint(y), Basic::Int(x)) => {
            u64::try_from(x).is_ok_and(|x| x == y)
        }
        _ => return Err(EvalError::BadComparison),
    })
}

/// text/template `lt`: numbers and strings (byte order); booleans cannot be ordered.
fn less(a: &Item<'_>, b: &Item<'_>) -> Result<bool, EvalError> {
    Ok(match (basic(a)?, basic(b)?) {
        (Basic::Bool(_), Basic::Bool(_)) => return Err(EvalError::BadComparisonType),
        (Basic::Int(x), Basic::Int(y)) => x < y,
        (Basic::Uint(x), Basic::Uint(y)) => x < y,
        (Basic::Float(x), Basic::Float(y)) => x < y,
        (Basic::Str(x), Basic::Str(y)) => x < y,
        (Basic::Int(x), Basic::Uint(y)) => u64::try_from(x).map_or(true, |x| x < y),
        (Basic::Uint(x), Basic::Int(y)) => u64::try_from(y).is_ok_and(|y| x < y),
        _ => return Err(EvalError::BadComparison),
    })
}

/// text/template `le`: `lt`, or else `eq`.
fn less_equal(a: &Item<'_>, b: &Item<'_>) -> Result<bool, EvalError> {
    if less(a, b)? {
        return Ok(true);
    }
    equal(a, b)
}
