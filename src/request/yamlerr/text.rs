//! Source-text facts go-yaml's messages depend on: libyaml's line numbers, its reader's
//! character checks, and where the scanner stood when it gave up.

/// Line (0-based, as libyaml counts) of a byte offset: `\n`, `\r\n` and a lone `\r` each
/// end a line, like the markers serde-saphyr reports.
pub fn line_at(text: &str, offset: usize) -> usize {
    let head = text.as_bytes().get(..offset).unwrap_or(text.as_bytes());
    let breaks = head.iter().enumerate().filter(|(i, b)| match b {
        b'\n' => true,
        b'\r' => head.get(i + 1) != Some(&b'\n'),
        _ => false,
    });
    breaks.count()
}

/// Line of the end of input where the scanner reports it (an unterminated quote).
pub fn eof_line(text: &str) -> usize {
    line_at(text, text.len())
}

/// Line of libyaml's STREAM-END token, which moves to a fresh line when the input does not
/// end with a line break.
pub fn stream_end_line(text: &str) -> usize {
    let open_line = !text.is_empty() && !text.ends_with(['\n', '\r']);
    eof_line(text) + usize::from(open_line)
}

/// Byte offset of a 1-based line and character column.
pub fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find(['\n', '\r']) {
            Some(i) => {
                start += i + 1;
                if text[..start].ends_with('\r') && text[start..].starts_with('\n') {
                    start += 1;
                }
            }
            None => return text.len(),
        }
    }
    let rest = &text[start..];
    start
        + rest
            .char_indices()
            .nth(column.saturating_sub(1))
            .map_or(rest.len(), |(i, _)| i)
}

/// Byte offset of a character index (serde-saphyr's markers count characters).
pub fn offset_of_char(text: &str, index: usize) -> usize {
    text.char_indices()
        .nth(index)
        .map_or(text.len(), |(i, _)| i)
}

/// Where the next token starts at or after `from`: blanks, line breaks and comments
/// skipped; `None` at the end of input.
pub fn next_token(text: &str, from: usize) -> Option<usize> {
    let mut at = from.min(text.len());
    loop {
        let rest = &text[at..];
        let trimmed = rest.trim_start_matches([' ', '\t', '\n', '\r']);
        at += rest.len() - trimmed.len();
        if !trimmed.starts_with('#') {
            return (!trimmed.is_empty()).then_some(at);
        }
        at += trimmed.find(['\n', '\r']).unwrap_or(trimmed.len());
    }
}

/// Line the scanner is on when a simple key goes stale: the next token after the key's line.
pub fn stale_key_line(text: &str, key: usize) -> usize {
    let line_end = text[key..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| key + i);
    next_token(text, line_end).map_or_else(|| eof_line(text), |at| line_at(text, at))
}

/// Line of the first tab at or after `from` (libyaml reports the tab itself).
pub fn tab_line(text: &str, from: usize) -> Option<usize> {
    text[from..].find('\t').map(|i| line_at(text, from + i))
}

/// Line of the first `---`/`...` line start from `from` on, which ends a quoted scalar.
pub fn document_indicator_line(text: &str, from: usize) -> Option<usize> {
    // A marker may stand on the line `from` starts.
    let at_line_start = from > 0 && text[..from].ends_with(['\n', '\r']);
    let mut at = if at_line_start { from - 1 } else { from };
    while let Some(i) = text[at..].find(['\n', '\r']) {
        at += i + 1;
        let rest = &text[at..];
        let marker = rest.starts_with("---") || rest.starts_with("...");
        if marker && rest[3..].chars().next().is_none_or(char::is_whitespace) {
            return Some(line_at(text, at));
        }
    }
    None
}

