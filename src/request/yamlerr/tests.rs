//! go-yaml's own error texts for bad YAML, recorded from sigs.k8s.io/yaml.Unmarshal (the
//! YAMLToJSON part, after `error converting YAML to JSON: `) by a Go program outside the repo.

use serde_json::{Value, json};

use super::*;

fn parse(text: &str) -> Result<Value, Error> {
    let options = serde_saphyr::options! {
        duplicate_keys: serde_saphyr::options::DuplicateKeyPolicy::LastWins,
    };
    serde_saphyr::from_str_with_options::<Value>(text, options)
}

fn decoded(body: &[u8]) -> Result<Value, String> {
    decode(body, parse)
}

/// Bodies go-yaml refuses, with its exact words.
#[rustfmt::skip]
const GO_YAML_ERRORS: &[(&str, &[u8], &str)] = &[
    ("flow_mapping_unclosed_in_apply_body", b"apiVersion: ssa.example.com/v1\nkind: Widget\nmetadata: {name: er\nspec: [\n", "yaml: line 3: did not find expected ',' or '}'"),
    ("flow_sequence_unclosed_after_scalar", b"a: [1", "yaml: line 1: did not find expected ',' or ']'"),
    ("flow_sequence_unclosed_after_comma", b"a: [1,\n", "yaml: line 1: did not find expected node content"),
    ("flow_sequence_unclosed_empty", b"a: [\n", "yaml: line 1: did not find expected node content"),
    ("flow_sequence_unclosed_over_lines", b"a: x\n\n\n\nb: [1,\n2\n", "yaml: line 6: did not find expected ',' or ']'"),
    ("flow_mapping_unclosed_after_value", b"a: {b: 1", "yaml: line 1: did not find expected ',' or '}'"),
    ("flow_mapping_unclosed_after_key", b"a: {b\n", "yaml: line 1: did not find expected ',' or '}'"),
    ("flow_mapping_unclosed_with_comment", b"apiVersion: v1 # c\nkind: Widget #c\nspec: # c\n  a: [1, # c\n", "yaml: line 4: did not find expected node content"),
    ("flow_mapping_runs_into_next_key", b"a: {b: 1\nc: 2\n", "yaml: line 1: did not find expected ',' or '}'"),
    ("flow_sequence_runs_into_next_key", b"a: [1, 2\nb: 3\n", "yaml: line 1: did not find expected ',' or ']'"),
    ("flow_sequence_anchor_before_end", b"a: [&x\n", "yaml: line 1: did not find expected ',' or ']'"),
    ("flow_sequence_implicit_mapping_without_value", b"a: [b: \n", "yaml: line 1: did not find expected node content"),
    ("flow_sequence_closed_by_brace", b"- [a, b}\n", "yaml: did not find expected ',' or ']'"),
    ("flow_sequence_closed_by_brace_after_open", b"{a: [}\n", "yaml: did not find expected node content"),
    ("flow_mapping_closed_by_bracket", b"a: {b: c]\n", "yaml: did not find expected ',' or '}'"),
    ("flow_nested_closed_by_wrong_bracket", b"a: [1, {b: [2, 3}\n", "yaml: did not find expected ',' or ']'"),
    ("flow_sequence_double_comma", b"a: [1,,2]\n", "yaml: did not find expected node content"),
    ("flow_mapping_leading_comma", b"a: {,}\n", "yaml: did not find expected node content"),
    ("flow_block_entry_inside", b"- [\n- b\n", "yaml: line 1: did not find expected node content"),
    ("flow_top_level_bracket_alone", b"[", "yaml: line 1: did not find expected node content"),
    ("flow_extra_bracket_in_block_mapping", b"key: [a, b]]\n", "yaml: did not find expected key"),
    ("flow_bracket_as_value", b"a: ]\n", "yaml: did not find expected node content"),
    ("flow_brace_as_value", b"a: }\n", "yaml: did not find expected node content"),
    ("mapping_value_in_plain_value", b"a: b: c", "yaml: mapping values are not allowed in this context"),
    ("mapping_value_in_command", b"apiVersion: v1\nkind: Widget\nspec:\n  cmd: echo: hi\n", "yaml: line 4: mapping values are not allowed in this context"),
    ("mapping_value_on_continuation_line", b"a: 1\n  b: 2\n", "yaml: line 2: mapping values are not allowed in this context"),
    ("block_mapping_dedented_key", b"a:\n  b: 1\n c: 2\n", "yaml: line 2: did not find expected key"),
    ("block_mapping_sequence_after_value", b"key: value\n- item\n", "yaml: line 1: did not find expected key"),
    ("block_mapping_trailing_after_flow", b"a: [1] x\n", "yaml: did not find expected key"),
    ("block_mapping_after_block_scalar", b"a: |\n  x\n y\n", "yaml: line 2: did not find expected key"),
    ("block_mapping_trailing_after_double_quoted", b"a: \"b\"c\n", "yaml: did not find expected key"),
    ("block_mapping_trailing_after_single_quoted", b"a: 'b'c\n", "yaml: did not find expected key"),
    ("block_sequence_mapping_after_entry", b"- a\nb: 1\n", "yaml: line 1: did not find expected '-' indicator"),
    ("block_sequence_key_in_nested", b"a:\n  - 1\n  b: 2\n", "yaml: line 2: did not find expected '-' indicator"),
    ("block_sequence_mapping_in_entry", b"apiVersion: v1\nkind: Widget\nspec:\n  - a\n  b: c\n", "yaml: line 4: did not find expected '-' indicator"),
    ("simple_key_without_colon", b"a: 1\nb\n", "yaml: line 3: could not find expected ':'"),
    ("simple_key_without_colon_before_key", b"a: 1\nb\nc: 2\n", "yaml: line 3: could not find expected ':'"),
    ("simple_key_after_comment_lines", b"a: 1\n\n# c\nb\n", "yaml: line 5: could not find expected ':'"),
    ("simple_key_dash_without_space", b"- a\n-b\n", "yaml: line 3: could not find expected ':'"),
    ("tab_indentation", b"a:\n\tb: 1\n", "yaml: line 2: found character that cannot start any token"),
    ("tab_after_plain_value", b"a: 1\n\tb: 2\n", "yaml: line 2: found a tab character that violates indentation"),
    ("tab_in_block_scalar", b"a: |\n\tx\n", "yaml: line 2: found a tab character where an indentation space is expected"),
    ("double_quoted_unterminated", b"a: \"unterminated\n", "yaml: line 2: found unexpected end of stream"),
    ("double_quoted_unterminated_at_eof", b"a: \"line1\n line2", "yaml: line 2: found unexpected end of stream"),
    ("single_quoted_unterminated", b"a: 'it''s\n", "yaml: line 2: found unexpected end of stream"),
    ("single_quoted_unterminated_later_line", b"a: 'x'\nb: 'y\n", "yaml: line 3: found unexpected end of stream"),
    ("quote_alone", b"\"", "yaml: found unexpected end of stream"),
    ("quoted_document_marker", b"a: \"x\n---\ny\"\n", "yaml: line 2: found unexpected document indicator"),
    ("escape_unknown", b"a: \"bad \\q escape\"\n", "yaml: found unknown escape character"),
    ("escape_unknown_second_line", b"a: \"x\n  \\q\"\n", "yaml: line 2: found unknown escape character"),
    ("escape_hex_short", b"a: \"\\x4\"\n", "yaml: did not find expected hexdecimal number"),
    ("escape_surrogate", b"a: \"\\uD800\"\n", "yaml: found invalid Unicode character escape code"),
    ("escape_beyond_unicode", b"a: \"\\U0011FFFF\"\n", "yaml: found invalid Unicode character escape code"),
    ("block_scalar_zero_indent", b"a: >0\n x\n", "yaml: found an indentation indicator equal to 0"),
    ("block_scalar_bad_header", b"a: |x\n", "yaml: did not find expected comment or line break"),
    ("anchor_without_name", b"a: & x\n", "yaml: did not find expected alphabetic or numeric character"),
    ("alias_without_name", b"a: *\n", "yaml: did not find expected alphabetic or numeric character"),
    ("alias_undefined", b"a: *undefined\n", "yaml: unknown anchor 'undefined' referenced"),
    ("alias_undefined_in_sequence", b"a:\n  - x\n  - *zz\n", "yaml: unknown anchor 'zz' referenced"),
    ("alias_before_anchor", b"a: *b\nb: &b 1\n", "yaml: unknown anchor 'b' referenced"),
    ("alias_recursive", b"- &a [*a]\n", "yaml: anchor 'a' value contains itself"),
    ("merge_of_undefined_alias", b"<<: *x\n", "yaml: unknown anchor 'x' referenced"),
    ("tag_handle_undefined", b"a: !foo!bar x\n", "yaml: found undefined tag handle"),
    ("tag_verbatim_unclosed", b"a: !<foo 1\n", "yaml: did not find the expected '>'"),
    ("tag_int_on_word", b"a: !!int foo\n", "yaml: cannot decode !!str `foo` as a !!int"),
    ("tag_int_on_float", b"apiVersion: v1\nkind: Widget\nspec:\n  a: !!int 1.5\n", "yaml: cannot decode !!float `1.5` as a !!int"),
    ("tag_bool_on_word", b"a: !!bool maybe\n", "yaml: cannot decode !!str `maybe` as a !!bool"),
    ("tag_binary_invalid", b"a: !!binary zz\n", "yaml: !!binary value contains invalid base64 data"),
    ("directive_yaml_twice", b"%YAML 1.1\n%YAML 1.1\n---\na: 1\n", "yaml: line 1: found duplicate %YAML directive"),
    ("directive_yaml_major_2", b"%YAML 2.0\n---\na: 1\n", "yaml: found incompatible YAML document"),
    ("directive_tag_twice", b"%TAG ! tag:a,2000:\n%TAG ! tag:b,2000:\n---\na: 1\n", "yaml: line 1: found duplicate %TAG directive"),
    ("directive_trailing_text", b"%YAML 1.1 x\n---\na: 1\n", "yaml: did not find expected comment or line break"),
    ("character_at_sign", b"a: @foo\n", "yaml: found character that cannot start any token"),
    ("character_backtick", b"a: `cmd`\n", "yaml: found character that cannot start any token"),
    ("control_nul", b"a: \x00\n", "yaml: control characters are not allowed"),
    ("control_bell", b"a: \x07\n", "yaml: control characters are not allowed"),
    ("control_delete_in_quotes", b"a: \"\x7f\"\n", "yaml: control characters are not allowed"),
    ("control_c1", b"a: \xc2\x80\n", "yaml: control characters are not allowed"),
    ("noncharacter_fffe", b"a: \xef\xbf\xbe\n", "yaml: control characters are not allowed"),
    ("utf8_invalid_leading", b"a: \xff\n", "yaml: invalid leading UTF-8 octet"),
    ("utf8_invalid_trailing", b"a: \xc3(\n", "yaml: invalid trailing UTF-8 octet"),
    ("utf8_incomplete", b"a: \xe2\x82", "yaml: incomplete UTF-8 octet sequence"),
    ("utf8_overlong", b"a: \xc0\xaf\n", "yaml: invalid length of a UTF-8 sequence"),
    ("utf8_surrogate", b"a: \xed\xa0\x80\n", "yaml: invalid Unicode character"),
    ("float_nan", b"a: .nan\n", "json: unsupported value: NaN"),
    ("float_infinity", b".inf: 1\nb: .inf\n", "json: unsupported value: +Inf"),
    ("float_negative_infinity", b"a: -.inf\n", "json: unsupported value: -Inf"),
    ("crlf_unclosed", b"a: 1\r\nb: [\r\n", "yaml: line 2: did not find expected node content"),
    ("cr_unclosed", b"a: 1\rb: [\r", "yaml: line 2: did not find expected node content"),
];

