//! Rust source into tokens with their line, comments and literals dropped: what the
//! layering check parses, so that text in a comment or a string is never a reference.

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Token {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
}

/// Rust's tokens with their line, without comments and literals.
pub(crate) fn tokens(text: &str) -> Vec<(usize, Token)> {
    lex(text, false)
}

/// As [`tokens`], with each plain string literal kept as an `Ident` holding its quoted
/// text (for `#[path = ".."]`).
pub(crate) fn tokens_with_strings(text: &str) -> Vec<(usize, Token)> {
    lex(text, true)
}

fn lex(text: &str, keep_strings: bool) -> Vec<(usize, Token)> {
    let chars: Vec<char> = text.chars().collect();
    let at = |k: usize| chars.get(k).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            '/' if at(i + 1) == '/' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == '*' => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && at(i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && at(i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        line += usize::from(chars[i] == '\n');
                        i += 1;
                    }
                }
            }
            '"' => {
                let end = string_end(&chars, i + 1);
                if keep_strings {
                    out.push((start_line, Token::Ident(chars[i..end].iter().collect())));
                }
                line += chars[i..end].iter().filter(|c| **c == '\n').count();
                i = end;
            }
            '\'' => i = char_or_lifetime_end(&chars, i),
            ':' if at(i + 1) == ':' => {
                out.push((line, Token::PathSep));
                i += 2;
            }
            c if c.is_alphanumeric() || c == '_' => {
                let begin = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[begin..i].iter().collect();
                match (word.as_str(), at(i)) {
                    ("r" | "br" | "cr", '"' | '#') if raw_string_opens(&chars, i) => {
                        let end = raw_string_end(&chars, i);
                        line += chars[i..end].iter().filter(|c| **c == '\n').count();
                        i = end;
                    }
                    ("b" | "c", '"') => {
                        let end = string_end(&chars, i + 1);
                        line += chars[i..end].iter().filter(|c| **c == '\n').count();
                        i = end;
                    }
                    ("b", '\'') => i = char_or_lifetime_end(&chars, i),
                    ("r", '#') => {
                        // A raw identifier: `r#name`.
                        let begin = i + 1;
                        i = begin;
                        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                            i += 1;
                        }
                        out.push((line, Token::Ident(chars[begin..i].iter().collect())));
                    }
                    _ => out.push((line, Token::Ident(word))),
                }
            }
            c => {
                out.push((line, Token::Punct(c)));
                i += 1;
            }
        }
    }
    out
}

/// The index after the closing `"` of a string whose body starts at `i`.
fn string_end(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

/// `#*"` at `i`: a raw string's opening after its `r`.
fn raw_string_opens(chars: &[char], mut i: usize) -> bool {
    while chars.get(i) == Some(&'#') {
        i += 1;
    }
    chars.get(i) == Some(&'"')
}

/// The index after a raw string whose `#*"` opening starts at `i`.
fn raw_string_end(chars: &[char], mut i: usize) -> usize {
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    i += 1;
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        i += 1;
    }
    chars.len()
}

/// The index after a char literal (`'x'`, `'\n'`, `'\u{..}'`) or a lifetime (`'a`)
/// starting at the `'` at `i`.
fn char_or_lifetime_end(chars: &[char], i: usize) -> usize {
    if chars.get(i + 1) == Some(&'\\') {
        let mut k = i + 3;
        while k < chars.len() && chars[k] != '\'' {
            k += 1;
        }
        return k + 1;
    }
    if chars.get(i + 2) == Some(&'\'') {
        return i + 3;
    }
    let mut k = i + 1;
    while k < chars.len() && (chars[k].is_alphanumeric() || chars[k] == '_') {
        k += 1;
    }
    k
}

#[test]
fn tokens_of_source_text_keep_lines_across_comments_and_literals() {
    let text = "a /* one\ntwo */ b\n\"x\ny\" c r#\"\n\"# d 'e' 'f g\n// h\ni::j";
    let want = [
        (1, Token::Ident("a".into())),
        (2, Token::Ident("b".into())),
        (4, Token::Ident("c".into())),
        (5, Token::Ident("d".into())),
        (5, Token::Ident("g".into())),
        (7, Token::Ident("i".into())),
        (7, Token::PathSep),
        (7, Token::Ident("j".into())),
    ];
    assert_eq!(tokens(text), want);
    let kept = tokens_with_strings("#[path = \"a.rs\"]");
    assert_eq!(kept[4], (1, Token::Ident("\"a.rs\"".into())));
}
