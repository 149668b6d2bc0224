//! Schema-driven JSON values: conversion per schema shape, object field access with
//! kube's texts, and kube's `set` / `map` list equality.

use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::cel::decl::DeclType;
use crate::cel::eval::{json::try_from_json, ops};
use crate::schema::Schema;

fn decl(schema: serde_json::Value) -> Arc<DeclType> {
    DeclType::from_schema(&Schema::parse(&schema), false, "self").unwrap()
}

#[test]
fn from_json_by_schema_shape() {
    let cases = vec![
        (json!({"type": "integer"}), json!(3), "3"),
        (json!({"type": "number"}), json!(3), "3.0"),
        (
            json!({"type": "integer"}),
            json!(1.5),
            "error: invalid data, expected int, got float64",
        ),
        (
            json!({"type": "string", "format": "byte"}),
            json!("aGk="),
            "bytes",
        ),
        (
            json!({"type": "string", "format": "duration"}),
            json!("3 days"),
            "google.protobuf.Duration",
        ),
        (
            json!({"type": "string", "format": "duration"}),
            json!("soon"),
            "error: Invalid duration soon: unable to parse soon as duration",
        ),
        (
            json!({"type": "string", "format": "date-time"}),
            json!("2024-01-02T03:04:05Z"),
            "google.protobuf.Timestamp",
        ),
        (
            json!({"type": "string", "format": "date"}),
            json!("2024-01-02"),
            "google.protobuf.Timestamp",
        ),
        (
            json!({"x-kubernetes-int-or-string": true}),
            json!("50%"),
            "\"50%\"",
        ),
        (json!({"x-kubernetes-int-or-string": true}), json!(5), "5"),
        (
            json!({"type": "array", "items": {"type": "integer"}}),
            json!([1, 2]),
            "list(2)",
        ),
        (
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"a": "b"}),
            "map",
        ),
        (json!({"type": "boolean"}), json!(null), "null"),
    ];
    for (i, (schema, data, want)) in cases.into_iter().enumerate() {
        let d = decl(schema);
        assert_eq!(show(&try_from_json(&data, &d)), want, "case {i}");
    }
}

#[test]
fn object_fields_escaped_and_missing_key_error() {
    let d = decl(
        json!({"type": "object", "properties": {"a-b": {"type": "integer"}, "c": {"type": "integer"}}}),
    );
    let data = json!({"a-b": 1, "c": null, "undeclared": 2});
    let v = try_from_json(&data, &d).unwrap();
    let (r, _) = run(
        sel(id("self"), "a__dash__b"),
        &["self"],
        std::slice::from_ref(&v),
    );
    assert_eq!(show(&r), "1");
    let (r, _) = run(sel(id("self"), "c"), &["self"], std::slice::from_ref(&v));
    assert_eq!(show(&r), "error: no such key: c");
    let (r, _) = run(has(id("self"), "c"), &["self"], std::slice::from_ref(&v));
    assert_eq!(show(&r), "false");
    let (r, _) = run(call1("size", "size_map", vec![id("self")]), &["self"], &[v]);
    assert_eq!(show(&r), "3");
}

#[test]
fn set_list_equality_ignores_order_on_the_left_only() {
    let d = decl(
        json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}),
    );
    let data = json!(["a", "b"]);
    let v = try_from_json(&data, &d).unwrap();
    let other = Value::list(vec![ops::string("b"), ops::string("a")]);
    assert_eq!(ops::equal(&v, &other), Ok(true));
    assert_eq!(ops::equal(&other, &v), Ok(false));
}

#[test]
fn map_list_equality_by_keys() {
    let d = decl(
        json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
        "items": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"}}}}),
    );
    let a = json!([{"k": "x", "v": 1}, {"k": "y", "v": 2}]);
    let b = json!([{"k": "y", "v": 2}, {"k": "x", "v": 1}]);
    let c = json!([{"k": "y", "v": 3}, {"k": "x", "v": 1}]);
    let (va, vb, vc) = (
        try_from_json(&a, &d).unwrap(),
        try_from_json(&b, &d).unwrap(),
        try_from_json(&c, &d).unwrap(),
    );
    assert_eq!(ops::equal(&va, &vb), Ok(true));
    assert_eq!(ops::equal(&va, &vc), Ok(false));
}

#[test]
fn set_list_concatenation_keeps_unique() {
    let d = decl(
        json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}}),
    );
    let data = json!([1, 2]);
    let v = try_from_json(&data, &d).unwrap();
    let e = call1(
        "_+_",
        "add_list",
        vec![id("self"), list(vec![int(2), int(3)])],
    );
    let (r, _) = run(e, &["self"], &[v]);
    assert_eq!(show(&r), "list(3)");
}
