//! `pattern` keywords are Go regexp (RE2) syntax; this rewrites them for the regex crate
//! where the two differ, so a pattern kube accepts is enforced with kube's meaning:
//! ASCII-only Perl classes and word boundaries, `\Q...\E` literals, a `{` that does not
//! start a repetition is a literal, and `[`, `&`, `~` inside a bracket class are literals
//! (the regex crate reads them as nested classes and set operators).

/// The regex crate's equivalent of a Go pattern (`None` when it still does not compile).
pub fn compile(pattern: &str) -> Option<regex::Regex> {
    regex::Regex::new(&translate(pattern)).ok()
}

/// Go syntax → regex-crate syntax with the same matches.
pub fn translate(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '\\' => i = escape(&chars, i, in_class, &mut out),
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                // `^` and a leading `]` belong to the class syntax, not its end.
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    out.push_str("\\]");
                    i += 1;
                }
            }
            '[' if chars.get(i) == Some(&':') => {
                // A POSIX class `[:alpha:]` inside a bracket class: same in both.
                let end = (i..chars.len().saturating_sub(1))
                    .find(|&j| chars[j] == ':' && chars[j + 1] == ']')
                    .map_or(chars.len(), |j| j + 2);
                out.extend(&chars[i - 1..end]);
                i = end;
            }
            '[' | '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '{' if !in_class && !is_repetition(&chars[i..]) => out.push_str("\\{"),
            _ => out.push(c),
        }
    }
    out
}

/// One escape starting after the backslash at `chars[i - 1]`; returns the next index.
fn escape(chars: &[char], i: usize, in_class: bool, out: &mut String) -> usize {
    let Some(&e) = chars.get(i) else {
        out.push('\\');
        return i;
    };
    match e {
        'd' | 'D' | 's' | 'S' | 'w' | 'W' => {
            let set = match e.to_ascii_lowercase() {
                'd' => "0-9",
                's' => "\\t\\n\\f\\r ",
                _ => "0-9A-Za-z_",
            };
            match (in_class, e.is_ascii_uppercase()) {
                (true, false) => out.push_str(set),
                (_, true) => out.push_str(&format!("[^{set}]")),
                (false, false) => out.push_str(&format!("[{set}]")),
            }
        }
        'b' | 'B' if !in_class => out.push_str(&format!("(?-u:\\{e})")),
        'p' | 'P' => {
            // A Unicode class, `\pL` or `\p{Greek}`: copied whole, so its brace is not
            // taken for a literal one.
            out.push('\\');
            out.push(e);
            let rest = &chars[i + 1..];
            let len = match rest.first() {
                Some('{') => rest
                    .iter()
                    .position(|&c| c == '}')
                    .map_or(rest.len(), |end| end + 1),
                Some(_) => 1,
                None => 0,
            };
            out.extend(&rest[..len]);
            return i + 1 + len;
        }
        'Q' => {
            // Literal text up to `\E` (or the end).
            let rest = &chars[i + 1..];
            let (literal, after) = match rest.windows(2).position(|w| w == ['\\', 'E']) {
                Some(end) => (&rest[..end], i + 1 + end + 2),
                None => (rest, chars.len()),
            };
            out.push_str(&regex::escape(&literal.iter().collect::<String>()));
            return after;
        }
        _ => {
            out.push('\\');
            out.push(e);
        }
    }
    i + 1
}

/// Whether the text after a `{` completes a counted repetition (`n}`, `n,}`, `n,m}`).
/// Only digits and commas are looked at, so the scan stays short.
fn is_repetition(rest: &[char]) -> bool {
    let Some(close) = rest.iter().position(|&c| !c.is_ascii_digit() && c != ',') else {
        return false;
    };
    if rest[close] != '}' {
        return false;
    }
    let inner: String = rest[..close].iter().collect();
    let mut parts = inner.splitn(2, ',');
    let min = parts.next().unwrap_or_default();
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    digits(min) && parts.next().is_none_or(|max| max.is_empty() || digits(max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_go_patterns_match_as_go() {
        let cases = [
            ("digit", r"^\d+$", "123", true),
            ("arabic digit is not a Go digit", r"^\d+$", "\u{663}", false),
            ("digit in class", r"^[\d.]+$", "1.2", true),
            ("non-ascii space", r"^\s$", "\u{a0}", false),
            ("ascii space", r"^a\sb$", "a b", true),
            ("word", r"^\w+$", "ab_9", true),
            ("unicode letter is not a word char", r"^\w+$", "é", false),
            ("negated in class", r"^[\Da]+$", "xa", true),
            ("escaped backslash kept", r"^\\d$", "\\d", true),
            ("word boundary", r"\bfoo\b", "a foo b", true),
            ("quoted literal", r"^\Qa.b*\E$", "a.b*", true),
            ("quoted literal is literal", r"^\Qa.b\E$", "axb", false),
            ("quoted to the end", r"^x\Q(+", "x(+", true),
            ("brace without repetition is literal", r"^a{$", "a{", true),
            (
                "brace with missing min is literal",
                r"^x{,5}$",
                "x{,5}",
                true,
            ),
            ("counted repetition", r"^a{2,3}$", "aaa", true),
            ("unicode script class", r"^\p{Greek}+$", "αβ", true),
            (
                "unicode script class refuses others",
                r"^\p{Greek}+$",
                "ab",
                false,
            ),
            ("one-letter unicode class", r"^\pL\PL$", "a1", true),
            ("open repetition", r"^a{2,}$", "a", false),
            ("bracket inside class is literal", r"^[[a]+$", "[a[", true),
            ("leading bracket close in class", r"^[]a]+$", "]a", true),
            ("negated leading bracket close", r"^[^]a]$", "b", true),
            ("ampersands are literal in class", r"^[a&&b]+$", "a&b", true),
            ("tilde literal in class", r"^[~]$", "~", true),
            ("posix class", r"^[[:alpha:]]+$", "abc", true),
            ("posix class rejects digits", r"^[[:alpha:]]+$", "a1", false),
        ];
        for (name, pattern, input, want) in cases {
            let re = compile(pattern).unwrap_or_else(|| panic!("case {name}: {pattern}"));
            assert_eq!(
                re.is_match(input),
                want,
                "case {name}: {pattern} on {input:?}"
            );
        }
    }

    #[test]
    fn translate_many_braces_and_quotes_linear() {
        // Sized so that rescanning the rest of the pattern per `{` or `\Q` would take long.
        let braces = "a{".repeat(100_000);
        assert!(translate(&braces) == "a\\{".repeat(100_000));
        let quoted = "\\Qa.\\E".repeat(100_000);
        assert!(translate(&quoted) == "a\\.".repeat(100_000));
        let counted = "a{1,2}".repeat(100_000);
        assert!(translate(&counted) == counted);
    }
}
