//! Table tests for the convertor and the Table document.

use serde_json::{Value, json};

use super::*;
use crate::request::negotiate::MetaVersion;

fn now() -> jiff::Timestamp {
    "2024-05-10T12:00:00Z".parse().unwrap()
}

fn column(name: &str, type_: &str, json_path: &str) -> PrinterColumn {
    PrinterColumn {
        name: name.to_owned(),
        type_: type_.to_owned(),
        json_path: json_path.to_owned(),
        ..PrinterColumn::default()
    }
}

fn crontab() -> Value {
    json!({
        "apiVersion": "stable.example.com/v1",
        "kind": "CronTab",
        "metadata": {
            "name": "my-cron",
            "namespace": "default",
            "uid": "u-1",
            "resourceVersion": "42",
            "generation": 3,
            "creationTimestamp": "2024-05-10T11:55:00Z",
            "labels": {"app": "cron", "empty": null},
            "finalizers": ["example.com/f"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p",
                                 "uid": "u-2", "controller": true, "extra": 1}]
        },
        "spec": {
            "cronSpec": "* * * * */5",
            "replicas": 3,
            "ratio": 2.5,
            "whole": 4.0,
            "suspend": true,
            "image": {"name": "busybox", "tag": "<latest>"},
            "when": "2024-05-08T12:00:00Z",
            "bad": "not a date",
            "zero": "",
            "nothing": null
        },
        "status": {"conditions": [
            {"type": "Progressing", "status": "False"},
            {"type": "Ready", "status": "True"}
        ]}
    })
}

#[test]
fn cells_each_column_type_converts_like_upstream() {
    let object = crontab();
    let cases: &[(&str, &str, &str, Value)] = &[
        ("string", "string", ".spec.cronSpec", json!("* * * * */5")),
        ("string of number", "string", ".spec.replicas", json!("3")),
        ("string of float", "string", ".spec.ratio", json!("2.5")),
        ("string of bool", "string", ".spec.suspend", json!("true")),
        (
            "string of map",
            "string",
            ".spec.image",
            json!(r#"{"name":"busybox","tag":"\u003clatest\u003e"}"#),
        ),
        (
            "string of null",
            "string",
            ".spec.nothing",
            json!("<no value>"),
        ),
        ("string missing", "string", ".spec.absent", Value::Null),
        (
            "condition filter",
            "string",
            r#".status.conditions[?(@.type=="Ready")].status"#,
            json!("True"),
        ),
        (
            "filter no match",
            "string",
            r#".status.conditions[?(@.type=="Gone")].status"#,
            Value::Null,
        ),
        ("integer", "integer", ".spec.replicas", json!(3)),
        (
            "integer from float truncates",
            "integer",
            ".spec.ratio",
            json!(2),
        ),
        (
            "integer of string",
            "integer",
            ".spec.cronSpec",
            Value::Null,
        ),
        ("integer missing", "integer", ".spec.absent", Value::Null),
        ("integer of null", "integer", ".spec.nothing", Value::Null),
        ("number", "number", ".spec.ratio", json!(2.5)),
        ("number from integer", "number", ".spec.replicas", json!(3)),
        ("number integral float", "number", ".spec.whole", json!(4)),
        ("number of bool", "number", ".spec.suspend", Value::Null),
        ("boolean", "boolean", ".spec.suspend", json!(true)),
        (
            "boolean of string",
            "boolean",
            ".spec.cronSpec",
            Value::Null,
        ),
        ("date", "date", ".spec.when", json!("2d")),
        ("date unparsable", "date", ".spec.bad", json!("<invalid>")),
        (
            "date empty is zero",
            "date",
            ".spec.zero",
            json!("<unknown>"),
        ),
        ("date of number", "date", ".spec.replicas", Value::Null),
        ("date missing", "date", ".spec.absent", Value::Null),
        ("unknown type", "object", ".spec.replicas", Value::Null),
        (
            "index out of range is null",
            "string",
            ".status.conditions[5].type",
            Value::Null,
        ),
    ];
    for (name, type_, path, want) in cases {
        let convertor = TableConvertor::new(&[column("C", type_, path)]).unwrap();
        let cells = convertor.cells(&object, now());
        assert_eq!(cells, vec![json!("my-cron"), want.clone()], "case {name}");
    }
}

#[test]
fn cells_missing_name_is_empty_string() {
    let convertor = TableConvertor::new(&[]).unwrap();
    let cells = convertor.cells(&json!({"metadata": {}}), now());
    assert_eq!(cells, vec![json!(""), Value::Null]);
}

#[test]
fn new_bad_json_path_names_the_column() {
    let columns = [
        column("Good", "string", ".spec.a"),
        column("Broken", "string", ".spec["),
    ];
    let error = TableConvertor::new(&columns).unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"unrecognized column definition ".spec[" in column "Broken": unterminated array"#
    );
    let (fallback, error) = TableConvertor::new_or_fallback(&columns);
    assert!(error.is_some());
    let names: Vec<Value> = fallback
        .column_definitions()
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("Name"), json!("Good")]);
}

