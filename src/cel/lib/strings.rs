//! cel-go's strings extension at the version kube enables for stored expressions
//! (`ext.Strings(ext.StringsVersion(2))`, environment/base.go): `charAt`, `indexOf`,
//! `lastIndexOf`, `lowerAscii`, `upperAscii`, `replace`, `split`, `substring`, `trim`,
//! `join`, `strings.quote` and `format` (the version-1 formatter, in [`format`]).
//! `reverse` (version 3) is absent. Indices count code points, as cel-go's runes do.

mod format;

use super::argv;
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, Value};

pub fn library() -> Library {
    let s = || Type::String;
    let m = Decl::member;
    Library {
        decls: vec![
            m("string_char_at_int", "charAt", vec![s(), Type::Int], s()),
            m(
                "string_index_of_string",
                "indexOf",
                vec![s(), s()],
                Type::Int,
            ),
            m(
                "string_index_of_string_int",
                "indexOf",
                vec![s(), s(), Type::Int],
                Type::Int,
            ),
            m(
                "string_last_index_of_string",
                "lastIndexOf",
                vec![s(), s()],
                Type::Int,
            ),
            m(
                "string_last_index_of_string_int",
                "lastIndexOf",
                vec![s(), s(), Type::Int],
                Type::Int,
            ),
            m("string_lower_ascii", "lowerAscii", vec![s()], s()),
            m(
                "string_replace_string_string",
                "replace",
                vec![s(), s(), s()],
                s(),
            ),
            m(
                "string_replace_string_string_int",
                "replace",
                vec![s(), s(), s(), Type::Int],
                s(),
            ),
            m(
                "string_split_string",
                "split",
                vec![s(), s()],
                Type::list(s()),
            ),
            m(
                "string_split_string_int",
                "split",
                vec![s(), s(), Type::Int],
                Type::list(s()),
            ),
            m(
                "string_substring_int",
                "substring",
                vec![s(), Type::Int],
                s(),
            ),
            m(
                "string_substring_int_int",
                "substring",
                vec![s(), Type::Int, Type::Int],
                s(),
            ),
            m("string_trim", "trim", vec![s()], s()),
            m("string_upper_ascii", "upperAscii", vec![s()], s()),
            m(
                "string_format",
                "format",
                vec![s(), Type::list(Type::Dyn)],
                s(),
            ),
            Decl::global("strings_quote", "strings.quote", vec![s()], s()),
            m("list_join", "join", vec![Type::list(s())], s()),
            m("list_join_string", "join", vec![Type::list(s()), s()], s()),
        ],
        impls: vec![
            ("string_char_at_int", Impl::Binary(char_at)),
            ("string_index_of_string", Impl::Binary(index_of)),
            ("string_index_of_string_int", Impl::Ternary(index_of_offset)),
            ("string_last_index_of_string", Impl::Binary(last_index_of)),
            (
                "string_last_index_of_string_int",
                Impl::Ternary(last_index_of_offset),
            ),
            ("string_lower_ascii", Impl::Unary(lower_ascii)),
            ("string_replace_string_string", Impl::Ternary(replace)),
            (
                "string_replace_string_string_int",
                Impl::Variadic(replace_n),
            ),
            ("string_split_string", Impl::Binary(split)),
            ("string_split_string_int", Impl::Ternary(split_n)),
            ("string_substring_int", Impl::Binary(substring)),
            ("string_substring_int_int", Impl::Ternary(substring_range)),
            ("string_trim", Impl::Unary(trim)),
            ("string_upper_ascii", Impl::Unary(upper_ascii)),
            ("string_format", Impl::Binary(format::string_format)),
            ("strings_quote", Impl::Unary(quote)),
            ("list_join", Impl::Unary(join)),
            ("list_join_string", Impl::Binary(join_separator)),
        ],
    }
}

fn out_of_range(index: i64) -> EvalError {
    EvalError::new(format!("index out of range: {index}"))
}

