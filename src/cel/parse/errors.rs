//! Parse errors as cel-go reports them: collected as issues, translated from the
//! `cel` crate's texts where they differ, and rendered like `common.Errors.ToDisplayString`.

use crate::cel::ast::Source;

/// cel-go keeps this many errors (`common.Errors.maxErrorsToReport`) and the
/// parser stops after as many syntax errors (`errorReportingLimit`).
const MAX_ERRORS: usize = 100;

/// One error: where (1-based line, 0-based column in characters; `None` is cel-go's
/// `NoLocation`) and what.
#[derive(Clone, Debug, PartialEq)]
pub struct Issue {
    pub location: Option<(usize, usize)>,
    pub message: String,
}

impl Issue {
    pub fn nowhere(message: impl Into<String>) -> Self {
        Issue {
            location: None,
            message: message.into(),
        }
    }
}

/// All issues, as cel-go joins them: the first 100 reported, sorted by position
/// (stably), then a count of the rest.
pub fn render(source: &Source, mut issues: Vec<Issue>) -> String {
    let total = issues.len();
    issues.truncate(MAX_ERRORS);
    // cel-go sorts `NoLocation` (line -1) first.
    issues.sort_by_key(|i| {
        i.location
            .map(|(l, c)| (l as i64, c as i64))
            .unwrap_or((-1, -1))
    });
    let mut lines: Vec<String> = issues
        .iter()
        .map(|i| source.render_error(i.location, &i.message))
        .collect();
    if total > MAX_ERRORS {
        lines.push(format!("{} more errors were truncated", total - MAX_ERRORS));
    }
    lines.join("\n")
}

/// The `cel` crate's errors as cel-go would have reported them; `recursion_limit`
/// is cel-go's text for the parse listener's depth limit.
pub fn translate(errors: &cel::ParseErrors, recursion_limit: &str) -> Vec<Issue> {
    if errors
        .errors
        .iter()
        .any(|e| e.msg.contains("Recursion limit of"))
    {
        return vec![Issue::nowhere(recursion_limit)];
    }
    let mut issues = Vec::new();
    let mut syntax_errors = 0;
    for e in &errors.errors {
        let Some(message) = cel_go_message(&e.msg) else {
            continue;
        };
        let location = match e.pos {
            (line, column) if line >= 1 && column >= 1 => {
                Some((line as usize, column as usize - 1))
            }
            _ => None,
        };
        // cel-go reports a reserved name after a leading dot at the dot, without it.
        let (location, message) = match message.strip_prefix("reserved identifier: .") {
            Some(name) => (
                location.map(|(l, c)| (l, c.saturating_sub(1))),
                format!("reserved identifier: {name}"),
            ),
            None => (location, message),
        };
        if message.starts_with("Syntax error: ") {
            syntax_errors += 1;
            if syntax_errors > MAX_ERRORS {
                // cel-go reports this one more and stops parsing.
                let more = format!("Syntax error: More than {MAX_ERRORS} syntax errors");
                issues.push(Issue {
                    location,
                    message: more,
                });
                break;
            }
        }
        issues.push(Issue { location, message });
    }
    issues
}

/// cel-go's text for one of the crate's messages; `None` for the crate's own
/// reports of incomplete parse trees, which cel-go leaves silent (the syntax
/// error behind them is reported already).
fn cel_go_message(msg: &str) -> Option<String> {
    let internal = [
        "No `",
        "Incomplete",
        "Unknown `",
        "UNKNOWN",
        "unsupported ident type",
    ];
    if internal.iter().any(|p| msg.starts_with(p)) {
        return None;
    }
    if let Some(rest) = msg
        .strip_prefix("invalid string literal: ")
        .or_else(|| msg.strip_prefix("invalid bytes literal: "))
    {
        return Some(unescape_message(rest).to_string());
    }
    if let Some(narrowed) = narrow_expected(msg) {
        return Some(narrowed);
    }
    // cel-go rewrites ANTLR's text for a reserved word after a dot
    // (`reservedIdentifier` in parser.go).
    if msg.contains("no viable alternative") {
        for word in ["true", "false", "null"] {
            if let Some(at) = msg.find("no viable alternative at input '") {
                let quoted = &msg[at + "no viable alternative at input '".len()..];
                let mut chars = quoted.chars();
                if chars.next().is_some() && chars.as_str().starts_with(&format!("{word}'")) {
                    let end = at
                        + "no viable alternative at input '".len()
                        + quoted.chars().next().map_or(0, char::len_utf8)
                        + word.len()
                        + 1;
                    let replaced = format!("mismatched input '{word}' expecting IDENTIFIER");
                    return Some(format!("{}{replaced}{}", &msg[..at], &msg[end..]));
                }
            }
        }
    }
    Some(msg.to_string())
}

/// cel-go's `unescape` error for the crate's `ParseSequenceError` (debug text).
fn unescape_message(crate_error: &str) -> &'static str {
    if crate_error.to_lowercase().contains("unicode") {
        "invalid unicode code point"
    } else if crate_error.contains("Octal") {
        "unable to unescape octal sequence in string"
    } else {
        "unable to unescape string"
    }
}

/// Tokens that continue an expression: antlr4rust reports a mismatch inside the
/// operator loops and lists them with what the enclosing rule expects, where Go's
/// ANTLR runtime leaves the loop and reports only the latter (`expecting <EOF>`).
const CONTINUATIONS: [&str; 17] = [
    "'=='", "'!='", "'in'", "'<'", "'<='", "'>='", "'>'", "'&&'", "'||'", "'['", "'.'", "'-'",
    "'?'", "'+'", "'*'", "'/'", "'%'",
];

/// Go's `expecting` set for a mismatch reported from an operator loop.
fn narrow_expected(msg: &str) -> Option<String> {
    let (head, set) = msg.split_once(" expecting {")?;
    let set = set.strip_suffix('}')?;
    let tokens: Vec<&str> = set.split(", ").collect();
    if !tokens.contains(&"'=='") {
        return None;
    }
    let rest: Vec<&str> = tokens
        .into_iter()
        .filter(|t| !CONTINUATIONS.contains(t))
        .collect();
    match rest.as_slice() {
        [] => None,
        [one] => Some(format!("{head} expecting {one}")),
        many => Some(format!("{head} expecting {{{}}}", many.join(", "))),
    }
}
