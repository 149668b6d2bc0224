//! Request stage: a YAML body that is compact JSON — what kubectl sends as an apply patch
//! (`application/apply-patch+yaml`, the output of `runtime.Encode`) — read by the JSON
//! decoder, which finds duplicate fields in the same pass, whenever a lexical gate shows
//! the YAML decoder would read it to the same value.
//!
//! The gate admits a subset of JSON on which the two decoders provably agree, and sends
//! everything else (and every body with a duplicate key, whose go-yaml error needs line
//! numbers) to the YAML decoder and go-yaml's duplicate scan, as before:
//! - an object, no whitespace but spaces outside strings and one trailing newline
//!   (YAML's line and indentation rules never come into play);
//! - integers of at most 18 digits, no `-0`, no fractions or exponents (each decoder
//!   rounds and signs those its own way: `-0` is `-0.0` to serde_json and `0` to YAML);
//! - nesting of at most 60 (serde-saphyr's depth budget is 64) and keys of at most 1000
//!   bytes to their `:` (YAML's implicit keys end within 1024 characters);
//! - only characters libyaml's reader accepts, without the ones YAML 1.1 and 1.2 read
//!   differently (NEL, the Unicode line and paragraph separators) or drops (a BOM).

use serde_json::Value;

use crate::request::strict::json;
use crate::request::yamlerr::text::is_printable;

const MAX_DEPTH: usize = 60;
const MAX_KEY_BYTES: usize = 1000;
/// Every integer of up to 18 digits fits an `i64`, which both decoders read exactly.
const MAX_DIGITS: usize = 18;

/// The value of `body` when it passes the gate, parses as JSON and has no duplicate
/// field; `None` sends it to the YAML decoder, which gives its own value or error.
pub fn decode(body: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(body).ok()?;
    if !compact(text) {
        return None;
    }
    match json::decode(text, true) {
        Ok((value, duplicates)) if duplicates.is_empty() => Some(value),
        _ => None,
    }
}

/// Whether `text` lies in the subset of JSON that YAML reads the same (it may still
/// not be JSON: the JSON decoder says so).
fn compact(text: &str) -> bool {
    let text = text.strip_suffix('\n').unwrap_or(text);
    if !text.starts_with('{') {
        return false;
    }
    let bytes = text.as_bytes();
    let (mut depth, mut digits, mut prev, mut at) = (0usize, 0usize, 0u8, 0usize);
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => {
                let Some(close) = string_end(text, at + 1) else {
                    return false;
                };
                if key_too_long(bytes, at, close) {
                    return false;
                }
                (prev, digits, at) = (byte, 0, close + 1);
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return false;
                }
            }
            b'0'..=b'9' => {
                digits += 1;
                if digits > MAX_DIGITS || (byte == b'0' && prev == b'-') {
                    return false;
                }
            }
            b'e' if prev.is_ascii_digit() => return false,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' | b':' | b' ' | b'-' | b'a'..=b'z' => {}
            _ => return false,
        }
        if !byte.is_ascii_digit() {
            digits = 0;
        }
        (prev, at) = (byte, at + 1);
    }
    true
}

/// The index of the quote closing the string whose contents start at `from`, when
/// every character in it is one YAML reads as JSON does.
fn string_end(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    loop {
        match *bytes.get(at)? {
            b'"' => return Some(at),
            // The escaped byte is ASCII in valid JSON; anything else fails the JSON decode.
            b'\\' => at += 2,
            0x20..=0x7E => at += 1,
            0x80.. => {
                let c = text.get(at..)?.chars().next()?;
                if !is_printable(c) || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{FEFF}')
                {
                    return None;
                }
                at += c.len_utf8();
            }
            _ => return None,
        }
    }
}

/// Whether the string `open..=close` is a key (a `:` follows, after spaces) too long
/// for a YAML implicit key.
fn key_too_long(bytes: &[u8], open: usize, close: usize) -> bool {
    let after = bytes
        .get(close + 1..)
        .map_or(0, |rest| rest.iter().take_while(|&&b| b == b' ').count());
    let colon = close + 1 + after;
    bytes.get(colon) == Some(&b':') && colon - open > MAX_KEY_BYTES
}

#[cfg(test)]
mod tests;
