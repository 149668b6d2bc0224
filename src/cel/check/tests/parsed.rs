//! Expressions through the real parser: accepted ones with their result type and
//! rejected ones with cel-go's full error text (cel-go `checker_test.go`, apiextensions
//! `compilation_test.go`).

use serde_json::json;

use crate::cel::check::{Var, check};
use crate::cel::parse::parse;

fn outcome(text: &str, vars: &[Var]) -> String {
    let ast = match parse(text) {
        Ok(ast) => ast,
        Err(e) => return format!("parse error: {e}"),
    };
    match check(ast, &crate::cel::env::stored(), vars) {
        Ok(c) => c.type_of(c.ast.expr.id).to_string(),
        Err(e) => e,
    }
}

fn schema_vars() -> Vec<Var> {
    super::builder::vars(json!({
        "type": "object",
        "properties": {
            "replicas": {"type": "integer"},
            "name": {"type": "string", "maxLength": 10},
            "tags": {"type": "array", "items": {"type": "string"}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "port": {"x-kubernetes-int-or-string": true},
            "when": {"type": "string", "format": "date-time"},
            "namespace": {"type": "string"},
            "x-y": {"type": "integer"},
        }
    }))
}

#[test]
fn check_parsed_valid_expressions_result_type() {
    let cases = [
        ("1 + 2 * 3 - 4 / 5 % 6", "int"),
        ("1.0 < 2 && 2u <= 3 && 3 > 2.5", "bool"),
        ("'a' + 'b' == 'ab' || b'x' + b'y' == b'xy'", "bool"),
        ("[1, 2] + [3]", "list(int)"),
        ("{'a': [1]}", "map(string, list(int))"),
        ("[1, 2, 3].filter(x, x > 1)", "list(int)"),
        ("[1, 2, 3].exists_one(x, x > 1)", "bool"),
        ("{'a': 1}.exists(k, k == 'a')", "bool"),
        ("[1, 2].map(x, x > 1, x * 2)", "list(int)"),
        ("{'a': 1}.all(k, v, v > 0)", "bool"),
        ("[1, 2].exists(i, v, i < v)", "bool"),
        ("2 in [1, 2]", "bool"),
        ("'a' in {'a': 1}", "bool"),
        ("[].size() == 0", "bool"),
        ("int('1') + int(2.0) + int(3u)", "int"),
        ("double(1) + double('2.5')", "double"),
        ("string(1) + string(true) + string(b'x')", "string"),
        (
            "timestamp('2020-01-01T00:00:00Z') - duration('1h')",
            "google.protobuf.Timestamp",
        ),
        ("duration('1h').getMinutes()", "int"),
        ("type(1) == int && type('a') == string", "bool"),
        ("dyn([1])[0]", "dyn"),
        ("[optional.of(1), optional.none()].size()", "int"),
        ("optional.of(1).or(optional.none()).value()", "int"),
        ("optional.ofNonZeroValue('').hasValue()", "bool"),
        ("{'a': 1}[?'a'].orValue(0)", "int"),
        ("[1, 2].last().orValue(0)", "int"),
        ("!true ? -1 : -2", "int"),
    ];
    for (text, want) in cases {
        assert_eq!(outcome(text, &[]), want, "{text}");
    }
}

#[test]
fn check_parsed_schema_rules_result_type() {
    let cases = [
        ("self.replicas >= 0", "bool"),
        ("size(self.name) <= 10 && self.name.startsWith('a')", "bool"),
        ("self.tags.all(t, t.matches('^[a-z]+$'))", "bool"),
        ("self.tags.map(t, size(t))", "list(int)"),
        ("'app' in self.labels && self.labels['app'] != ''", "bool"),
        ("self.labels.all(k, k.endsWith('.io'))", "bool"),
        (
            "type(self.port) == int ? self.port > 0 : self.port.endsWith('%')",
            "bool",
        ),
        ("self.when < timestamp('2030-01-01T00:00:00Z')", "bool"),
        ("self.namespace == 'x' && self.__namespace__ == 'x'", "bool"),
        ("self.x__dash__y > 0", "bool"),
        ("has(self.name) && self.?name.orValue('') != ''", "bool"),
        ("self.tags[?0].hasValue()", "bool"),
        ("oldSelf.replicas <= self.replicas", "bool"),
    ];
    let vars = schema_vars();
    for (text, want) in cases {
        assert_eq!(outcome(text, &vars), want, "{text}");
    }
}

#[test]
fn check_parsed_invalid_expressions_cel_go_error() {
    let cases = [
        (
            "size(self.replicas) > 0",
            "ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'\n | size(self.replicas) > 0\n | ....^",
        ),
        (
            "self.replicas.foo",
            "ERROR: <input>:1:14: type 'int' does not support field selection\n | self.replicas.foo\n | .............^",
        ),
        (
            "self.nope == 1",
            "ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^",
        ),
        (
            "self.tags.all(t, t)",
            "ERROR: <input>:1:18: expected type 'bool' but found 'string'\n | self.tags.all(t, t)\n | .................^",
        ),
        (
            "true ? 1 : 'a'",
            "ERROR: <input>:1:6: found no matching overload for '_?_:_' applied to '(bool, int, string)'\n | true ? 1 : 'a'\n | .....^",
        ),
        (
            "[1, 2.0]",
            "ERROR: <input>:1:5: expected type 'int' but found 'double'\n | [1, 2.0]\n | ....^",
        ),
        (
            "self.replicas == 'a'",
            "ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, string)'\n | self.replicas == 'a'\n | ..............^",
        ),
        (
            "math.greatest(1, 2)",
            "ERROR: <input>:1:1: undeclared reference to 'math' (in container '')\n | math.greatest(1, 2)\n | ^\n\
             ERROR: <input>:1:14: undeclared reference to 'greatest' (in container '')\n | math.greatest(1, 2)\n | .............^",
        ),
    ];
    let vars = schema_vars();
    for (text, want) in cases {
        assert_eq!(outcome(text, &vars), want, "{text}");
    }
}
