//! Format `email`: Go's `net/mail.ParseAddress` succeeds, so display names
//! (`Name <a@b>`), comments, quoted local parts, domain literals and single-address
//! groups are all accepted, exactly as Go's RFC 5322 parser reads them.

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

use super::net;

/// Whether `value` is one RFC 5322 address as `mail.ParseAddress` reads it.
pub(super) fn is_address(value: &str) -> bool {
    let mut parser = Parser { s: value };
    parser.address(true) == Some(1) && parser.skip_cfws() && parser.s.is_empty()
}

/// The unread rest of the input; each step consumes from the front.
struct Parser<'a> {
    s: &'a str,
}

impl<'a> Parser<'a> {
    /// `mailbox / group`: how many addresses were read, `None` on a syntax error.
    fn address(&mut self, handle_group: bool) -> Option<usize> {
        self.skip_space();
        if self.s.is_empty() {
            return None;
        }
        if self.addr_spec() {
            self.skip_space();
            if self.consume('(') {
                self.display_name_comment()?;
            }
            return Some(1);
        }
        if !self.s.starts_with('<') {
            self.phrase()?;
        }
        self.skip_space();
        if handle_group && self.consume(':') {
            return self.group_list();
        }
        (self.consume('<') && self.addr_spec() && self.consume('>')).then_some(1)
    }

    /// After `display-name:`: addresses up to `;` (groups do not nest).
    fn group_list(&mut self) -> Option<usize> {
        self.skip_space();
        if self.consume(';') {
            return self.skip_cfws().then_some(0);
        }
        let mut count = 0;
        loop {
            self.skip_space();
            count += self.address(false)?;
            if !self.skip_cfws() {
                return None;
            }
            if self.consume(';') {
                return self.skip_cfws().then_some(count);
            }
            if !self.consume(',') {
                return None;
            }
        }
    }

    /// `local@domain`; on failure nothing is consumed.
    fn addr_spec(&mut self) -> bool {
        let start = self.s;
        let ok = self.addr_spec_parts();
        if !ok {
            self.s = start;
        }
        ok
    }

    fn addr_spec_parts(&mut self) -> bool {
        self.skip_space();
        let local = if self.s.starts_with('"') {
            self.quoted_string().is_some_and(|text| !text.is_empty())
        } else {
            self.atom(false).is_some()
        };
        if !local || !self.consume('@') {
            return false;
        }
        self.skip_space();
        if self.s.starts_with('[') {
            self.domain_literal()
        } else {
            self.atom(false).is_some()
        }
    }

    /// One or more words (atoms, quoted strings, RFC 2047 encoded words). A failing word
    /// ends the phrase; it is an error only when no word was read.
    fn phrase(&mut self) -> Option<()> {
        let mut words = 0;
        // Go joins adjacent encoded words in a buffer that counts once it is non-empty.
        let mut pending = false;
        let mut failed = false;
        loop {
            if words > 0 && !self.skip_cfws() {
                return None;
            }
            self.skip_space();
            if self.s.is_empty() {
                break;
            }
            let word = if self.s.starts_with('"') {
                self.quoted_string().map(|_| Word::Plain)
            } else {
                self.atom(true).map(encoded_word)
            };
            match word {
                None | Some(Word::BadCharset) => {
                    failed = true;
                    break;
                }
                Some(Word::Encoded { empty }) => pending |= !empty,
                Some(Word::Plain) => {
                    words += if pending { 2 } else { 1 };
                    pending = false;
                }
            }
        }
        (!failed || words > 0 || pending).then_some(())
    }

    /// `"..."` with backslash escapes; returns the unescaped text.
    fn quoted_string(&mut self) -> Option<String> {
        let mut text = String::new();
        let mut escaped = false;
        for (i, c) in self.s.char_indices().skip(1) {
            if escaped {
                if !is_vchar(c) && !is_wsp(c) {
                    return None;
                }
                text.push(c);
                escaped = false;
            } else if (is_vchar(c) && c != '\\' && c != '"') || is_wsp(c) {
                text.push(c);
            } else if c == '"' {
                self.s = &self.s[i + 1..];
                return Some(text);
            } else if c == '\\' {
                escaped = true;
            } else {
                return None;
            }
        }
        None
    }

