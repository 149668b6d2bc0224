//! Go's single-character escapes: `\n`-style controls, octal `\123`, hex `\x7F` and
//! `\x{10FFFF}`, and escaped punctuation; anything else is an invalid escape.

use super::{GoError, INVALID_ESCAPE, TRAILING_BACKSLASH};

/// The escape at the start of `s` (which starts with `\`): its character and length.
pub(super) fn parse_escape(s: &str) -> Result<(u32, usize), GoError> {
    let mut chars = s[1..].char_indices();
    let Some((_, c)) = chars.next() else {
        return Err(GoError::new(TRAILING_BACKSLASH, ""));
    };
    // `end` is the length consumed so far, for the error text.
    let mut end = 1 + c.len_utf8();
    let invalid = |end: usize| Err(GoError::new(INVALID_ESCAPE, &s[..end]));
    match c {
        '1'..='7' if !next_is_octal(s, end) => invalid(end),
        '0'..='7' => {
            let mut value = c as u32 - '0' as u32;
            for _ in 0..2 {
                if !next_is_octal(s, end) {
                    break;
                }
                value = value * 8 + u32::from(s.as_bytes()[end] - b'0');
                end += 1;
            }
            Ok((value, end))
        }
        'x' => hex_escape(s, end),
        'a' => Ok((7, end)),
        'f' => Ok((12, end)),
        'n' => Ok((10, end)),
        'r' => Ok((13, end)),
        't' => Ok((9, end)),
        'v' => Ok((11, end)),
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c as u32, end)),
        _ => invalid(end),
    }
}

fn next_is_octal(s: &str, at: usize) -> bool {
    matches!(s.as_bytes().get(at), Some(b'0'..=b'7'))
}

/// `\xHH` or `\x{H...}`; `end` is just past the `x`.
fn hex_escape(s: &str, mut end: usize) -> Result<(u32, usize), GoError> {
    let invalid = |end: usize| Err(GoError::new(INVALID_ESCAPE, &s[..end]));
    let next = |end: &mut usize| {
        let c = s[*end..].chars().next();
        if let Some(c) = c {
            *end += c.len_utf8();
        }
        c
    };
    let Some(c) = next(&mut end) else {
        return invalid(end);
    };
    if c == '{' {
        let (mut value, mut digits) = (0u32, 0);
        loop {
            let Some(c) = next(&mut end) else {
                return invalid(end);
            };
            if c == '}' {
                break;
            }
            let Some(v) = c.to_digit(16) else {
                return invalid(end);
            };
            value = value * 16 + v;
            if value > 0x10FFFF {
                return invalid(end);
            }
            digits += 1;
        }
        return if digits == 0 {
            invalid(end)
        } else {
            Ok((value, end))
        };
    }
    let high = c.to_digit(16);
    let low = next(&mut end).and_then(|c| c.to_digit(16));
    match (high, low) {
        (Some(h), Some(l)) => Ok((h * 16 + l, end)),
        _ => invalid(end),
    }
}
