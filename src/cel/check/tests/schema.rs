//! Expressions over schema-derived `self` (apiextensions `compilation_test.go`): typed
//! properties, maps, lists, int-or-string, formats, escaped and reserved names, the
//! optional `oldSelf`, and the schema nodes recorded for the cost estimator.

use serde_json::{Value, json};

use super::builder::{B, outcome, run, schema_decl, vars};
use crate::cel::ast::{Expr, Literal};
use crate::cel::check::Var;
use crate::cel::types::Type;

type Build = fn(&mut B) -> Expr;

fn object() -> Value {
    json!({
        "type": "object",
        "properties": {
            "minReplicas": {"type": "integer"},
            "maxReplicas": {"type": "integer"},
            "ratio": {"type": "number"},
            "name": {"type": "string"},
            "data": {"type": "string", "format": "byte"},
            "ts": {"type": "string", "format": "date-time"},
            "ttl": {"type": "string", "format": "duration"},
            "port": {"x-kubernetes-int-or-string": true},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "items": {"type": "array", "items": {
                "type": "object", "properties": {"name": {"type": "string"}}}},
            "if": {"type": "integer"},
            "namespace": {"type": "string"},
            "x-y": {"type": "string"},
        }
    })
}

fn cmp(b: &mut B, op: &str, at: u32, lhs: Expr, rhs: Expr) -> Expr {
    b.call(at, op, vec![lhs, rhs])
}

#[test]
fn check_schema_rules_result_type() {
    let cases: Vec<(&str, Build, &str)> = vec![
        (
            "self.minReplicas < self.maxReplicas",
            |b| {
                let (l, r) = (
                    b.path("self", &[(4, "minReplicas")]),
                    b.path("self", &[(23, "maxReplicas")]),
                );
                cmp(b, "_<_", 17, l, r)
            },
            "bool",
        ),
        (
            "self.ratio > 1",
            |b| {
                let l = b.path("self", &[(4, "ratio")]);
                let r = b.int(13, 1);
                cmp(b, "_>_", 11, l, r)
            },
            "bool",
        ),
        (
            "string(self.data)",
            |b| {
                let d = b.path("self", &[(11, "data")]);
                b.call(6, "string", vec![d])
            },
            "string",
        ),
        (
            "self.ts",
            |b| b.path("self", &[(4, "ts")]),
            "google.protobuf.Timestamp",
        ),
        (
            "self.ttl",
            |b| b.path("self", &[(4, "ttl")]),
            "google.protobuf.Duration",
        ),
        ("self.port", |b| b.path("self", &[(4, "port")]), "dyn"),
        (
            "self.labels.app",
            |b| b.path("self", &[(4, "labels"), (11, "app")]),
            "string",
        ),
        (
            "self.labels['app']",
            |b| {
                let l = b.path("self", &[(4, "labels")]);
                let k = b.str(12, "app");
                cmp(b, "_[_]", 11, l, k)
            },
            "string",
        ),
        (
            "has(self.name)",
            |b| {
                let s = b.ident(4, "self");
                b.has(8, s, "name")
            },
            "bool",
        ),
        (
            "self.items[0].name",
            |b| {
                let l = b.path("self", &[(4, "items")]);
                let z = b.int(11, 0);
                let i = cmp(b, "_[_]", 10, l, z);
                b.sel(13, i, "name")
            },
            "string",
        ),
        (
            "self.items.all(x, x.name != '')",
            |b| {
                let l = b.path("self", &[(4, "items")]);
                let x = b.ident(18, "x");
                let n = b.sel(19, x, "name");
                let e = b.str(28, "");
                let p = cmp(b, "_!=_", 25, n, e);
                b.all(14, l, "x", p)
            },
            "bool",
        ),
        ("self.if", |b| b.path("self", &[(4, "if")]), "int"),
        (
            "self.namespace",
            |b| b.path("self", &[(4, "namespace")]),
            "string",
        ),
        (
            "self.__namespace__",
            |b| b.path("self", &[(4, "__namespace__")]),
            "string",
        ),
        (
            "self.x__dash__y",
            |b| b.path("self", &[(4, "x__dash__y")]),
            "string",
        ),
        (
            "self == oldSelf",
            |b| {
                let (l, r) = (b.ident(0, "self"), b.ident(8, "oldSelf"));
                cmp(b, "_==_", 5, l, r)
            },
            "bool",
        ),
        (
            "self.ts < timestamp('2020-01-01T00:00:00Z')",
            |b| {
                let l = b.path("self", &[(4, "ts")]);
                let s = b.str(20, "2020-01-01T00:00:00Z");
                let r = b.call(19, "timestamp", vec![s]);
                cmp(b, "_<_", 8, l, r)
            },
            "bool",
        ),
        (
            "self.port + 1",
            |b| {
                let l = b.path("self", &[(4, "port")]);
                let r = b.int(12, 1);
                cmp(b, "_+_", 10, l, r)
            },
            "int",
        ),
    ];
    let vars = vars(object());
    for (text, build, want) in cases {
        let mut b = B::new();
        let e = build(&mut b);
        assert_eq!(outcome(text, &b, e, &vars), want, "{text}");
    }
}

