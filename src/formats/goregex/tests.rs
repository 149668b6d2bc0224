//! Table tests: patterns Go accepts, and Go's error text for the ones it rejects.

use super::check;

const VALID: &[(&str, &str)] = &[
    ("empty", ""),
    ("anchors", "^.$"),
    ("alternation", "(a*|b)(c*|d)"),
    ("class escapes", r"[a-abc-c\-\]\[]"),
    ("negated class", r"[^\n]"),
    ("escaped punctuation", r"\!\\"),
    ("unmatched bracket is literal", "abc]"),
    ("non-greedy", "a??"),
    ("literal brace", "a{"),
    ("brace without digits", "x{,5}"),
    ("leading zero count is literal", "a{01}"),
    ("counted", "a{2,5}b{3}c{0,}"),
    ("nested counts at the limit", "(a{10}){100}"),
    ("zero count ignores inner", "((a{1000}){0}){2}"),
    ("cron", r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$"),
    ("named groups", "(?P<year>[0-9]{4})-(?<month>[0-9]{2})"),
    ("flags", "(?i)abc(?-s:x)(?U)y*"),
    ("empty flags group", "(?)a"),
    ("flag group repeated", "a(?i)*"),
    ("quote", r"\Q*+?\E*"),
    ("unicode classes", r"\pL\p{Greek}\P{^Lu}[\p{Han}\d]"),
    ("posix class", "[[:alpha:][:^digit:]]"),
    ("hex escapes", r"\x41\x{10FFFF}"),
    ("octal escapes", r"\0\123"),
    ("assertions repeated", r"^*\b+$?"),
    ("empty group repeated", "()*"),
    ("dns label", "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"),
];

#[test]
fn check_valid_go_patterns_accepted() {
    for (name, pattern) in VALID {
        assert_eq!(check(pattern), Ok(()), "{name}: {pattern}");
    }
}

const INVALID: &[(&str, &str, &str)] = &[
    (
        "star alone",
        "*",
        "missing argument to repetition operator: `*`",
    ),
    (
        "plus alone",
        "+",
        "missing argument to repetition operator: `+`",
    ),
    (
        "non-greedy alone",
        "??",
        "missing argument to repetition operator: `??`",
    ),
    (
        "after bar",
        "a|*",
        "missing argument to repetition operator: `*`",
    ),
    (
        "after paren",
        "(+)",
        "missing argument to repetition operator: `+`",
    ),
    (
        "flags at start",
        "(?i)*",
        "missing argument to repetition operator: `*`",
    ),
    ("open paren", "(abc", "missing closing ): `(abc`"),
    ("open paren later", "foo(", "missing closing ): `foo(`"),
    ("close paren", "abc)", "unexpected ): `abc)`"),
    ("open bracket", "x[a-z", "missing closing ]: `[a-z`"),
    ("bracket alone", "[", "missing closing ]: `[`"),
    ("bracket first", "[]", "missing closing ]: `[]`"),
    (
        "reversed range",
        "[z-a]",
        "invalid character class range: `z-a`",
    ),
    (
        "trailing backslash",
        r"abc\",
        "trailing backslash at end of expression: ``",
    ),
    (
        "double star",
        "a**",
        "invalid nested repetition operator: `**`",
    ),
    (
        "star plus",
        "a*+",
        "invalid nested repetition operator: `*+`",
    ),
    (
        "lazy then star",
        "a*?*",
        "invalid nested repetition operator: `*?*`",
    ),
    (
        "double count",
        "a{2}{3}",
        "invalid nested repetition operator: `{2}{3}`",
    ),
    ("hex missing", r"\x", "invalid escape sequence: `\\x`"),
    ("hex bad", r"\xZZ", "invalid escape sequence: `\\xZZ`"),
    (
        "hex braces open",
        r"\x{12",
        "invalid escape sequence: `\\x{12`",
    ),
    ("backreference", r"(a)\1", "invalid escape sequence: `\\1`"),
    ("eight", r"\8", "invalid escape sequence: `\\8`"),
    ("letter escape", r"\q", "invalid escape sequence: `\\q`"),
    ("any byte", r"\C", "invalid escape sequence: `\\C`"),
    (
        "class escape in range",
        r"[a-\d]",
        "invalid escape sequence: `\\d`",
    ),
    (
        "unicode missing",
        r"\p",
        "invalid character class range: `\\p`",
    ),
    (
        "unicode open",
        r"\p{",
        "invalid character class range: `\\p{`",
    ),
    (
        "unicode unknown",
        r"\p{Foo}",
        "invalid character class range: `\\p{Foo}`",
    ),
    (
        "unicode short alias",
        r"\p{Grek}",
        "invalid character class range: `\\p{Grek}`",
    ),
    (
        "posix unknown",
        "[[:foo:]]",
        "invalid character class range: `[:foo:]`",
    ),
    (
        "count too large",
        "a{1001}",
        "invalid repeat count: `{1001}`",
    ),
    ("count reversed", "a{2,1}", "invalid repeat count: `{2,1}`"),
    (
        "count nested",
        "(a{100}){100}",
        "invalid repeat count: `{100}`",
    ),
    (
        "count nested lazy",
        "(a{100}){100}?",
        "invalid repeat count: `{100}?`",
    ),
    (
        "count huge",
        "a{100000000}",
        "invalid repeat count: `{100000000}`",
    ),
    ("name empty", "(?P<>a)", "invalid named capture: `(?P<>`"),
    ("name dot", "(?<a.b>x)", "invalid named capture: `(?<a.b>`"),
    (
        "name space",
        "(?<x y>a)",
        "invalid named capture: `(?<x y>`",
    ),
    (
        "name unclosed",
        "(?P<name",
        "invalid named capture: `(?P<name`",
    ),
    (
        "lookahead",
        "(?=a)",
        "invalid or unsupported Perl syntax: `(?=`",
    ),
    ("lookbehind", "(?<=x)y", "invalid named capture: `(?<=x)y`"),
    (
        "unknown flag",
        "(?z)",
        "invalid or unsupported Perl syntax: `(?z`",
    ),
    (
        "negation without flag",
        "(?i-)",
        "invalid or unsupported Perl syntax: `(?i-)`",
    ),
    (
        "flags unclosed",
        "(?i",
        "invalid or unsupported Perl syntax: `(?i`",
    ),
    (
        "python backreference",
        "(?P=n)",
        "invalid or unsupported Perl syntax: `(?P`",
    ),
];

#[test]
fn check_invalid_go_patterns_reports_go_error() {
    for (name, pattern, want) in INVALID {
        assert_eq!(
            check(pattern).map_err(|e| e.to_string()),
            Err(format!("error parsing regexp: {want}")),
            "{name}: {pattern}"
        );
    }
}