    /// A dot-atom; unless `permissive`, dots may not lead, trail or double.
    fn atom(&mut self, permissive: bool) -> Option<&'a str> {
        let end = self.s.find(|c| !is_atext(c)).unwrap_or(self.s.len());
        if end == 0 {
            return None;
        }
        let (atom, rest) = self.s.split_at(end);
        self.s = rest;
        let bad_dots = atom.starts_with('.') || atom.ends_with('.') || atom.contains("..");
        (permissive || !bad_dots).then_some(atom)
    }

    /// `[dtext]` holding an IPv4 address or `IPv6:` and any IP address.
    fn domain_literal(&mut self) -> bool {
        let rest = &self.s[1..];
        let Some(end) = rest.find(|c: char| !is_dtext(c)) else {
            return false;
        };
        if !rest[end..].starts_with(']') {
            return false;
        }
        let dtext = &rest[..end];
        self.s = &rest[end + 1..];
        match dtext.strip_prefix("IPv6:") {
            Some(addr) => net::parse_ip(addr).is_some(),
            // Go's `To4`: an IPv4 address, possibly written IPv4-mapped.
            None => net::parse_ip(dtext)
                .is_some_and(|ip| ip[..10] == [0; 10] && ip[10..12] == [0xff, 0xff]),
        }
    }

    /// `(comment)` after an addr-spec, read as a display name: its encoded words must not
    /// name an unsupported charset.
    fn display_name_comment(&mut self) -> Option<()> {
        let comment = self.comment()?;
        comment
            .split([' ', '\t'])
            .all(|word| !matches!(encoded_word(word), Word::BadCharset))
            .then_some(())
    }

    /// The rest of a comment whose `(` was consumed: nested parentheses, `\` escapes.
    fn comment(&mut self) -> Option<String> {
        let bytes = self.s.as_bytes();
        let mut depth = 1;
        let mut i = 0;
        let mut text = Vec::new();
        while i < bytes.len() && depth > 0 {
            match bytes[i] {
                b'\\' if i + 1 < bytes.len() => i += 1,
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            }
            if depth > 0 {
                text.push(bytes[i]);
            }
            i += 1;
        }
        self.s = self.s.get(i..)?;
        (depth == 0).then(|| String::from_utf8_lossy(&text).into_owned())
    }

    /// Spaces and comments; false for an unclosed comment.
    fn skip_cfws(&mut self) -> bool {
        self.skip_space();
        while self.consume('(') {
            if self.comment().is_none() {
                return false;
            }
            self.skip_space();
        }
        true
    }

    fn skip_space(&mut self) {
        self.s = self.s.trim_start_matches([' ', '\t']);
    }

    fn consume(&mut self, c: char) -> bool {
        match self.s.strip_prefix(c) {
            Some(rest) => {
                self.s = rest;
                true
            }
            None => false,
        }
    }
}

/// How Go's `decodeRFC2047Word` classifies a word.
enum Word {
    /// Not an encoded word (or a malformed one): taken literally.
    Plain,
    /// `=?utf-8|iso-8859-1|us-ascii?B|Q?...?=` decoding to empty or not.
    Encoded { empty: bool },
    /// A well-formed encoded word in another charset: an error.
    BadCharset,
}

fn encoded_word(word: &str) -> Word {
    let inner = match word.strip_prefix("=?").and_then(|w| w.strip_suffix("?=")) {
        Some(inner) if word.len() >= 8 && word.matches('?').count() == 4 => inner,
        _ => return Word::Plain,
    };
    let Some((charset, rest)) = inner
        .split_once('?')
        .filter(|(charset, _)| !charset.is_empty())
    else {
        return Word::Plain;
    };
    let (encoding, text) = rest.split_once('?').unwrap_or((rest, ""));
    let content = match encoding {
        "B" | "b" => GO_BASE64.decode(text).ok(),
        "Q" | "q" => q_decode(text),
        _ => None,
    };
    let Some(content) = content else {
        return Word::Plain;
    };
    if ["utf-8", "iso-8859-1", "us-ascii"]
        .iter()
        .any(|known| fold_eq(known, charset))
    {
        Word::Encoded {
            empty: content.is_empty(),
        }
    } else {
        Word::BadCharset
    }
}

/// Go's `base64.StdEncoding` decoder: padding required, stray trailing bits allowed.
const GO_BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);

/// RFC 2047 "Q" encoding: `_` is a space, `=XX` a byte, other printable ASCII as is.
fn q_decode(text: &str) -> Option<Vec<u8>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'_' => out.push(b' '),
            b'=' => {
                let hex = text
                    .get(i + 1..i + 3)
                    .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            c @ (b' '..=b'~' | b'\n' | b'\r' | b'\t') => out.push(c),
            _ => return None,
        }
        i += 1;
    }
    Some(out)
}

/// Go's `strings.EqualFold` against an ASCII name: ASCII case and `ſ` (folds to `s`).
fn fold_eq(known: &str, text: &str) -> bool {
    let folded = text.chars().map(|c| {
        if c == 'ſ' {
            's'
        } else {
            c.to_ascii_lowercase()
        }
    });
    known.chars().eq(folded)
}

fn is_atext(c: char) -> bool {
    !"()<>[]:;@\\,\"".contains(c) && is_vchar(c)
}

fn is_dtext(c: char) -> bool {
    !matches!(c, '[' | ']' | '\\') && is_vchar(c)
}

/// Printable ASCII or any non-ASCII character (RFC 6532).
fn is_vchar(c: char) -> bool {
    ('!'..='~').contains(&c) || !c.is_ascii()
}

fn is_wsp(c: char) -> bool {
    c == ' ' || c == '\t'
}

#[cfg(test)]
mod tests;
