//! Table tests of each converted object's checks and `restoreObjectMeta` (texts verbatim
//! from apiextensions-apiserver `webhook_converter.go`; Go's `%T` names; the labels and
//! annotations validators with kube's `metadata.annotation` path).

use serde_json::{Value, json};

use super::objects::{Shape, converted, gvk, restore_object_meta};

const DESIRED: &str = "stable.example.com/v2";
const GVK: &str = "stable.example.com/v1, Kind=CronTab";

fn original() -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "a", "namespace": "default", "uid": "u1", "resourceVersion": "7",
            "labels": {"app": "x"}, "annotations": {"note": "n"}},
        "spec": {"color": "red"}})
}

fn answer(edit: impl FnOnce(&mut Value)) -> Value {
    let mut v = original();
    v["apiVersion"] = json!(DESIRED);
    v["spec"] = json!({"color": "red", "shape": "round"});
    edit(&mut v);
    v
}

#[test]
fn gvk_printed_as_go_percent_v() {
    assert_eq!(gvk(&original()), GVK);
    assert_eq!(
        gvk(&json!({"apiVersion": "a/b/c", "kind": "K"})),
        "/, Kind=K"
    );
}

#[test]
fn converted_valid_answer_keeps_original_metadata_but_labels_and_annotations() {
    let got = converted(
        &original(),
        answer(|v| {
            v["metadata"]["resourceVersion"] = json!("999");
            v["metadata"]["generation"] = json!(5);
            v["metadata"]["labels"] = json!({"app": "y"});
            v["metadata"]["annotations"] = Value::Null;
        }),
        DESIRED,
        Shape::Object,
        GVK,
    )
    .unwrap();
    assert_eq!(
        got["metadata"],
        json!({"name": "a", "namespace": "default", "uid": "u1", "resourceVersion": "7",
            "labels": {"app": "y"}})
    );
    assert_eq!(got["spec"]["shape"], "round");
    assert_eq!(got["apiVersion"], DESIRED);
}

#[test]
fn converted_bad_answers_kube_texts_single_and_list() {
    let item = |i| Shape::Item(i);
    let cases: Vec<(Value, Shape, String)> = vec![
        (
            Value::Null,
            Shape::Object,
            "unexpected end of JSON input".into(),
        ),
        (
            json!("x"),
            Shape::Object,
            "json: cannot unmarshal string into Go value of type map[string]interface {}".into(),
        ),
        (
            json!([1]),
            item(2),
            format!(
                "conversion webhook for {GVK} returned invalid converted object at index 2: json: cannot unmarshal array into Go value of type map[string]interface {{}}"
            ),
        ),
        (
            json!({"apiVersion": DESIRED}),
            Shape::Object,
            r#"Object 'Kind' is missing in '{"apiVersion":"stable.example.com/v2"}'"#.into(),
        ),
        (
            answer(|v| v["apiVersion"] = json!("stable.example.com/v1")),
            Shape::Object,
            format!(
                "conversion webhook for {GVK} returned invalid object at index 0: invalid groupVersion (expected {DESIRED}, received stable.example.com/v1)"
            ),
        ),
        (
            answer(|v| v["apiVersion"] = json!("stable.example.com/v1")),
            item(1),
            format!(
                "conversion webhook for {GVK} returned invalid converted object at index 1: invalid groupVersion (expected {DESIRED}, received stable.example.com/v1)"
            ),
        ),
        (
            answer(|v| v["kind"] = json!("Other")),
            Shape::Object,
            format!(
                "conversion webhook for {GVK} returned invalid object at index 0: invalid kind (expected CronTab, received Other)"
            ),
        ),
        (
            answer(|v| v["kind"] = json!("Other")),
            item(0),
            format!(
                "conversion webhook for {GVK} returned invalid converted object at index 0: invalid kind (expected CronTab, received Other)"
            ),
        ),
        (
            answer(|v| v["metadata"]["name"] = json!("a-renamed")),
            Shape::Object,
            format!(
                "conversion webhook for {GVK} returned invalid object: must have the same name: a != a-renamed"
            ),
        ),
        (
            answer(|v| v["metadata"]["name"] = json!("a-renamed")),
            item(3),
            format!(
                "conversion webhook for {GVK} returned invalid converted object at index 3: must have the same name: a != a-renamed"
            ),
        ),
        (
            answer(|v| v["metadata"]["namespace"] = json!("other")),
            Shape::Object,
            format!(
                "conversion webhook for {GVK} returned invalid object: must have the same namespace: default != other"
            ),
        ),
        (
            answer(|v| v["metadata"]["uid"] = json!("u2")),
            Shape::Object,
            format!(
                "conversion webhook for {GVK} returned invalid object: must have the same UID: u1 != u2"
            ),
        ),
        (
            answer(|v| {
                v.as_object_mut().unwrap().remove("metadata");
            }),
            Shape::Object,
            format!(
                "conversion webhook for {GVK} returned invalid object: must have the same name: a != "
            ),
        ),
        (
            answer(|v| v["metadata"]["labels"] = json!({"app": "bad value!"})),
            Shape::Object,
            format!(
                "conversion webhook for {GVK} returned invalid metadata: metadata.labels: Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            ),
        ),
        (
            answer(|v| v["metadata"]["annotations"] = json!({"note": 1})),
            item(0),
            format!(
                "conversion webhook for {GVK} returned invalid metadata in object at index 0: metadata.annotations[note] must be a string, but is int64 in converted object"
            ),
        ),
        (
            answer(|v| v["metadata"]["annotations"] = json!({"bad key!": "v"})),
            Shape::Object,
            format!(
                "conversion webhook for {GVK} returned invalid metadata: metadata.annotation: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            ),
        ),
    ];
    for (item, shape, want) in cases {
        let got = converted(&original(), item.clone(), DESIRED, shape, GVK);
        assert_eq!(got, Err(want), "{item} {shape:?}");
    }
}

#[test]
fn restore_object_meta_kube_texts_and_go_type_names() {
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"kind": "CronTab"}),
            "missing metadata in converted object",
        ),
        (
            json!({"metadata": []}),
            "invalid metadata of type []interface {} in converted object",
        ),
        (
            json!({"metadata": "m"}),
            "invalid metadata of type string in converted object",
        ),
        (
            json!({"metadata": {"labels": ["a"]}}),
            "invalid metadata.labels of type []interface {} in converted object",
        ),
        (
            json!({"metadata": {"annotations": true}}),
            "invalid metadata.annotations of type bool in converted object",
        ),
        (
            json!({"metadata": {"labels": {"a": null}}}),
            "metadata.labels[a] must be a string, but is <nil> in converted object",
        ),
        (
            json!({"metadata": {"labels": {"a": 1.5}}}),
            "metadata.labels[a] must be a string, but is float64 in converted object",
        ),
        (
            json!({"metadata": {"labels": {"a": {}}}}),
            "metadata.labels[a] must be a string, but is map[string]interface {} in converted object",
        ),
    ];
    for (mut converted, want) in cases {
        let before = converted.clone();
        assert_eq!(
            restore_object_meta(&original(), &mut converted),
            Err(want.to_string()),
            "{before}"
        );
    }
    // Unchanged labels are not validated again (kube validates only a change).
    let mut bad_original = original();
    bad_original["metadata"]["labels"] = json!({"app": "bad value!"});
    let mut same = json!({"metadata": {"labels": {"app": "bad value!"}}});
    assert_eq!(restore_object_meta(&bad_original, &mut same), Ok(()));
    assert_eq!(same["metadata"]["name"], "a");
}