#[test]
fn check_schema_rules_cel_go_error() {
    let cases: Vec<(&str, Build, &str)> = vec![
        (
            "self.foo",
            |b| b.path("self", &[(4, "foo")]),
            "ERROR: <input>:1:5: undefined field 'foo'\n | self.foo\n | ....^",
        ),
        (
            "self.x-y",
            |b| {
                let l = b.path("self", &[(4, "x")]);
                let y = b.ident(7, "y");
                cmp(b, "_-_", 6, l, y)
            },
            "ERROR: <input>:1:5: undefined field 'x'\n | self.x-y\n | ....^\n\
          ERROR: <input>:1:8: undeclared reference to 'y' (in container '')\n | self.x-y\n | .......^",
        ),
        (
            "self == 10",
            |b| {
                let s = b.ident(0, "self");
                let t = b.int(8, 10);
                cmp(b, "_==_", 5, s, t)
            },
            "ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(selfType0, int)'\n | self == 10\n | .....^",
        ),
        (
            "self.minReplicas + self.name",
            |b| {
                let (l, r) = (
                    b.path("self", &[(4, "minReplicas")]),
                    b.path("self", &[(23, "name")]),
                );
                cmp(b, "_+_", 17, l, r)
            },
            "ERROR: <input>:1:18: found no matching overload for '_+_' applied to '(int, string)'\n | self.minReplicas + self.name\n | .................^",
        ),
        (
            "self.name.foo",
            |b| b.path("self", &[(4, "name"), (9, "foo")]),
            "ERROR: <input>:1:10: type 'string' does not support field selection\n | self.name.foo\n | .........^",
        ),
    ];
    let vars = vars(object());
    for (text, build, want) in cases {
        let mut b = B::new();
        let e = build(&mut b);
        assert_eq!(outcome(text, &b, e, &vars), want, "{text}");
    }
}

#[test]
fn check_size_of_number_no_matching_overload() {
    let vars = vars(json!({"type": "number"}));
    let mut b = B::new();
    let s = b.ident(5, "self");
    let e = b.call(4, "size", vec![s]);
    let want = "ERROR: <input>:1:5: found no matching overload for 'size' applied to '(double)'\n | size(self)\n | ....^";
    assert_eq!(outcome("size(self)", &b, e, &vars), want);
}

/// `oldSelf` of an `optionalOldSelf` rule: `optional_type(self)`, no schema node.
fn optional_old_self() -> Vec<Var> {
    let decl = schema_decl(json!({"type": "object", "properties": {
        "o": {"type": "object", "properties": {"i": {"type": "integer"}, "s": {"type": "string"}}}}}));
    vec![
        Var {
            name: "self".into(),
            ty: decl.cel_type(),
            decl: Some(decl.clone()),
        },
        Var {
            name: "oldSelf".into(),
            ty: Type::optional(decl.cel_type()),
            decl: None,
        },
    ]
}

