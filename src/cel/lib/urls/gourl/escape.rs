//! Go `net/url` escaping: which bytes each URL part leaves as they are, `%XX` decoding
//! with Go's error texts, and encoding.

use crate::gofmt::quote;

/// Go's `encoding` modes (which bytes are left unescaped).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// Go's `shouldEscape` (its `encoding_table.go`, spelled as rules).
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') {
        return false;
    }
    let allowed: &[u8] = match mode {
        Mode::Host | Mode::Zone => b"!\"$&'()*+,:;<=>[]",
        Mode::Path => b"$&+,/:;=@",
        Mode::UserPassword => b"$&+,;=",
        Mode::QueryComponent => b"",
        Mode::Fragment => b"!$&'()*+,/:;=?@",
    };
    !allowed.contains(&c)
}

fn unhex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c.wrapping_sub(b'A').wrapping_add(10),
    }
}

/// Go's `unescape`, or its `EscapeError` / `InvalidHostError` text.
pub(super) fn unescape(s: &[u8], mode: Mode) -> Result<Vec<u8>, String> {
    let escape_error = |bad: &[u8]| {
        format!(
            "invalid URL escape {}",
            quote(&String::from_utf8_lossy(bad))
        )
    };
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                if i + 2 >= s.len()
                    || !s[i + 1].is_ascii_hexdigit()
                    || !s[i + 2].is_ascii_hexdigit()
                {
                    return Err(escape_error(&s[i..(i + 3).min(s.len())]));
                }
                let v = unhex(s[i + 1]) << 4 | unhex(s[i + 2]);
                let is_pct25 = &s[i..i + 3] == b"%25";
                if mode == Mode::Host && unhex(s[i + 1]) < 8 && !is_pct25 {
                    return Err(escape_error(&s[i..i + 3]));
                }
                if mode == Mode::Zone && !is_pct25 && v != b' ' && should_escape(v, Mode::Host) {
                    return Err(escape_error(&s[i..i + 3]));
                }
                out.push(v);
                i += 3;
            }
            b'+' => {
                out.push(if mode == Mode::QueryComponent {
                    b' '
                } else {
                    b'+'
                });
                i += 1;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!(
                        "invalid character {} in host name",
                        quote(&char::from(c).to_string())
                    ));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Go's `escape`.
pub(super) fn escape(s: &[u8], mode: Mode) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s {
        if c == b' ' && mode == Mode::QueryComponent {
            out.push('+');
        } else if should_escape(c, mode) {
            out.push_str(&format!("%{c:02X}"));
        } else {
            out.push(char::from(c));
        }
    }
    out
}

/// Go's `validEncoded`.
pub(super) fn valid_encoded(s: &str, mode: Mode) -> bool {
    s.bytes()
        .all(|c| b"!$&'()*+,;=:@[]%".contains(&c) || !should_escape(c, mode))
}
