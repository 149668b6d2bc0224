//! kube's regex library (k8s.io/apiserver `pkg/cel/library/regex.go`): `find` and
//! `findAll` (with an optional limit), with Go `regexp` (RE2) syntax, matches and error
//! texts. Patterns are checked by the Go syntax port and run on the `regex` crate after
//! translation; compiled patterns are cached per thread, as cel-go compiles constant
//! patterns once.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::argv;
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, Value};

/// Patterns kept per thread; the cache is emptied when full. Rules use few constant
/// patterns, while patterns read from objects change per request: a small cache keeps
/// what a client can make the server hold small (each compiled pattern may take MiBs).
const CACHE_LIMIT: usize = 32;

thread_local! {
    static CACHE: RefCell<HashMap<String, Rc<::regex::Regex>>> = RefCell::new(HashMap::new());
}

/// Go's `regexp.Compile`: the compiled pattern or Go's error text (`error parsing
/// regexp: missing closing ]: `[``). cel-go reports that text for a constant pattern
/// when the program is built, and as `Illegal regex: <text>` at run time otherwise.
pub fn compile_go(pattern: &str) -> Result<Rc<::regex::Regex>, String> {
    if let Some(hit) = CACHE.with(|c| c.borrow().get(pattern).cloned()) {
        return Ok(hit);
    }
    let compiled = Rc::new(crate::cel::eval::regex::compile(pattern)?);
    CACHE.with(|c| {
        let mut cache = c.borrow_mut();
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(pattern.to_string(), Rc::clone(&compiled));
    });
    Ok(compiled)
}

pub fn library() -> Library {
    Library {
        decls: vec![
            Decl::member(
                "string_find_string",
                "find",
                vec![Type::String, Type::String],
                Type::String,
            ),
            Decl::member(
                "string_find_all_string",
                "findAll",
                vec![Type::String, Type::String],
                Type::list(Type::String),
            ),
            Decl::member(
                "string_find_all_string_int",
                "findAll",
                vec![Type::String, Type::String, Type::Int],
                Type::list(Type::String),
            ),
        ],
        impls: vec![
            ("string_find_string", Impl::Binary(find)),
            ("string_find_all_string", Impl::Binary(find_all)),
            ("string_find_all_string_int", Impl::Ternary(find_all_n)),
        ],
    }
}

fn compile_arg(pattern: &Value<'_>) -> Result<Rc<::regex::Regex>, EvalError> {
    compile_go(argv::string(pattern)?).map_err(|e| EvalError::new(format!("Illegal regex: {e}")))
}

/// The leftmost match, or `""`.
fn find<'a>(text: &Value<'a>, pattern: &Value<'a>) -> Outcome<'a> {
    let text = argv::string(text)?;
    let re = compile_arg(pattern)?;
    Ok(Value::string(re.find(text).map_or("", |m| m.as_str())))
}

fn find_all<'a>(text: &Value<'a>, pattern: &Value<'a>) -> Outcome<'a> {
    let text = argv::string(text)?;
    let re = compile_arg(pattern)?;
    Ok(argv::string_list(find_all_go(&re, text, -1)))
}

fn find_all_n<'a>(text: &Value<'a>, pattern: &Value<'a>, limit: &Value<'a>) -> Outcome<'a> {
    let text = argv::string(text)?;
    let limit = argv::int(limit)?;
    let re = compile_arg(pattern)?;
    Ok(argv::string_list(find_all_go(&re, text, limit)))
}

/// Go's `FindAllString(text, n)`: successive non-overlapping matches (all when `n < 0`),
/// an empty match right after a match skipped, an empty match moving on one character.
pub fn find_all_go(re: &::regex::Regex, text: &str, n: i64) -> Vec<String> {
    let limit = usize::try_from(n).unwrap_or(usize::MAX);
    let mut found = Vec::new();
    let (mut pos, mut prev_end) = (0usize, None);
    while found.len() < limit && pos <= text.len() {
        let Some(m) = re.find_at(text, pos) else {
            break;
        };
        let mut accept = true;
        if m.end() == pos {
            // An empty match: skipped right after a match; the search moves on a character.
            accept = prev_end != Some(m.start());
            pos += text[pos..].chars().next().map_or(1, char::len_utf8);
        } else {
            pos = m.end();
        }
        prev_end = Some(m.end());
        if accept {
            found.push(m.as_str().to_string());
        }
    }
    found
}

#[cfg(test)]
mod tests;