#[test]
fn check_optional_old_self_rules() {
    let cases: Vec<(&str, Build, &str)> = vec![
        (
            "oldSelf.o.i.value()",
            |b| {
                let p = b.path("oldSelf", &[(7, "o"), (9, "i")]);
                b.member(17, p, "value", vec![])
            },
            "int",
        ),
        (
            "oldSelf.o.i.orValue(1)",
            |b| {
                let p = b.path("oldSelf", &[(7, "o"), (9, "i")]);
                let one = b.int(20, 1);
                b.member(19, p, "orValue", vec![one])
            },
            "int",
        ),
        (
            "oldSelf.hasValue()",
            |b| {
                let o = b.ident(0, "oldSelf");
                b.member(16, o, "hasValue", vec![])
            },
            "bool",
        ),
        (
            "self.o.i >= oldSelf.o.i",
            |b| {
                let (l, r) = (
                    b.path("self", &[(4, "o"), (6, "i")]),
                    b.path("oldSelf", &[(19, "o"), (21, "i")]),
                );
                cmp(b, "_>=_", 9, l, r)
            },
            "ERROR: <input>:1:10: found no matching overload for '_>=_' applied to '(int, optional_type(int))'\n | self.o.i >= oldSelf.o.i\n | .........^",
        ),
        (
            "self.o.i >= oldSelf.o.s.orValue(0)",
            |b| {
                let l = b.path("self", &[(4, "o"), (6, "i")]);
                let r = b.path("oldSelf", &[(19, "o"), (21, "s")]);
                let z = b.lit(32, Literal::Int(0));
                let r = b.member(31, r, "orValue", vec![z]);
                cmp(b, "_>=_", 9, l, r)
            },
            "ERROR: <input>:1:32: found no matching overload for 'orValue' applied to 'optional_type(string).(int)'\n | self.o.i >= oldSelf.o.s.orValue(0)\n | ...............................^",
        ),
    ];
    let vars = optional_old_self();
    for (text, build, want) in cases {
        let mut b = B::new();
        let e = build(&mut b);
        assert_eq!(outcome(text, &b, e, &vars), want, "{text}");
    }
}

#[test]
fn check_schema_values_recorded_for_cost() {
    // self.items.all(x, x.name == self.labels.app) && has(self.name)
    let mut b = B::new();
    let items = b.path("self", &[(4, "items")]);
    let (items_id, self_id) = (items.id, items.id - 1);
    let x = b.ident(18, "x");
    let x_id = x.id;
    let name = b.sel(19, x, "name");
    let name_id = name.id;
    let app = b.path("self", &[(4, "labels"), (11, "app")]);
    let app_id = app.id;
    let pred = cmp(&mut b, "_==_", 25, name, app);
    let all = b.all(14, items, "x", pred);
    let s = b.ident(4, "self");
    let has = b.has(8, s, "name");
    let has_id = has.id;
    let e = cmp(&mut b, "_&&_", 40, all, has);
    let checked = run("rule", &b, e, &vars(object())).expect("checks");
    let decl_name = |id| checked.decls.get(&id).map(|d| d.name.clone());
    assert_eq!(decl_name(self_id).as_deref(), Some("selfType0"));
    assert_eq!(decl_name(items_id).as_deref(), Some("list"));
    // Objects inside lists are named as kube's `MaybeAssignTypeName` names them.
    assert_eq!(decl_name(x_id).as_deref(), Some("selfType0.items.@idx"));
    assert_eq!(decl_name(name_id).as_deref(), Some("string"));
    // A map's values are not fields: kube's estimator finds no node for `labels.app`.
    assert_eq!(decl_name(app_id), None);
    assert_eq!(decl_name(has_id), None);
}