#[test]
fn column_definitions_no_columns_is_name_and_age() {
    let convertor = TableConvertor::new(&[]).unwrap();
    assert_eq!(
        convertor.column_definitions(),
        json!([
            {"name": "Name", "type": "string", "format": "name",
             "description": NAME_DESCRIPTION, "priority": 0},
            {"name": "Age", "type": "date", "format": "",
             "description": CREATION_TIMESTAMP_DESCRIPTION, "priority": 0}
        ])
    );
    assert_eq!(
        convertor.cells(&crontab(), now()),
        vec![json!("my-cron"), json!("5m")]
    );
}

#[test]
fn column_definitions_declared_columns_have_no_age() {
    let mut spec = column("Spec", "string", ".spec.cronSpec");
    spec.priority = 1;
    spec.format = "byte".to_owned();
    let mut replicas = column("Replicas", "integer", ".spec.replicas");
    replicas.description = "How many".to_owned();
    let convertor = TableConvertor::new(&[spec, replicas]).unwrap();
    let defs = convertor.column_definitions();
    assert_eq!(defs.as_array().unwrap().len(), 3);
    assert_eq!(
        defs[1],
        json!({"name": "Spec", "type": "string", "format": "byte", "priority": 1,
               "description": "Custom resource definition column (in JSONPath format): .spec.cronSpec"})
    );
    assert_eq!(defs[2]["description"], json!("How many"));
}

#[test]
fn for_scale_columns_follow_declared_paths() {
    let cases: &[(&str, bool, bool, &[&str])] = &[
        ("both", true, true, &["Name", "Desired", "Available", "Age"]),
        ("spec only", true, false, &["Name", "Desired", "Age"]),
        ("none", false, false, &["Name", "Age"]),
    ];
    for (name, spec, status, want) in cases {
        let defs = TableConvertor::for_scale(*spec, *status).column_definitions();
        let names: Vec<&str> = defs
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, *want, "case {name}");
    }
}

#[test]
fn table_include_object_shapes_rows() {
    let convertor = TableConvertor::new(&[column("Spec", "string", ".spec.cronSpec")]).unwrap();
    let object = crontab();
    let metadata = json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {
            "name": "my-cron", "namespace": "default", "uid": "u-1", "resourceVersion": "42",
            "generation": 3, "creationTimestamp": "2024-05-10T11:55:00Z",
            "labels": {"app": "cron", "empty": ""},
            "finalizers": ["example.com/f"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p",
                                 "uid": "u-2", "controller": true}]
        }
    });
    let cases: &[(&str, IncludeObject, Value)] = &[
        ("none", IncludeObject::None, Value::Null),
        ("metadata", IncludeObject::Metadata, metadata),
        ("object", IncludeObject::Object, object.clone()),
    ];
    let list_meta = json!({"resourceVersion": "77", "continue": "", "remainingItemCount": 0});
    for (name, include, want_object) in cases {
        let table = convertor.table(
            std::slice::from_ref(&object),
            list_meta.clone(),
            *include,
            now(),
        );
        let want = json!({
            "kind": "Table",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "77", "remainingItemCount": 0},
            "columnDefinitions": convertor.column_definitions(),
            "rows": [{"cells": ["my-cron", "* * * * */5"], "object": want_object}]
        });
        assert_eq!(table, want, "case {name}");
    }
}

#[test]
fn table_options_no_headers_version_and_empty_list() {
    let convertor = TableConvertor::new(&[]).unwrap();
    let options = TableOptions {
        include_object: IncludeObject::Metadata,
        no_headers: true,
        version: MetaVersion::V1beta1,
    };
    let table = convertor.table_with_options(&[], &json!({}), options, now());
    assert_eq!(
        table,
        json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1beta1", "metadata": {},
               "columnDefinitions": null, "rows": []})
    );
}