#[test]
fn decode_bad_yaml_worded_as_go_yaml() {
    for (name, body, expected) in GO_YAML_ERRORS {
        assert_eq!(
            decoded(body).as_ref().map_err(String::as_str),
            Err(*expected),
            "{name}"
        );
    }
}

#[test]
fn decode_long_simple_key_worded_as_go_yaml() {
    let body = format!("{}: 1\n", "a".repeat(1100));
    let expected = "yaml: mapping values are not allowed in this context";
    assert_eq!(decoded(body.as_bytes()), Err(expected.to_string()));
}

#[test]
fn decode_go_yaml_stops_after_first_node_or_document() {
    let cases: &[(&str, &str, Value)] = &[
        (
            "second document ignored",
            "a: 1\n---\nb: 2\n",
            json!({"a": 1}),
        ),
        (
            "broken second document ignored",
            "a: 1\n---\nb: [\n",
            json!({"a": 1}),
        ),
        (
            "third document ignored",
            "a: 1\n---\nb: 2\n---\nc: [\n",
            json!({"a": 1}),
        ),
        (
            "document end then more",
            "a: 1\n...\nb: 2\n",
            json!({"a": 1}),
        ),
        ("empty first document", "---\n--- a: [\n", Value::Null),
        ("brace after root mapping", "{a: 1}}", json!({"a": 1})),
        ("bracket after root sequence", "[1, 2]]", json!([1, 2])),
    ];
    for (name, body, expected) in cases {
        assert_eq!(decoded(body.as_bytes()).as_ref(), Ok(expected), "{name}");
    }
}