fn chars(value: &Value<'_>) -> Result<Vec<char>, EvalError> {
    Ok(argv::string(value)?.chars().collect())
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn char_at<'a>(text: &Value<'a>, index: &Value<'a>) -> Outcome<'a> {
    let runes = chars(text)?;
    let i = argv::int(index)?;
    match usize::try_from(i) {
        Ok(i) if i < runes.len() => Ok(Value::string(runes[i].to_string())),
        Ok(i) if i == runes.len() => Ok(Value::string("")),
        _ => Err(out_of_range(i)),
    }
}

/// Where `needle` starts in `hay` at or after `from`, searching forwards.
fn find_from(hay: &[char], needle: &[char], from: usize) -> Option<usize> {
    let last = hay.len().checked_sub(needle.len())?;
    (from..=last).find(|&i| hay[i..i + needle.len()] == *needle)
}

fn index_of<'a>(text: &Value<'a>, needle: &Value<'a>) -> Outcome<'a> {
    index_of_offset(text, needle, &Value::Int(0))
}

fn index_of_offset<'a>(text: &Value<'a>, needle: &Value<'a>, offset: &Value<'a>) -> Outcome<'a> {
    let (runes, sub, off) = (chars(text)?, chars(needle)?, argv::int(offset)?);
    let Ok(start) = usize::try_from(off) else {
        return Err(out_of_range(off));
    };
    if sub.is_empty() {
        return Ok(Value::Int(off.min(count(runes.len()))));
    }
    if start >= runes.len() {
        return Ok(Value::Int(-1));
    }
    Ok(Value::Int(find_from(&runes, &sub, start).map_or(-1, count)))
}

fn last_index_of<'a>(text: &Value<'a>, needle: &Value<'a>) -> Outcome<'a> {
    let (s, sub) = (argv::string(text)?, argv::string(needle)?);
    let runes = s.chars().count();
    if sub.is_empty() {
        return Ok(Value::Int(count(runes)));
    }
    // cel-go compares byte lengths here, then searches by code points.
    if s.len() < sub.len() {
        return Ok(Value::Int(-1));
    }
    last_index_of_offset(text, needle, &Value::Int(count(runes) - 1))
}

fn last_index_of_offset<'a>(
    text: &Value<'a>,
    needle: &Value<'a>,
    offset: &Value<'a>,
) -> Outcome<'a> {
    let (runes, sub, off) = (chars(text)?, chars(needle)?, argv::int(offset)?);
    let Ok(start) = usize::try_from(off) else {
        return Err(out_of_range(off));
    };
    if sub.is_empty() {
        return Ok(Value::Int(off.min(count(runes.len()))));
    }
    if start >= runes.len() || sub.len() > runes.len() {
        return Ok(Value::Int(-1));
    }
    let start = start.min(runes.len() - sub.len());
    let found = (0..=start).rev().find(|&i| runes[i..i + sub.len()] == *sub);
    Ok(Value::Int(found.map_or(-1, count)))
}

fn lower_ascii<'a>(text: &Value<'a>) -> Outcome<'a> {
    Ok(Value::string(argv::string(text)?.to_ascii_lowercase()))
}

fn upper_ascii<'a>(text: &Value<'a>) -> Outcome<'a> {
    Ok(Value::string(argv::string(text)?.to_ascii_uppercase()))
}

fn replace<'a>(text: &Value<'a>, old: &Value<'a>, new: &Value<'a>) -> Outcome<'a> {
    let (s, old, new) = (argv::string(text)?, argv::string(old)?, argv::string(new)?);
    Ok(Value::string(s.replace(old, new)))
}

