//! Go's strconv quoting, as Go's JSON errors print an offending character or text.

use crate::gofmt::is_print;

/// A byte as Go's v1 scanner prints it: the byte taken as a rune (`'Ã'` for 0xC3).
pub fn quote_byte(c: u8) -> String {
    quote_rune(char::from(c))
}

/// The first UTF-8 sequence of `b` as json/v2 prints it (`'é'`, or `'\x81'` when invalid).
pub fn quote_rune_at(b: &[u8]) -> String {
    match first_rune(b) {
        Rune::Valid(c, _) => quote_rune(c),
        Rune::Invalid(byte) => format!("'\\x{byte:x}'"),
        Rune::Empty => "' '".into(),
    }
}

/// Raw text as json/v2's InvalidTextError prints it: one rune quoted, text with spaces,
/// backquotes or unprintable runes as a Go string, anything else in backquotes.
pub fn quote_text(b: &[u8]) -> String {
    let runes = runes(b);
    if runes.len() == 1 {
        return quote_rune_at(b);
    }
    let escape = runes.iter().any(|r| match r {
        Rune::Valid(c, _) => *c == '`' || *c == '\u{fffd}' || c.is_whitespace() || !is_print(*c),
        _ => true,
    });
    if !escape {
        return format!("`{}`", String::from_utf8_lossy(b));
    }
    let mut out = String::from("\"");
    for r in runes {
        match r {
            Rune::Valid(c, _) => escape_rune(&mut out, c, '"'),
            Rune::Invalid(byte) => out.push_str(&format!("\\x{byte:02x}")),
            Rune::Empty => {}
        }
    }
    out.push('"');
    out
}

/// strconv.QuoteRune.
fn quote_rune(c: char) -> String {
    let mut out = String::from("'");
    escape_rune(&mut out, c, '\'');
    out.push('\'');
    out
}

fn escape_rune(out: &mut String, c: char, quote: char) {
    if c == quote || c == '\\' {
        out.push('\\');
        out.push(c);
        return;
    }
    if is_print(c) {
        out.push(c);
        return;
    }
    let escaped = match c {
        '\u{7}' => "\\a".to_string(),
        '\u{8}' => "\\b".to_string(),
        '\u{c}' => "\\f".to_string(),
        '\n' => "\\n".to_string(),
        '\r' => "\\r".to_string(),
        '\t' => "\\t".to_string(),
        '\u{b}' => "\\v".to_string(),
        c if (c as u32) < 0x20 || c == '\u{7f}' => format!("\\x{:02x}", c as u32),
        c if (c as u32) < 0x10000 => format!("\\u{:04x}", c as u32),
        c => format!("\\U{:08x}", c as u32),
    };
    out.push_str(&escaped);
}

enum Rune {
    Valid(char, usize),
    Invalid(u8),
    Empty,
}

/// Go's utf8.DecodeRune: a valid sequence, or one invalid byte.
fn first_rune(b: &[u8]) -> Rune {
    let Some(&first) = b.first() else {
        return Rune::Empty;
    };
    let take = b.len().min(4);
    for len in 1..=take {
        if let Ok(s) = std::str::from_utf8(&b[..len])
            && let Some(c) = s.chars().next()
        {
            return Rune::Valid(c, len);
        }
    }
    Rune::Invalid(first)
}

fn runes(mut b: &[u8]) -> Vec<Rune> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let r = first_rune(b);
        let len = match r {
            Rune::Valid(_, len) => len,
            _ => 1,
        };
        out.push(r);
        b = &b[len..];
    }
    out
}

/// Bytes as a Go string holds them when converted for printing: each byte of an invalid
/// UTF-8 sequence becomes U+FFFD (encoding/json's and fmt's replacement, unlike Rust's
/// one replacement per maximal invalid sequence).
pub fn lossy(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(std::iter::repeat_n('\u{fffd}', chunk.invalid().len()));
    }
    out
}

/// JSON text (valid, as Go's check accepted it) with every `\\uXXXX` surrogate escape
/// that is not part of a pair replaced by `\\ufffd`; `None` when there is none.
pub fn lone_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let hex_at = |i: usize| -> Option<u32> {
        let digits = text.get(i + 2..i + 6)?;
        (b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u'))
            .then(|| u32::from_str_radix(digits, 16).ok())
            .flatten()
    };
    let (mut out, mut last, mut i, mut found) = (String::new(), 0, 0, false);
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = hex_at(i) else {
            i += 2; // any other escape
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&unit)
            && hex_at(i + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            i += 12;
        } else if (0xD800..0xE000).contains(&unit) {
            out.push_str(&text[last..i]);
            out.push_str("\\ufffd");
            found = true;
            i += 6;
            last = i;
        } else {
            i += 6;
        }
    }
    found.then(|| {
        out.push_str(&text[last..]);
        out
    })
}