/// Offset of the first escape in the double-quoted scalar at `quote` that libyaml rejects:
/// unknown, short of hex digits, or not a Unicode scalar value (surrogate halves included).
pub fn bad_escape(text: &str, quote: usize) -> Option<usize> {
    let mut chars = text.get(quote + 1..)?.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return None,
            '\\' => {
                let width = match chars.next().map(|(_, e)| e) {
                    Some('x') => 2,
                    Some('u') => 4,
                    Some('U') => 8,
                    Some(e) if "0abt\tnvfre \"/'\\N_LP\n\r".contains(e) => 0,
                    _ => return Some(quote + 1 + i),
                };
                let digits: String = chars.by_ref().take(width).map(|(_, d)| d).collect();
                let code = u32::from_str_radix(&digits, 16).ok();
                let valid = width == 0
                    || (digits.len() == width && code.and_then(char::from_u32).is_some());
                if !valid {
                    return Some(quote + 1 + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Name of the alias (`*name`) at `offset`.
pub fn alias_name(text: &str, offset: usize) -> &str {
    let rest = text.get(offset..).unwrap_or_default();
    let name = rest.strip_prefix('*').unwrap_or(rest);
    let end = name.find(|c: char| c.is_whitespace() || ",[]{}".contains(c));
    &name[..end.unwrap_or(name.len())]
}

/// The plain or quoted scalar at `offset` and the YAML 1.1 tag go-yaml resolves it to.
pub fn scalar_at(text: &str, offset: usize) -> (&str, &'static str) {
    let rest = text.get(offset..).unwrap_or_default();
    let line = &rest[..rest.find(['\n', '\r']).unwrap_or(rest.len())];
    let line = line.split(" #").next().unwrap_or(line).trim_end();
    match line.chars().next() {
        Some(q @ ('"' | '\'')) => (line[1..].split(q).next().unwrap_or_default(), "!!str"),
        _ => (line, resolve(line)),
    }
}

/// go-yaml v2's implicit tag of a plain scalar (`resolve.go`, the common forms).
fn resolve(plain: &str) -> &'static str {
    let lower = plain.to_ascii_lowercase();
    match lower.as_str() {
        "" | "~" | "null" => "!!null",
        "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" => "!!bool",
        ".inf" | "+.inf" | "-.inf" | ".nan" => "!!float",
        _ if plain.parse::<i64>().is_ok() => "!!int",
        _ if plain.parse::<f64>().is_ok() => "!!float",
        _ => "!!str",
    }
}

/// libyaml's reader refuses these characters anywhere in the input.
pub fn is_printable(c: char) -> bool {
    matches!(c as u32, 0x09 | 0x0A | 0x0D | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..)
}

/// libyaml's reader problem for the invalid UTF-8 sequence that starts `rest`.
pub fn utf8_problem(rest: &[u8]) -> &'static str {
    let lead = rest.first().copied().unwrap_or_default();
    let width = match lead {
        _ if lead & 0x80 == 0 => 1,
        _ if lead & 0xE0 == 0xC0 => 2,
        _ if lead & 0xF0 == 0xE0 => 3,
        _ if lead & 0xF8 == 0xF0 => 4,
        _ => return "invalid leading UTF-8 octet",
    };
    let Some(sequence) = rest.get(..width) else {
        return "incomplete UTF-8 octet sequence";
    };
    if sequence[1..].iter().any(|b| b & 0xC0 != 0x80) {
        return "invalid trailing UTF-8 octet";
    }
    let mask = [0x7F, 0x1F, 0x0F, 0x07][width - 1];
    let value = sequence[1..].iter().fold(u32::from(lead & mask), |v, b| {
        (v << 6) | u32::from(b & 0x3F)
    });
    let least = [0, 0x80, 0x800, 0x10000][width - 1];
    if value < least {
        return "invalid length of a UTF-8 sequence";
    }
    "invalid Unicode character"
}

/// Length of a quoted scalar's body and closing quote, `rest` starting after the opening one.
pub fn quoted_len(rest: &str, quote: char) -> usize {
    let mut chars = rest.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if quote == '"' => {
                chars.next();
            }
            '\'' if quote == '\'' && rest[i + 1..].starts_with('\'') => {
                chars.next();
            }
            c if c == quote => return i + 1,
            _ => {}
        }
    }
    rest.len()
}
