//! Cases from cel-go `ext/strings_test.go` for the functions of version 2.

use super::*;
use crate::cel::lib::argv::testing::{call, outcome, s};

fn run(id: &str, args: &[Value<'static>]) -> String {
    outcome(call(&library(), id, args))
}

#[test]
fn strings_functions_table_match_cel_go() {
    let i = Value::Int;
    let cases: Vec<(&str, Vec<Value<'static>>, &str)> = vec![
        ("string_char_at_int", vec![s("tacocat"), i(3)], "o"),
        ("string_char_at_int", vec![s("tacocat"), i(7)], ""),
        ("string_char_at_int", vec![s("©αT"), i(1)], "α"),
        (
            "string_char_at_int",
            vec![s("tacocat"), i(30)],
            "error: index out of range: 30",
        ),
        (
            "string_char_at_int",
            vec![s("tacocat"), i(-1)],
            "error: index out of range: -1",
        ),
        ("string_index_of_string", vec![s("tacocat"), s("")], "0"),
        ("string_index_of_string", vec![s("tacocat"), s("ac")], "1"),
        (
            "string_index_of_string",
            vec![s("tacocat"), s("none")],
            "-1",
        ),
        (
            "string_index_of_string_int",
            vec![s("tacocat"), s(""), i(3)],
            "3",
        ),
        (
            "string_index_of_string_int",
            vec![s("tacocat"), s("a"), i(3)],
            "5",
        ),
        ("string_index_of_string", vec![s("ta©o©αT"), s("©")], "2"),
        (
            "string_index_of_string_int",
            vec![s("ta©o©αT"), s("©αT"), i(3)],
            "4",
        ),
        (
            "string_index_of_string_int",
            vec![s("ta©o©αT"), s("©α"), i(5)],
            "-1",
        ),
        (
            "string_index_of_string",
            vec![s("hello wello"), s("elbo room!!!")],
            "-1",
        ),
        (
            "string_index_of_string_int",
            vec![s("tacocat"), s("a"), i(30)],
            "-1",
        ),
        (
            "string_index_of_string_int",
            vec![s("tacocat"), s(""), i(30)],
            "7",
        ),
        (
            "string_index_of_string_int",
            vec![s("tacocat"), s(""), i(-1)],
            "error: index out of range: -1",
        ),
        ("string_last_index_of_string", vec![s(""), s("@@")], "-1"),
        (
            "string_last_index_of_string",
            vec![s("tacocat"), s("")],
            "7",
        ),
        (
            "string_last_index_of_string",
            vec![s("tacocat"), s("at")],
            "5",
        ),
        (
            "string_last_index_of_string_int",
            vec![s("tacocat"), s(""), i(3)],
            "3",
        ),
        (
            "string_last_index_of_string_int",
            vec![s("tacocat"), s("a"), i(3)],
            "1",
        ),
        (
            "string_last_index_of_string",
            vec![s("ta©o©αT"), s("©")],
            "4",
        ),
        (
            "string_last_index_of_string_int",
            vec![s("ta©o©αT"), s("©α"), i(4)],
            "4",
        ),
        (
            "string_last_index_of_string_int",
            vec![s("bananananana"), s("nana"), i(7)],
            "6",
        ),
        (
            "string_last_index_of_string",
            vec![s("hello wello"), s("hello wello")],
            "0",
        ),
        (
            "string_last_index_of_string_int",
            vec![s("tacocat"), s("a"), i(-1)],
            "error: index out of range: -1",
        ),
        (
            "string_last_index_of_string_int",
            vec![s("tacocat"), s("a"), i(30)],
            "-1",
        ),
        ("string_lower_ascii", vec![s("TacoCÆt Xii")], "tacocÆt xii"),
        ("string_upper_ascii", vec![s("tacoCαt")], "TACOCαT"),
        (
            "string_replace_string_string",
            vec![s("{0} days {0} hours"), s("{0}"), s("2")],
            "2 days 2 hours",
        ),
        (
            "string_replace_string_string_int",
            vec![s("{0} days {0} hours"), s("{0}"), s("2"), i(1)],
            "2 days {0} hours",
        ),
        (
            "string_replace_string_string_int",
            vec![s("ab"), s("a"), s("x"), i(0)],
            "ab",
        ),
        (
            "string_replace_string_string",
            vec![s("hello hello"), s(""), s("_")],
            "_h_e_l_l_o_ _h_e_l_l_o_",
        ),
        (
            "string_split_string",
            vec![s("hello world"), s(" ")],
            "[hello, world]",
        ),
        (
            "string_split_string_int",
            vec![s("hello world events!"), s(" "), i(0)],
            "[]",
        ),
        (
            "string_split_string_int",
            vec![s("hello world events!"), s(" "), i(1)],
            "[hello world events!]",
        ),
        (
            "string_split_string_int",
            vec![s("o©o©o©o"), s("©"), i(-1)],
            "[o, o, o, o]",
        ),
        ("string_split_string", vec![s("a©c"), s("")], "[a, ©, c]"),
        (
            "string_split_string_int",
            vec![s("abc"), s(""), i(2)],
            "[a, bc]",
        ),
        ("string_split_string", vec![s(""), s("")], "[]"),
        ("string_split_string", vec![s(""), s(",")], "[]"),
        ("string_substring_int", vec![s("tacocat"), i(4)], "cat"),
        ("string_substring_int", vec![s("tacocat"), i(7)], ""),
        (
            "string_substring_int",
            vec![s("tacocat"), i(-1)],
            "error: index out of range: -1",
        ),
        (
            "string_substring_int",
            vec![s("tacocat"), i(8)],
            "error: index out of range: 8",
        ),
        (
            "string_substring_int_int",
            vec![s("ta©o©αT"), i(2), i(6)],
            "©o©α",
        ),
        (
            "string_substring_int_int",
            vec![s("tacocat"), i(2), i(1)],
            "error: invalid substring range. start: 2, end: 1",
        ),
        (
            "string_substring_int_int",
            vec![s("tacocat"), i(-1), i(1)],
            "error: index out of range: -1",
        ),
        (
            "string_substring_int_int",
            vec![s("tacocat"), i(1), i(8)],
            "error: index out of range: 8",
        ),
        ("string_trim", vec![s(" \x0c\n\r\t\x0btext  ")], "text"),
        (
            "string_trim",
            vec![s("\u{85}\u{a0}\u{1680}text\u{2028}\u{3000}")],
            "text",
        ),
        (
            "string_trim",
            vec![s("\u{180e}text\u{200b}")],
            "\u{180e}text\u{200b}",
        ),
        (
            "strings_quote",
            vec![s("first\nsecond")],
            "\"first\\nsecond\"",
        ),
        (
            "strings_quote",
            vec![s("bell\x07 \x08 \x0c \r \t \x0b")],
            "\"bell\\a \\b \\f \\r \\t \\v\"",
        ),
        (
            "strings_quote",
            vec![s("mid \" \\ quote")],
            "\"mid \\\" \\\\ quote\"",
        ),
        (
            "strings_quote",
            vec![s("printable unicode😀")],
            "\"printable unicode😀\"",
        ),
        ("list_join", vec![Value::list(vec![s("x"), s("y")])], "xy"),
        (
            "list_join_string",
            vec![Value::list(vec![s("x"), s("y")]), s("-")],
            "x-y",
        ),
        ("list_join_string", vec![Value::list(vec![]), s("-")], ""),
        (
            "list_join",
            vec![Value::list(vec![s("x"), Value::Int(1)])],
            "error: join: invalid input: 1",
        ),
    ];
    for (id, args, want) in cases {
        assert_eq!(run(id, &args), want, "{id}{args:?}");
    }
}

#[test]
fn strings_version_two_has_no_reverse() {
    assert!(library().decls.iter().all(|d| d.function != "reverse"));
}
