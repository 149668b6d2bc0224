//! Table tests of parsing: each expression kind with its node positions, syntax
//! errors, limits and error rendering; expected texts are cel-go's (its
//! `parser_test.go` and the vendored cel-go 0.32 run on the same inputs).

use super::debug;
use super::parse;

/// The tree as `debug::render` prints it, or the error text.
pub(super) fn outcome(source: &str) -> String {
    match parse(source) {
        Ok(ast) => debug::render(&ast),
        Err(e) => e,
    }
}

pub(super) fn check(cases: &[(&str, &str)]) {
    for (source, expected) in cases {
        assert_eq!(outcome(source), *expected, "parsing {source:?}");
    }
}

#[test]
fn parse_each_expression_kind_keeps_ids_positions_and_shape() {
    check(&[
        ("null", "null@0"),
        ("true", "true@0"),
        ("false", "false@0"),
        ("42", "42@0"),
        ("-7", "-7@0"),
        ("0x1F", "31@0"),
        ("3u", "3u@0"),
        ("0xFFu", "255u@0"),
        ("2.5", "2.5d@0"),
        ("-1.5e3", "-1500d@0"),
        (r#""s""#, r#""s"@0"#),
        ("'é'", r#""é"@0"#),
        (r#"b"ab""#, r#"b"ab"@0"#),
        (r#"r"a\\b""#, r#""a\\\\b"@0"#),
        ("x", "x@0"),
        (".x", ".x@1"),
        ("a.b.c", "a@0.b@1.c@3"),
        ("a.`b-c`", "a@0.b-c@1"),
        ("f(x, 1)", "f(x@2, 1@5)@1"),
        (".f()", ".f()@2"),
        ("x.f(1)", "x@0.f(1@4)@3"),
        ("a[0]", "_[_](a@0, 0@2)@1"),
        ("a[?0]", "_[?_](a@0, 0@3)@1"),
        ("a.?b", r#"_?._(a@0, "b"@3)@1"#),
        ("a.?b.?c", r#"_?._(_?._(a@0, "b"@3)@1, "c"@6)@4"#),
        ("[1, ?x]", "[1@1, ?x@5]@0"),
        (r#"{"k": 1, ?2: x}"#, r#"{"k"@1:@4 1@6, ?2@10:@11 x@13}@0"#),
        ("Msg{f: 1, ?g: x}", "Msg{f:@5 1@7, ?g:@12 x@14}@3"),
        (".pkg.Msg{}", ".pkg.Msg{}@8"),
        ("!a", "!_(a@1)@0"),
        ("!!a", "a@2"),
        ("-x", "-_(x@1)@0"),
        ("--x", "x@2"),
        (
            "a && b && c && d",
            "_&&_(_&&_(a@0, b@5)@2, _&&_(c@10, d@15)@12)@7",
        ),
        ("a || b", "_||_(a@0, b@5)@2"),
        ("a ? b : c", "_?_:_(a@0, b@4, c@8)@2"),
        (
            "1 + 2 * 3 - 4 / 5 % 6",
            "_-_(_+_(1@0, _*_(2@4, 3@8)@6)@2, _%_(_/_(4@12, 5@16)@14, 6@20)@18)@10",
        ),
        ("a < b", "_<_(a@0, b@4)@2"),
        ("a <= b", "_<=_(a@0, b@5)@2"),
        ("a > b", "_>_(a@0, b@4)@2"),
        ("a >= b", "_>=_(a@0, b@5)@2"),
        ("a == b", "_==_(a@0, b@5)@2"),
        ("a != b", "_!=_(a@0, b@5)@2"),
        ("a in b", "@in(a@0, b@5)@2"),
        (
            r#"1 +
  x.y"#,
            "_+_(1@0, x@6.y@7)@2",
        ),
        ("cel.bind(x, 1, x)", "cel@0.bind(x@9, 1@12, x@15)@8"),
        ("x.existsOne(y, true)", "x@0.existsOne(y@12, true@15)@11"),
        ("all(x, y)", "all(x@4, y@7)@3"),
        ("x.has(a.b)", "x@0.has(a@6.b@7)@5"),
        ("has(a.b, c)", "has(a@4.b@5, c@9)@3"),
    ]);
}

#[test]
fn parse_syntax_error_reports_cel_go_text() {
    check(&[
        (
            "self.true == 1",
            r#"ERROR: <input>:1:6: Syntax error: mismatched input 'true' expecting IDENTIFIER
 | self.true == 1
 | .....^"#,
        ),
        (
            "a.b(",
            r#"ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | a.b(
 | ....^"#,
        ),
        (
            r#"1 + 2
3 +"#,
            r#"ERROR: <input>:2:1: Syntax error: mismatched input '3' expecting <EOF>
 | 3 +
 | ^"#,
        ),
        (
            "{a}",
            r#"ERROR: <input>:1:3: Syntax error: mismatched input '}' expecting ':'
 | {a}
 | ..^"#,
        ),
        (
            "x ?? y",
            r#"ERROR: <input>:1:4: Syntax error: extraneous input '?' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | x ?? y
 | ...^
ERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting ':'
 | x ?? y
 | ......^"#,
        ),
        (
            "a ? b",
            r#"ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting ':'
 | a ? b
 | .....^"#,
        ),
        (
            "TestAllTypes(){}",
            r#"ERROR: <input>:1:15: Syntax error: mismatched input '{' expecting <EOF>
 | TestAllTypes(){}
 | ..............^"#,
        ),
        (
            r#""héllo" + 1 +"#,
            r#"ERROR: <input>:1:14: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | "héllo" + 1 +
 | ..．..........^"#,
        ),
        (
            "你好 + 1",
            r#"ERROR: <input>:1:1: Syntax error: token recognition error at: '你'
 | 你好 + 1
 | ＾
ERROR: <input>:1:2: Syntax error: token recognition error at: '好'
 | 你好 + 1
 | ．＾
ERROR: <input>:1:4: Syntax error: extraneous input '+' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | 你好 + 1
 | ．．.^"#,
        ),
        (
            "\ta\t+",
            r#"ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 |  a +
 | ....^"#,
        ),
        (
            r#"a
  .b(
  1,,)"#,
            r#"ERROR: <input>:3:5: Syntax error: mismatched input ',' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 |   1,,)
 | ....^
ERROR: <input>:3:6: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 |   1,,)
 | .....^"#,
        ),
        (
            "#",
            r#"ERROR: <input>:1:1: Syntax error: token recognition error at: '#'
 | #
 | ^
ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | #
 | .^"#,
        ),
        (
            "if",
            r#"ERROR: <input>:1:1: reserved identifier: if
 | if
 | ^"#,
        ),
        ("a.if", "a@0.if@1"),
        ("x.while", "x@0.while@1"),
        (
            ".if",
            r#"ERROR: <input>:1:1: reserved identifier: if
 | .if
 | ^"#,
        ),
        (
            "for(1)",
            r#"ERROR: <input>:1:1: reserved identifier: for
 | for(1)
 | ^"#,
        ),
        (
            "9223372036854775808",
            r#"ERROR: <input>:1:1: invalid int literal
 | 9223372036854775808
 | ^"#,
        ),
        (
            "18446744073709551616u",
            r#"ERROR: <input>:1:1: invalid uint literal
 | 18446744073709551616u
 | ^"#,
        ),
        (
            r#"'\777'"#,
            r#"ERROR: <input>:1:1: Syntax error: token recognition error at: ''\7'
 | '\777'
 | ^
ERROR: <input>:1:6: Syntax error: token recognition error at: '''
 | '\777'
 | .....^"#,
        ),
        (
            r#"'\ud800'"#,
            r#"ERROR: <input>:1:1: invalid unicode code point
 | '\ud800'
 | ^"#,
        ),
        (
            "[1, 2",
            r#"ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {']', ','}
 | [1, 2
 | .....^"#,
        ),
        (
            r#""unterminated"#,
            r#"ERROR: <input>:1:1: Syntax error: token recognition error at: '"unterminated'
 | "unterminated
 | ^
ERROR: <input>:1:14: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | "unterminated
 | .............^"#,
        ),
        (
            "foo bar",
            r#"ERROR: <input>:1:5: Syntax error: extraneous input 'bar' expecting <EOF>
 | foo bar
 | ....^"#,
        ),
        (
            ")",
            r#"ERROR: <input>:1:1: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | )
 | ^"#,
        ),
    ]);
}

#[test]
fn parse_error_on_unicode_line_marks_wide_characters() {
    check(&[
        (
            r#""héllo".size() == 1 +"#,
            r#"ERROR: <input>:1:22: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | "héllo".size() == 1 +
 | ..．..................^"#,
        ),
        (
            r#""ÿ" == 😀 +"#,
            r#"ERROR: <input>:1:8: Syntax error: token recognition error at: '😀'
 | "ÿ" == 😀 +
 | .．.....＾
ERROR: <input>:1:10: Syntax error: mismatched input '+' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | "ÿ" == 😀 +
 | .．.....．.^
ERROR: <input>:1:11: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | "ÿ" == 😀 +
 | .．.....．..^"#,
        ),
        (
            "a.é",
            r#"ERROR: <input>:1:3: Syntax error: token recognition error at: 'é'
 | a.é
 | ..＾
ERROR: <input>:1:4: Syntax error: no viable alternative at input '.'
 | a.é
 | ..．^"#,
        ),
        (
            "'ü'.startsWith(1, 2).all(éé, 1 1)",
            r#"ERROR: <input>:1:26: Syntax error: token recognition error at: 'é'
 | 'ü'.startsWith(1, 2).all(éé, 1 1)
 | .．.......................＾
ERROR: <input>:1:27: Syntax error: token recognition error at: 'é'
 | 'ü'.startsWith(1, 2).all(éé, 1 1)
 | .．.......................．＾
ERROR: <input>:1:28: Syntax error: extraneous input ',' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | 'ü'.startsWith(1, 2).all(éé, 1 1)
 | .．.......................．．^
ERROR: <input>:1:32: Syntax error: extraneous input '1' expecting ')'
 | 'ü'.startsWith(1, 2).all(éé, 1 1)
 | .．.......................．．....^"#,
        ),
    ]);
}
