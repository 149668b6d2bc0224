//! Upstream's managedfields_test.go tables (decoding, round trip, identifiers, sorting)
//! and the reset rules of fieldmanager.go, as data.

use serde_json::{Value, json};

use super::*;

fn entries(v: &Value) -> Vec<ManagedFieldsEntry> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|item| ManagedFieldsEntry::from_value(item).expect("an entry"))
        .collect()
}

fn to_values(entries: &[ManagedFieldsEntry]) -> Value {
    Value::Array(entries.iter().map(ManagedFieldsEntry::to_value).collect())
}

/// TestHasFieldsType, TestHasAPIVersion, TestHasOperation: (name, entry, decodes).
fn decode_cases() -> Vec<(&'static str, Value, bool)> {
    let valid = json!({"apiVersion": "v1", "fieldsType": "FieldsV1",
        "fieldsV1": {"f:field": {}}, "manager": "foo", "operation": "Apply"});
    let with = |key: &str, v: Option<Value>| {
        let mut e = valid.clone();
        match v {
            Some(v) => e[key] = v,
            None => {
                e.as_object_mut().map(|m| m.remove(key));
            }
        }
        e
    };
    vec![
        ("valid", valid.clone(), true),
        (
            "fieldsType FieldsV2",
            with("fieldsType", Some(json!("FieldsV2"))),
            false,
        ),
        ("fieldsType missing", with("fieldsType", None), false),
        ("apiVersion missing", with("apiVersion", None), false),
        (
            "operation Invalid",
            with("operation", Some(json!("Invalid"))),
            false,
        ),
        ("operation missing", with("operation", None), false),
        (
            "operation Update",
            with("operation", Some(json!("Update"))),
            true,
        ),
        ("fieldsV1 missing is empty", with("fieldsV1", None), true),
        (
            "fieldsV1 not a set",
            with("fieldsV1", Some(json!({"x": {}}))),
            false,
        ),
    ]
}

#[test]
fn decode_managed_fields_upstream_validation_table() {
    for (name, entry, ok) in decode_cases() {
        let got = decode_managed_fields(&entries(&json!([entry])));
        assert_eq!(got.is_ok(), ok, "{name}: {got:?}");
    }
}

#[test]
fn decode_managed_fields_error_texts_match_kube() {
    let cases = [
        (
            json!({"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": "m"}),
            "operation must be `Apply` or `Update`",
        ),
        (
            json!({"operation": "Update", "fieldsType": "FieldsV1", "manager": "m"}),
            "apiVersion must not be empty",
        ),
        (
            json!({"operation": "Update", "apiVersion": "v1", "manager": "m"}),
            "missing fieldsType in managed fields entry 0",
        ),
        (
            json!({"operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV2"}),
            "invalid fieldsType \"FieldsV2\" in managed fields entry 0",
        ),
    ];
    for (entry, want) in cases {
        assert_eq!(
            decode_managed_fields(&entries(&json!([entry]))),
            Err(want.to_string())
        );
    }
}

/// managedfields_test.go TestRoundTripManagedFields (YAML as JSON): decode then encode gives the same.
const ROUND_TRIP: &[&str] = &[
    r#"null"#,
    r#"[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"v:3":{"f:alsoPi":{}},"v:3.1415":{"f:pi":{}},"v:false":{"f:notTrue":{}}},"manager":"foo","operation":"Update","time":"2001-02-03T04:05:06Z"},{"apiVersion":"v1beta1","fieldsType":"FieldsV1","fieldsV1":{"i:5":{"f:i":{}}},"manager":"foo","operation":"Update","time":"2011-12-13T14:15:16Z"}]"#,
    r#"[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{"f:image":{},"f:name":{}}}}},"manager":"foo","operation":"Apply"}]"#,
    r#"[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{"f:app":{}},"f:name":{}},"f:spec":{"f:replicas":{},"f:selector":{"f:matchLabels":{"f:app":{}}},"f:template":{"f:medatada":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"i:0":{"f:containerPort":{}}}}}}}}},"manager":"foo","operation":"Update"}]"#,
    r#"[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:allowVolumeExpansion":{},"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:name":{},"f:parameters":{"f:resturl":{},"f:restuser":{},"f:secretName":{},"f:secretNamespace":{}}},"f:provisioner":{}},"manager":"foo","operation":"Apply"}]"#,
    r#"[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:name":{}},"f:spec":{"f:group":{},"f:names":{"f:kind":{},"f:plural":{},"f:shortNames":{"i:0":{}},"f:singular":{}},"f:scope":{},"f:versions":{"k:{\"name\":\"v1\"}":{"f:name":{},"f:served":{},"f:storage":{}}}}},"manager":"foo","operation":"Update"}]"#,
    r#"[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},"manager":"foo","operation":"Update","subresource":"scale"}]"#,
];

