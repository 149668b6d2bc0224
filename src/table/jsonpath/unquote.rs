//! Go string unquoting for quoted JSONPath literals (client-go's `UnquoteExtend`).

/// client-go's `UnquoteExtend`: Go string unquoting that also accepts single-quoted strings.
pub(super) fn unquote_extend(quoted: &str) -> Option<String> {
    let bytes = quoted.as_bytes();
    let quote = *bytes.first()?;
    if bytes.len() < 2 || bytes.last() != Some(&quote) || !matches!(quote, b'"' | b'\'') {
        return None;
    }
    let mut rest = &bytes[1..bytes.len() - 1];
    if !rest.contains(&b'\\') && !rest.contains(&quote) {
        return String::from_utf8(rest.to_vec()).ok();
    }
    let mut out = Vec::with_capacity(rest.len());
    while !rest.is_empty() {
        rest = unquote_char(rest, quote, &mut out)?;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// Go's `strconv.UnquoteChar`: decodes one (possibly escaped) character into `out`.
fn unquote_char<'b>(s: &'b [u8], quote: u8, out: &mut Vec<u8>) -> Option<&'b [u8]> {
    let (&first, tail) = s.split_first()?;
    if first == quote {
        return None;
    }
    if first != b'\\' {
        out.push(first);
        return Some(tail);
    }
    let (&kind, tail) = tail.split_first()?;
    let simple = match kind {
        b'a' => Some(0x07),
        b'b' => Some(0x08),
        b'f' => Some(0x0c),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(0x0b),
        b'\\' => Some(b'\\'),
        b'\'' | b'"' if kind == quote => Some(kind),
        _ => None,
    };
    if let Some(byte) = simple {
        out.push(byte);
        return Some(tail);
    }
    match kind {
        b'x' | b'u' | b'U' => unquote_hex(kind, tail, out),
        b'0'..=b'7' => unquote_octal(kind, tail, out),
        _ => None,
    }
}

/// `\xhh` (one raw byte), `\uhhhh` and `\Uhhhhhhhh` (a valid Unicode scalar as UTF-8).
fn unquote_hex<'b>(kind: u8, tail: &'b [u8], out: &mut Vec<u8>) -> Option<&'b [u8]> {
    let digits = match kind {
        b'x' => 2,
        b'u' => 4,
        _ => 8,
    };
    let hex = std::str::from_utf8(tail.get(..digits)?).ok()?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let value = u32::from_str_radix(hex, 16).ok()?;
    if kind == b'x' {
        out.push(u8::try_from(value).ok()?);
    } else {
        let c = char::from_u32(value)?;
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
    tail.get(digits..)
}

/// `\ooo`: three octal digits (the first already read as `first`), at most 255.
fn unquote_octal<'b>(first: u8, tail: &'b [u8], out: &mut Vec<u8>) -> Option<&'b [u8]> {
    let digits = tail.get(..2)?;
    let mut value = u32::from(first - b'0');
    for &d in digits {
        if !(b'0'..=b'7').contains(&d) {
            return None;
        }
        value = value * 8 + u32::from(d - b'0');
    }
    out.push(u8::try_from(value).ok()?);
    tail.get(2..)
}