/// Go's `strings.Replace`: at most `n` replacements, all when `n < 0`.
fn replace_n<'a>(args: &[Value<'a>]) -> Outcome<'a> {
    let [text, old, new, n] = args else {
        return Err(argv::no_such_overload());
    };
    let (s, old, new, n) = (
        argv::string(text)?,
        argv::string(old)?,
        argv::string(new)?,
        argv::int(n)?,
    );
    Ok(Value::string(match usize::try_from(n) {
        Ok(n) => s.replacen(old, new, n),
        Err(_) => s.replace(old, new),
    }))
}

fn split<'a>(text: &Value<'a>, sep: &Value<'a>) -> Outcome<'a> {
    split_n(text, sep, &Value::Int(-1))
}

/// Go's `strings.SplitN`: `n == 0` gives no parts, `n < 0` all of them, else at most `n`
/// with the rest unsplit in the last. An empty separator splits into code points (none
/// for the empty string).
fn split_n<'a>(text: &Value<'a>, sep: &Value<'a>, n: &Value<'a>) -> Outcome<'a> {
    let (s, sep, n) = (argv::string(text)?, argv::string(sep)?, argv::int(n)?);
    let limit = usize::try_from(n).unwrap_or(usize::MAX);
    let parts: Vec<String> = if limit == 0 {
        Vec::new()
    } else if sep.is_empty() {
        let mut parts: Vec<String> = Vec::new();
        let mut rest = s;
        while let Some(c) = rest.chars().next() {
            if parts.len() + 1 == limit {
                break;
            }
            parts.push(c.to_string());
            rest = &rest[c.len_utf8()..];
        }
        if !rest.is_empty() {
            parts.push(rest.to_string());
        }
        parts
    } else {
        s.splitn(limit, sep).map(str::to_string).collect()
    };
    Ok(argv::string_list(parts))
}

fn substring<'a>(text: &Value<'a>, start: &Value<'a>) -> Outcome<'a> {
    let runes = chars(text)?;
    let start = argv::int(start)?;
    match usize::try_from(start) {
        Ok(i) if i <= runes.len() => Ok(Value::string(runes[i..].iter().collect::<String>())),
        _ => Err(out_of_range(start)),
    }
}

fn substring_range<'a>(text: &Value<'a>, start: &Value<'a>, end: &Value<'a>) -> Outcome<'a> {
    let runes = chars(text)?;
    let (start, end) = (argv::int(start)?, argv::int(end)?);
    if start > end {
        return Err(EvalError::new(format!(
            "invalid substring range. start: {start}, end: {end}"
        )));
    }
    let bound = |i: i64| match usize::try_from(i) {
        Ok(u) if u <= runes.len() => Ok(u),
        _ => Err(out_of_range(i)),
    };
    let (from, to) = (bound(start)?, bound(end)?);
    Ok(Value::string(runes[from..to].iter().collect::<String>()))
}

/// Go's `strings.TrimSpace`: Unicode White_Space, as Rust's `trim`.
fn trim<'a>(text: &Value<'a>) -> Outcome<'a> {
    Ok(Value::string(argv::string(text)?.trim()))
}

/// cel-go's `strings.quote`: double-quoted with CEL's escapes for `\a \b \f \n \r \t \v`,
/// backslash and double quote; everything else as it is.
fn quote<'a>(text: &Value<'a>) -> Outcome<'a> {
    let s = argv::string(text)?;
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(Value::string(out))
}

fn join<'a>(list: &Value<'a>) -> Outcome<'a> {
    join_with(list, "")
}

fn join_separator<'a>(list: &Value<'a>, sep: &Value<'a>) -> Outcome<'a> {
    join_with(list, argv::string(sep)?)
}

fn join_with<'a>(list: &Value<'a>, sep: &str) -> Outcome<'a> {
    let Value::List(list) = list else {
        return Err(argv::no_such_overload());
    };
    let items = argv::strings_of(list, |bad| {
        EvalError::new(format!("join: invalid input: {}", format::go_value(bad)))
    })?;
    Ok(Value::string(items.join(sep)))
}

#[cfg(test)]
mod tests;