#[test]
fn encode_managed_fields_upstream_round_trip_table_is_identity() {
    for text in ROUND_TRIP {
        let input: Value = serde_json::from_str(text).expect("test JSON");
        let list = if input.is_null() {
            vec![]
        } else {
            entries(&input)
        };
        let managed = decode_managed_fields(&list).expect(text);
        let encoded = encode_managed_fields(&managed);
        let want = if input.is_null() { json!([]) } else { input };
        assert_eq!(to_values(&encoded), want, "{text}");
    }
}

/// TestBuildManagerIdentifier: (entry, identifier).
#[test]
fn build_manager_identifier_upstream_table() {
    let cases = [
        (
            json!({"apiVersion": "v1", "fieldsV1": {"f:apiVersion": {}}, "manager": "foo",
                "operation": "Update", "time": "2001-02-03T04:05:06Z"}),
            r#"{"manager":"foo","operation":"Update","apiVersion":"v1"}"#,
        ),
        (
            json!({"apiVersion": "v1", "fieldsV1": {"f:apiVersion": {}}, "manager": "foo",
                "operation": "Apply", "time": "2001-02-03T04:05:06Z"}),
            r#"{"manager":"foo","operation":"Apply"}"#,
        ),
        (
            json!({"apiVersion": "v1", "fieldsV1": {"f:apiVersion": {}}, "manager": "foo",
                "operation": "Apply", "subresource": "scale", "time": "2001-02-03T04:05:06Z"}),
            r#"{"manager":"foo","operation":"Apply","subresource":"scale"}"#,
        ),
    ];
    for (entry, want) in cases {
        let entry = ManagedFieldsEntry::from_value(&entry).expect("entry");
        assert_eq!(build_manager_identifier(&entry), want);
    }
}

/// The reset rule: (name, request managedFields, is a reset).
#[test]
fn is_reset_managed_fields_kube_rule() {
    let cases = [
        ("absent", None, false),
        ("empty list", Some(json!([])), true),
        ("one empty entry", Some(json!([{}])), true),
        (
            "one entry of nulls",
            Some(json!([{"manager": null, "time": null}])),
            true,
        ),
        (
            "one entry with a manager",
            Some(json!([{"manager": "m"}])),
            false,
        ),
        (
            "one entry with empty fieldsV1",
            Some(json!([{"fieldsV1": {}}])),
            false,
        ),
        ("two empty entries", Some(json!([{}, {}])), false),
    ];
    for (name, list, want) in cases {
        let list = list.map(|l| entries(&l));
        assert_eq!(is_reset_managed_fields(list.as_deref()), want, "{name}");
    }
}