#[test]
fn table_for_object_uses_object_resource_version() {
    let convertor = TableConvertor::new(&[]).unwrap();
    let table = convertor.table_for_object(&crontab(), TableOptions::default(), now());
    assert_eq!(table["metadata"], json!({"resourceVersion": "42"}));
    assert_eq!(table["rows"][0]["cells"], json!(["my-cron", "5m"]));
    assert_eq!(
        table["rows"][0]["object"]["kind"],
        json!("PartialObjectMetadata")
    );
}

#[test]
fn table_initial_events_end_bookmark_is_metadata_unless_object() {
    let bookmark = json!({"kind": "CronTab", "apiVersion": "stable.example.com/v1",
        "metadata": {"resourceVersion": "9", "annotations": {"k8s.io/initial-events-end": "true"}}});
    let convertor = TableConvertor::new(&[]).unwrap();
    let cases: &[(&str, IncludeObject, &str)] = &[
        (
            "none becomes metadata",
            IncludeObject::None,
            "PartialObjectMetadata",
        ),
        ("object stays object", IncludeObject::Object, "CronTab"),
    ];
    for (name, include, want_kind) in cases {
        let options = TableOptions {
            include_object: *include,
            ..TableOptions::default()
        };
        let table = convertor.table_for_object(&bookmark, options, now());
        assert_eq!(
            table["rows"][0]["object"]["kind"],
            json!(want_kind),
            "case {name}"
        );
    }
    let partial = &convertor.table_for_object(&bookmark, TableOptions::default(), now())["rows"][0]
        ["object"]["metadata"];
    assert_eq!(partial.get("creationTimestamp"), None, "omitzero");
}

#[test]
fn include_object_parse_accepts_upstream_values() {
    let cases: &[(&str, Result<IncludeObject, &str>)] = &[
        ("", Ok(IncludeObject::Metadata)),
        ("Metadata", Ok(IncludeObject::Metadata)),
        ("None", Ok(IncludeObject::None)),
        ("Object", Ok(IncludeObject::Object)),
        (
            "metadata",
            Err(
                "Unable to convert to Table as requested: includeObject: Invalid value: \"metadata\": must be 'Metadata', 'Object', 'None', or empty",
            ),
        ),
    ];
    for (value, want) in cases {
        let got = IncludeObject::parse(value).map_err(|e| e.to_string());
        assert_eq!(
            got.as_ref().map_err(String::as_str),
            want.as_ref().map_err(|e| *e),
            "value {value:?}"
        );
    }
}

#[test]
fn convert_list_and_object_shapes_match_upstream() {
    let convertor = TableConvertor::new(&[]).unwrap();
    let meta = ListMeta {
        resource_version: "7".into(),
        continue_token: String::new(),
        remaining_item_count: Some(2),
    };
    let list = |items: &[Value], conversion| {
        convertor.convert_list(items, &meta, conversion, MetaVersion::V1beta1, now())
    };
    let partial = list(&[crontab()], Conversion::PartialObjectMetadataList).unwrap();
    assert_eq!(partial["apiVersion"], "meta.k8s.io/v1beta1");
    assert_eq!(
        partial["metadata"],
        json!({"resourceVersion": "7", "remainingItemCount": 2})
    );
    assert_eq!(partial["items"][0]["kind"], "PartialObjectMetadata");
    let empty = list(&[], Conversion::PartialObjectMetadataList).unwrap();
    assert_eq!(empty.get("items"), Some(&Value::Null), "a nil slice");
    let refused = list(&[], Conversion::PartialObjectMetadata).unwrap_err();
    assert_eq!(refused, TransformError::ListAsPartialObjectMetadata);
    let one = |conversion| {
        let options = TableOptions::default();
        convertor.convert_object(&crontab(), conversion, MetaVersion::V1, options, now())
    };
    assert_eq!(
        one(Conversion::PartialObjectMetadataList),
        Err(TransformError::NotAList)
    );
    let object = one(Conversion::PartialObjectMetadata).unwrap();
    assert_eq!(object["metadata"]["name"], "my-cron");
    assert_eq!(object.get("spec"), None);
}
