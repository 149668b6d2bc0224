//! Go RE2 patterns for the `regex` crate: Go's `\d`, `\w`, `\s` and `\b` are ASCII-only
//! where the crate's are Unicode-aware, and Go's `\Q...\E` quoting is spelled out.

/// Compiles a Go regular expression.
pub fn compile(pattern: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(&translate(pattern))
        .map_err(|e| format!("error parsing regexp: {}", first_line(&e.to_string())))
}

fn first_line(s: &str) -> String {
    s.lines()
        .last()
        .unwrap_or(s)
        .trim()
        .trim_start_matches("error: ")
        .to_string()
}

/// Rewrites Go-only syntax into the crate's equivalent.
pub fn translate(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('s') => out.push_str("[\\t\\n\\x0C\\r ]"),
            Some('S') => out.push_str("[^\\t\\n\\x0C\\r ]"),
            Some('b') => out.push_str("(?-u:\\b)"),
            Some('B') => out.push_str("(?-u:\\B)"),
            Some('Q') => {
                let rest: String = chars.by_ref().collect();
                let (quoted, after) = rest.split_once("\\E").unwrap_or((&rest, ""));
                out.push_str(&regex::escape(quoted));
                out.push_str(&translate(after));
                return out;
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}
