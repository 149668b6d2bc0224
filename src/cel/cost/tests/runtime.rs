//! Run-time call costs against the numbers cel-go's and kube's trackers give.

use std::any::Any;
use std::rc::Rc;

use crate::cel::cost::{actual_size, call_cost};
use crate::cel::value::{Opaque, Value};

fn s(text: &str) -> Value<'static> {
    Value::string(text)
}

fn ints(n: i64) -> Value<'static> {
    Value::list((0..n).map(Value::Int).collect())
}

/// A library value with a size (IPs, CIDRs) or a regex size (named formats).
#[derive(Debug)]
struct Lib {
    name: &'static str,
    size: Option<i64>,
    regex: Option<u64>,
}

impl Opaque for Lib {
    fn type_name(&self) -> &'static str {
        self.name
    }
    fn equals(&self, _: &dyn Opaque) -> bool {
        false
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn size(&self) -> Option<i64> {
        self.size
    }
    fn max_regex_size(&self) -> Option<u64> {
        self.regex
    }
}

fn lib(name: &'static str, size: Option<i64>, regex: Option<u64>) -> Value<'static> {
    Value::Opaque(Rc::new(Lib { name, size, regex }))
}

#[test]
fn call_cost_of_standard_and_library_calls_matches_cel_go_and_kube() {
    let cidr16 = || lib("net.CIDR", Some(2), None);
    let cases: Vec<(&str, &str, Vec<Value>, Value, u64)> = vec![
        // cel-go: ceil(size(arg) × 0.1).
        (
            "startsWith",
            "starts_with_string",
            vec![s("abcdefghijkl"), s("abcdefghijk")],
            Value::Bool(true),
            2,
        ),
        (
            "endsWith",
            "ends_with_string",
            vec![s("ab"), s("")],
            Value::Bool(true),
            0,
        ),
        // ceil((1 + 4) × 0.1) × ceil(3 × 0.25).
        (
            "matches",
            "matches_string",
            vec![s("abcd"), s("a.c")],
            Value::Bool(true),
            1,
        ),
        (
            "matches",
            "matches_string",
            vec![s(&"x".repeat(49)), s(&"y".repeat(20))],
            Value::Bool(true),
            25,
        ),
        // ceil(20 × 0.1) × ceil(10 × 0.1).
        (
            "contains",
            "contains_string",
            vec![s(&"a".repeat(20)), s(&"b".repeat(10))],
            Value::Bool(true),
            2,
        ),
        (
            "_==_",
            "equals",
            vec![s(&"a".repeat(30)), s(&"b".repeat(12))],
            Value::Bool(false),
            2,
        ),
        (
            "_==_",
            "equals",
            vec![Value::Int(1), Value::Int(2)],
            Value::Bool(false),
            1,
        ),
        (
            "_<_",
            "less_string",
            vec![s(""), s("abc")],
            Value::Bool(true),
            0,
        ),
        (
            "_+_",
            "add_string",
            vec![s(&"a".repeat(15)), s(&"b".repeat(6))],
            s(""),
            3,
        ),
        ("_+_", "add_list", vec![ints(3), ints(4)], ints(7), 1),
        (
            "@in",
            "in_list",
            vec![Value::Int(1), ints(7)],
            Value::Bool(true),
            7,
        ),
        ("size", "size_string", vec![s("abc")], Value::Int(3), 1),
        // Code points, not bytes.
        (
            "bytes",
            "string_to_bytes",
            vec![s(&"é".repeat(11))],
            Value::Bool(true),
            2,
        ),
        // kube: string traversals.
        (
            "lowerAscii",
            "string_lower_ascii",
            vec![s("ABCDEFGHIJ abcdefghij")],
            s(""),
            3,
        ),
        (
            "substring",
            "string_substring_int",
            vec![s("abc 123 def 123"), Value::Int(5)],
            s(""),
            2,
        ),
        (
            "replace",
            "string_replace_string_string",
            vec![s("abc 123 def 123"), s("1"), s("2")],
            s(""),
            3,
        ),
        // kube: traversal plus the result, 2 × 0.1 per character.
        (
            "split",
            "string_split_string",
            vec![s(&"a".repeat(16)), s(" ")],
            ints(0),
            4,
        ),
        (
            "join",
            "list_join_string",
            vec![ints(0), s(" ")],
            s(&"x".repeat(24)),
            5,
        ),
        (
            "find",
            "string_find_string",
            vec![s("abc 123 def 123"), s("123")],
            s(""),
            2,
        ),
        (
            "findAll",
            "string_find_all_string",
            vec![s(&"a".repeat(39)), s(&"b".repeat(9))],
            ints(0),
            12,
        ),
        (
            "quantity",
            "string_to_quantity",
            vec![s("12Mi")],
            Value::Null,
            1,
        ),
        (
            "isSemver",
            "is_semver_string",
            vec![s("1234.56789012345.67890123456789")],
            Value::Bool(true),
            4,
        ),
        (
            "url",
            "string_to_url",
            vec![s("https:://kubernetes.io/")],
            Value::Null,
            3,
        ),
        (
            "getHost",
            "url_get_host",
            vec![lib("kubernetes.URL", None, None)],
            s(""),
            1,
        ),
        (
            "ip",
            "string_to_ip",
            vec![s("2001:db8:3333:4444:5555:6666:7777:8888")],
            Value::Null,
            4,
        ),
        ("ip", "cidr_ip", vec![cidr16()], Value::Null, 1),
        (
            "ip.isCanonical",
            "ip_is_canonical",
            vec![s("2001:db8:3333:4444:5555:6666:7777:8888")],
            Value::Bool(true),
            8,
        ),
        // ceil(4 × 0.1) for the prefix bytes.
        (
            "containsIP",
            "cidr_contains_ip_ip",
            vec![cidr16(), lib("net.IP", Some(4), None)],
            Value::Bool(true),
            1,
        ),
        (
            "containsIP",
            "cidr_contains_ip_string",
            vec![cidr16(), s("192.0.0.1")],
            Value::Bool(true),
            2,
        ),
        // ceil(0.4) + ceil(0.2) + 1 + ceil(1.2).
        (
            "containsCIDR",
            "cidr_contains_cidr_string",
            vec![cidr16(), s("192.0.0.0/30")],
            Value::Bool(true),
            5,
        ),
        (
            "_==_",
            "equals",
            vec![lib("net.IP", Some(16), None), lib("net.IP", Some(16), None)],
            Value::Bool(true),
            1,
        ),
        // ceil(8 × 0.1) × ceil(60 × 0.25).
        (
            "validate",
            "format_validate",
            vec![lib("kubernetes.NamedFormat", None, Some(60)), s("my-name")],
            Value::Null,
            15,
        ),
        (
            "validate",
            "format_validate",
            vec![lib("kubernetes.NamedFormat", None, Some(30)), s("my-name")],
            Value::Null,
            8,
        ),
        (
            "format.named",
            "format_named",
            vec![s("dns1123Label")],
            Value::Null,
            1,
        ),
        // kube lists: traversal of the list (1 per scalar, 0.1 per string byte, truncated).
        ("sum", "list_int_sum", vec![ints(5)], Value::Int(10), 5),
        (
            "isSorted",
            "list_string_is_sorted",
            vec![Value::list(vec![s(&"0".repeat(12)); 5])],
            Value::Bool(true),
            5,
        ),
        (
            "indexOf",
            "string_index_of_string",
            vec![s(&"0".repeat(50)), s("123")],
            Value::Int(1),
            5,
        ),
        // ext.Sets: 1 + |a| × |b| × factor.
        (
            "sets.contains",
            "list_sets_contains_list",
            vec![ints(4), ints(2)],
            Value::Bool(true),
            9,
        ),
        (
            "sets.equivalent",
            "list_sets_equivalent_list",
            vec![ints(3), ints(3)],
            Value::Bool(true),
            19,
        ),
        (
            "sets.intersects",
            "list_sets_intersects_list",
            vec![ints(0), ints(0)],
            Value::Bool(false),
            1,
        ),
        // ext.Lists v3: result size + 1 + 10; distinct and sort O(n²) × 2 (2.1 for strings).
        (
            "slice",
            "list_slice",
            vec![ints(5), Value::Int(1), Value::Int(3)],
            ints(2),
            13,
        ),
        (
            "lists.range",
            "lists_range",
            vec![Value::Int(4)],
            ints(4),
            15,
        ),
        ("distinct", "list_distinct", vec![ints(3)], ints(3), 29),
        (
            "sort",
            "list_string_sort",
            vec![Value::list(vec![s("b"), s("a")])],
            ints(2),
            19,
        ),
        ("sort", "list_int_sort", vec![ints(0)], ints(0), 11),
        (
            "@sortByAssociatedKeys",
            "list_int_sortByAssociatedKeys",
            vec![ints(2), ints(3)],
            ints(2),
            29,
        ),
        (
            "flatten",
            "list_flatten_int",
            vec![ints(4), Value::Int(2)],
            ints(4),
            19,
        ),
        ("flatten", "list_flatten", vec![ints(4)], ints(4), 15),
    ];
    for (function, overload, args, result, want) in cases {
        let got = call_cost(function, overload, &args, &result);
        assert_eq!(got, want, "{function} ({overload})");
    }
}

#[test]
fn actual_size_of_values_counts_code_points_entries_and_optionals() {
    let cases: Vec<(Value, u64)> = vec![
        (s("héllo"), 5),
        (Value::Bytes(Rc::from(&b"h\xc3\xa9"[..])), 3),
        (ints(4), 4),
        (Value::Int(12345), 1),
        (Value::Optional(Some(Rc::new(s("abc")))), 3),
        (Value::Optional(None), 1),
        (lib("net.IP", Some(16), None), 16),
        (lib("kubernetes.Quantity", None, None), 1),
    ];
    for (v, want) in cases {
        assert_eq!(actual_size(&v), want, "{v:?}");
    }
}
