//! Table tests of cel-go's parser limits and of the error rendering
//! (`common.Error.ToDisplayString`).

use super::limits;
use super::tests::outcome;
use crate::cel::ast::Source;

const LISTENER: &str = "ERROR: <input>:-1:0: expression recursion limit exceeded: 250";
const VISITOR: &str = "ERROR: <input>:-1:0: max recursion depth exceeded";

fn nested(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

fn chain(term: &str, op: &str, n: usize) -> String {
    vec![term; n].join(op)
}

#[test]
fn parse_beyond_recursion_limits_fails_as_cel_go() {
    // (input, refused with): `None` parses.
    let cases: Vec<(String, Option<&str>)> = vec![
        (nested("(", "1", ")", 249), None),
        (nested("(", "1", ")", 250), Some(LISTENER)),
        (nested("[", "", "]", 250), None),
        (nested("[", "1", "]", 250), Some(LISTENER)),
        (nested("f(", "", ")", 250), None),
        (nested("{1: ", "1", "}", 249), None),
        (nested("{1: ", "1", "}", 250), Some(LISTENER)),
        (format!("{}c", "a ? b : ".repeat(249)), None),
        (format!("{}c", "a ? b : ".repeat(250)), Some(LISTENER)),
        (format!("a{}", ".b".repeat(250)), None),
        (format!("a{}", ".b".repeat(251)), Some(VISITOR)),
        (format!("x{}", "[0]".repeat(250)), None),
        (format!("x{}", "[0]".repeat(251)), Some(VISITOR)),
        (chain("1", "+", 251), None),
        (chain("1", "+", 252), Some(VISITOR)),
        (chain("1", "+", 50_000), Some(VISITOR)),
    ];
    for (source, refused) in cases {
        let result = outcome(&source);
        match refused {
            Some(text) => assert_eq!(result, text, "{}...", &source[..20]),
            None => assert!(
                !result.starts_with("ERROR"),
                "{}...: {result}",
                &source[..20]
            ),
        }
    }
}

#[test]
fn parse_over_code_point_limit_fails_before_parsing() {
    let cases = [
        ("é".repeat(100_000), None),
        (
            "é".repeat(100_001),
            Some(
                "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000",
            ),
        ),
    ];
    for (source, refused) in cases {
        let result = outcome(&source);
        match refused {
            Some(text) => assert_eq!(result, text),
            // Not over the limit: refused by the grammar instead.
            None => assert!(result.contains("token recognition error")),
        }
    }
}

#[test]
fn parse_more_than_100_errors_truncates_as_cel_go() {
    let result = outcome(&"#".repeat(102));
    assert_eq!(result.matches("ERROR: ").count(), 100);
    assert!(result.ends_with(" | ...................................................................................................^\n1 more errors were truncated"), "{result}");
}

#[test]
fn expr_depth_skips_strings_and_comments() {
    let cases = [
        ("x", 1),
        ("(x)", 2),
        ("f()", 1),
        ("[[]]", 2),
        ("a ? b : c ? d : e", 3),
        ("[a ? b : c, d]", 3),
        ("{a ? b : c: d ? e : f}", 3),
        (r#""((((" + '[[' + x"#, 1),
        ("r'((' + b\"[[\" + '''\n((\n'''", 1),
        ("a // ((((\n+ (b)", 2),
        ("a.?b[?c] + [?d]", 2),
    ];
    for (source, depth) in cases {
        assert_eq!(limits::expr_depth(source), depth, "{source:?}");
    }
}

#[test]
fn render_error_matches_cel_go_display() {
    let source = |text: &str| Source {
        text: text.into(),
        offsets: Default::default(),
    };
    let long = "x".repeat(16_385);
    let cases = [
        (
            "a + b",
            Some((1, 4)),
            "ERROR: <input>:1:5: m\n | a + b\n | ....^",
        ),
        (
            "\ta +",
            Some((1, 2)),
            "ERROR: <input>:1:3: m\n |  a +\n | ..^",
        ),
        (
            "éa é",
            Some((1, 3)),
            "ERROR: <input>:1:4: m\n | éa é\n | ．..＾",
        ),
        ("a\r\nb", Some((2, 0)), "ERROR: <input>:2:1: m\n | b\n | ^"),
        ("a\nb", Some((3, 0)), "ERROR: <input>:3:1: m"),
        ("", Some((1, 0)), "ERROR: <input>:1:1: m"),
        (long.as_str(), Some((1, 0)), "ERROR: <input>:1:1: m"),
        ("a", None, "ERROR: <input>:-1:0: m"),
    ];
    for (text, location, expected) in cases {
        assert_eq!(
            source(text).render_error(location, "m"),
            expected,
            "{text:?}"
        );
    }
}