#[test]
fn decode_non_object_documents_are_values() {
    let cases: &[(&str, Value)] = &[
        ("[1, 2]", json!([1, 2])),
        ("5", json!(5)),
        ("\"text\"", json!("text")),
        ("true", json!(true)),
        ("- a\n - b\n", json!(["a - b"])),
    ];
    for (body, expected) in cases {
        assert_eq!(decoded(body.as_bytes()).as_ref(), Ok(expected), "{body}");
    }
}

/// Where serde-saphyr and libyaml disagree on whether a body is an error at all, or
/// serde-saphyr fails differently: `(name, body, go-yaml, ours)`; ours is pinned so a change
/// shows up here.
#[rustfmt::skip]
const KNOWN_DIFFERENCES: &[(&str, &[u8], &str, &str)] = &[
    ("directive_unknown", b"%FOO bar\n---\na: 1\n", "yaml: found unknown directive name", "ok"),
    ("directive_yaml_1_2", b"%YAML 1.2\n---\na: 1\n", "yaml: found incompatible YAML document", "ok"),
    ("escape_surrogate_pair", b"a: \"\\uD83D\\uDE00\"\n", "yaml: found invalid Unicode character escape code", "ok"),
    ("tab_after_dash", b"-\ta\n", "yaml: found character that cannot start any token", "ok"),
    ("line_separator_breaks_line", "a: \u{2028}b\n".as_bytes(), "yaml: line 3: could not find expected ':'", "ok"),
    ("document_end_first", b"...\na: 1\n", "yaml: did not find expected node content", "ok"),
    ("quoted_continuation_dedented", b"a: \"x\nb\"\n", "ok", "yaml: line 3: found unexpected end of stream"),
    ("bom_inside_document", b"a: 1\n\xef\xbb\xbfb: 2\n", "ok", "yaml: line 2: a BOM must not appear inside a document"),
    ("tag_str_on_sequence", b"a: !!str [1]\n", "ok", "yaml: unsupported tag `!!str` at line 1, column 10"),
    ("tag_map_on_scalar", b"a: !!map x\n", "ok", "yaml: unsupported tag `!!map` at line 1, column 10"),
    ("sequence_as_key", b"[1]: 2\n", "yaml: invalid map key: []interface {}{1}", "yaml: expected string scalar at line 1, column 1"),
    ("utf16_bom", b"\xfe\xff\x00a", "ok (UTF-16 string \"a\")", "yaml: invalid leading UTF-8 octet"),
    ("tab_in_folded_scalar", b"a:\n  x: >\n  \tline\n", "yaml: line 3: found a tab character where an indentation space is expected", "yaml: line 2: did not find expected key"),
];

#[test]
fn decode_known_differences_pinned() {
    for (name, body, go_yaml, ours) in KNOWN_DIFFERENCES {
        let got = match decoded(body) {
            Ok(_) => "ok".to_string(),
            Err(e) => e,
        };
        assert_ne!(
            got, *go_yaml,
            "{name} now matches go-yaml: move it to GO_YAML_ERRORS"
        );
        assert_eq!(got, *ours, "{name}");
    }
}
