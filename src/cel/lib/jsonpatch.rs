//! kube's `jsonpatch` library (`pkg/cel/library/jsonpatch.go`), enabled with the
//! mutation types: `jsonpatch.escapeKey(<string>) <string>` escapes a key for a JSON
//! patch path (`~` as `~0`, `/` as `~1`).

use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::types::Type;
use crate::cel::value::Value;

pub fn library() -> Library {
    Library {
        decls: vec![Decl::global(
            "string_jsonpatch_escapeKey_string",
            "jsonpatch.escapeKey",
            vec![Type::String],
            Type::String,
        )],
        impls: vec![("string_jsonpatch_escapeKey_string", Impl::Unary(escape))],
    }
}

/// kube's `escapeKey` (one pass: `~` first, so an escaped `/` is not re-escaped).
pub fn escape_key(k: &str) -> String {
    let mut out = String::with_capacity(k.len());
    for c in k.chars() {
        match c {
            '/' => out.push_str("~1"),
            '~' => out.push_str("~0"),
            c => out.push(c),
        }
    }
    out
}

fn escape<'a>(arg: &Value<'a>) -> Outcome<'a> {
    match arg {
        Value::String(s) => Ok(Value::string(escape_key(s.as_str()))),
        _ => Err(crate::cel::eval::ops::no_such_overload()),
    }
}