#[test]
fn entries_of_unstructured_get_managed_fields() {
    let cases = [
        ("no metadata", json!({}), None),
        ("no managedFields", json!({"metadata": {}}), None),
        ("null", json!({"metadata": {"managedFields": null}}), None),
        (
            "not a list",
            json!({"metadata": {"managedFields": {}}}),
            None,
        ),
        (
            "item not a map",
            json!({"metadata": {"managedFields": [1]}}),
            None,
        ),
        (
            "manager not a string",
            json!({"metadata": {"managedFields": [{"manager": 1}]}}),
            None,
        ),
        (
            "bad time",
            json!({"metadata": {"managedFields": [{"time": "yesterday"}]}}),
            None,
        ),
        ("empty", json!({"metadata": {"managedFields": []}}), Some(0)),
        (
            "one",
            json!({"metadata": {"managedFields": [{"manager": "m", "x": 1}]}}),
            Some(1),
        ),
    ];
    for (name, object, want) in cases {
        assert_eq!(entries_of(&object).map(|e| e.len()), want, "{name}");
    }
}

fn update_entry(manager: &str, field: &str) -> Value {
    json!({"manager": manager, "operation": "Update", "apiVersion": "v1",
        "fieldsType": "FieldsV1", "fieldsV1": {format!("f:{field}"): {}},
        "time": "2020-01-01T00:00:00Z"})
}

/// `decodeLiveOrNew`: (name, live, request, subresource write, managers kept).
#[test]
fn decode_live_or_new_kube_rules() {
    let live = json!([update_entry("live", "a")]);
    let cases: Vec<(&str, Option<Value>, bool, &[&str])> = vec![
        ("request has none: live kept", None, false, &["live"]),
        (
            "request valid: request wins",
            Some(json!([update_entry("req", "b")])),
            false,
            &["req"],
        ),
        ("request reset with []", Some(json!([])), false, &[]),
        ("request reset with [{}]", Some(json!([{}])), false, &[]),
        (
            "request invalid: live kept",
            Some(json!([{"manager": "req", "operation": "Bad"}])),
            false,
            &["live"],
        ),
        (
            "subresource ignores the request",
            Some(json!([update_entry("req", "b")])),
            true,
            &["live"],
        ),
        (
            "subresource ignores a reset",
            Some(json!([])),
            true,
            &["live"],
        ),
    ];
    let live = entries(&live);
    for (name, request, subresource, want) in cases {
        let request = request.map(|r| entries(&r));
        let managed = decode_live_or_new(Some(&live), request.as_deref(), subresource);
        let got: Vec<String> = encode_managed_fields(&managed)
            .into_iter()
            .map(|e| e.manager)
            .collect();
        assert_eq!(got, *want, "{name}");
    }
}

#[test]
fn encode_managed_fields_normalizes_time_and_fields() {
    let input = json!([{"manager": "m", "operation": "Update", "apiVersion": "v1",
        "fieldsType": "FieldsV1", "time": "2020-01-01T10:00:00.5+02:00",
        "fieldsV1": {"f:a": {"r:x": {}}, "r:y": {}}, "subresource": "status"}]);
    let managed = decode_managed_fields(&entries(&input)).expect("decodes");
    let want = json!([{"manager": "m", "operation": "Update", "apiVersion": "v1",
        "fieldsType": "FieldsV1", "time": "2020-01-01T08:00:00Z",
        "fieldsV1": {"f:a": {}}, "subresource": "status"}]);
    assert_eq!(to_values(&encode_managed_fields(&managed)), want);
}

#[test]
fn decode_managed_fields_same_identifier_last_wins() {
    let input = json!([update_entry("m", "a"), update_entry("m", "b")]);
    let encoded = encode_managed_fields(&decode_managed_fields(&entries(&input)).expect("ok"));
    assert_eq!(encoded.len(), 1);
    assert_eq!(encoded[0].fields_v1, Some(json!({"f:b": {}})));
}

#[test]
fn set_entries_empty_removes_field() {
    let mut object = json!({"metadata": {"name": "x", "managedFields": [{}]}});
    set_entries(&mut object, &[]);
    assert_eq!(object, json!({"metadata": {"name": "x"}}));
    let list = entries(&json!([update_entry("m", "a")]));
    set_entries(&mut object, &list);
    assert_eq!(
        object["metadata"]["managedFields"],
        json!([update_entry("m", "a")])
    );
}
