//! The field manager over [`converge`]: a converter that moves v2's `spec.shape` into an
//! annotation at v1 (so an `apiVersion` swap would compare a field v1 lacks), conflicts
//! found across versions, a failed conversion answered with the merge's texts.

use std::cell::Cell;

use serde_json::{Value, json};

use super::t;
use crate::fieldmanager::manager::{CrdVersions, Error, FieldManager, ResetFields, converge};
use crate::fieldmanager::merge::Converter;
use crate::schema::Schema;
use crate::schema::typed::resource_type;

const G1: &str = "g.example.com/v1";
const G2: &str = "g.example.com/v2";
const SHAPE: &str = "example.com/shape";

fn versions() -> CrdVersions {
    let schema = |shape: bool| {
        let mut spec = json!({"color": {"type": "string"}, "size": {"type": "integer"}});
        if shape {
            spec["shape"] = json!({"type": "string"});
        }
        let spec = json!({"type": "object", "properties": spec});
        resource_type(&Schema::parse(
            &json!({"type": "object", "properties": {"spec": spec}}),
        ))
    };
    CrdVersions::new([
        (G1.to_string(), schema(false)),
        (G2.to_string(), schema(true)),
    ])
}

/// The stub converter's rule: to v1 the shape moves into the annotation, to v2 back.
fn renamed(mut object: Value, to: &str) -> Value {
    object["apiVersion"] = json!(to);
    match to {
        G1 => {
            if let Some(shape) = object["spec"]
                .as_object_mut()
                .and_then(|s| s.remove("shape"))
            {
                object["metadata"]["annotations"][SHAPE] = shape;
            }
        }
        _ => {
            let annotations = object["metadata"]["annotations"].as_object_mut();
            if let Some(shape) = annotations.and_then(|a| a.remove(SHAPE)) {
                object["spec"]["shape"] = shape;
            }
        }
    }
    object
}

fn fm<'a>(
    converter: &'a dyn Converter,
    api_version: &'a str,
    reset: &'a ResetFields,
) -> FieldManager<'a> {
    FieldManager {
        converter,
        api_version,
        kind: "Widget",
        subresource: "",
        reset_fields: reset,
    }
}

fn widget(api_version: &str, spec: Value) -> Value {
    json!({"apiVersion": api_version, "kind": "Widget",
        "metadata": {"name": "a", "namespace": "default", "uid": "u"}, "spec": spec})
}

/// `manager` applies `patch` at `api_version` over `live`, converting with `renamed`
/// (or failing every conversion with `fail`); the result and the converter's calls.
async fn apply(
    live: &Value,
    patch: &Value,
    manager: &str,
    api_version: &str,
    fail: Option<&str>,
) -> (Result<Value, Error>, usize) {
    let (types, reset, calls) = (versions(), ResetFields::new(), Cell::new(0));
    let run = |c: &dyn Converter| {
        fm(c, api_version, &reset).apply(Some(live), patch, manager, false, t(9))
    };
    let convert = |objects: Vec<Value>, to: String| {
        calls.set(calls.get() + 1);
        let out = match fail {
            Some(text) => Err(text.to_string()),
            None => Ok(objects.into_iter().map(|o| renamed(o, &to)).collect()),
        };
        std::future::ready(out)
    };
    let seeds = [live.clone()];
    let out = converge(&types, api_version, &seeds, run, convert).await;
    (out, calls.get())
}

/// `one`'s apply of color and size at v1 (a create), as stored.
fn applied_by_one() -> Value {
    let (types, reset) = (versions(), ResetFields::new());
    let patch = widget(G1, json!({"color": "red", "size": 1}));
    let mut created = fm(&types, G1, &reset)
        .apply(None, &patch, "one", false, t(1))
        .unwrap();
    created["metadata"]["uid"] = json!("u");
    created
}

#[tokio::test]
async fn converge_apply_at_other_version_converts_and_keeps_manager_versions() {
    let live = renamed(applied_by_one(), G2);
    let (out, calls) = apply(
        &live,
        &widget(G2, json!({"shape": "cube"})),
        "two",
        G2,
        None,
    )
    .await;
    let out = out.unwrap();
    assert_eq!(
        out["spec"],
        json!({"color": "red", "size": 1, "shape": "cube"})
    );
    let entries: Vec<(Value, Value, Value)> =
        (out["metadata"]["managedFields"].as_array().unwrap())
            .iter()
            .map(|e| {
                (
                    e["manager"].clone(),
                    e["apiVersion"].clone(),
                    e["fieldsV1"].clone(),
                )
            })
            .collect();
    assert_eq!(
        entries,
        [
            (
                json!("one"),
                json!(G1),
                json!({"f:spec": {"f:color": {}, "f:size": {}}})
            ),
            (json!("two"), json!(G2), json!({"f:spec": {"f:shape": {}}})),
        ]
    );
    // Each call converts what one run asked for; bounded by the runs allowed.
    assert!(
        calls >= 1 && calls < crate::fieldmanager::manager::max_runs(&versions()),
        "{calls}"
    );
}

#[tokio::test]
async fn converge_apply_owned_field_at_other_version_conflicts() {
    let live = renamed(applied_by_one(), G2);
    let (out, _) = apply(
        &live,
        &widget(G2, json!({"color": "blue"})),
        "two",
        G2,
        None,
    )
    .await;
    match out {
        Err(Error::Conflict { message, .. }) => assert_eq!(
            message,
            "Apply failed with 1 conflict: conflict with \"one\": .spec.color"
        ),
        other => panic!("want a conflict, got {other:?}"),
    }
}

#[tokio::test]
async fn converge_failed_conversion_apply_fails_with_converter_text() {
    let live = renamed(applied_by_one(), G2);
    let text = "conversion webhook for g.example.com/v2, Kind=Widget failed: no";
    let (out, calls) = apply(
        &live,
        &widget(G2, json!({"shape": "x"})),
        "two",
        G2,
        Some(text),
    )
    .await;
    assert_eq!(out, Err(Error::Internal(text.to_string())));
    assert_eq!(calls, 1);
}

#[tokio::test]
async fn converge_update_converts_live_and_new_in_one_call() {
    let live = renamed(applied_by_one(), G2);
    let mut new = live.clone();
    new["spec"]["size"] = json!(7);
    let (types, reset, calls) = (versions(), ResetFields::new(), Cell::new(0));
    let run = |c: &dyn Converter| {
        let mut updated = new.clone();
        let out = fm(c, G2, &reset).update(Some(&live), &mut updated, "three", t(9));
        out.map(|()| updated)
    };
    let convert = |objects: Vec<Value>, to: String| {
        calls.set(calls.get() + 1);
        assert_eq!(objects.len(), 2, "live and new together");
        std::future::ready(Ok::<_, String>(
            objects.into_iter().map(|o| renamed(o, &to)).collect(),
        ))
    };
    let seeds = FieldManager::update_inputs(Some(&live), &new);
    let updated = converge(&types, G2, &seeds, run, convert).await.unwrap();
    assert_eq!(calls.get(), 1);
    let managers: Vec<&str> = (updated["metadata"]["managedFields"].as_array().unwrap())
        .iter()
        .map(|e| e["manager"].as_str().unwrap())
        .collect();
    assert_eq!(managers, ["one", "three"]);
}

#[tokio::test]
async fn converge_update_failed_conversion_errors_and_drops_managed_fields() {
    let live = renamed(applied_by_one(), G2);
    let mut new = live.clone();
    new["spec"]["size"] = json!(7);
    let (types, reset) = (versions(), ResetFields::new());
    let run = |c: &dyn Converter| {
        let mut updated = new.clone();
        let out = fm(c, G2, &reset).update(Some(&live), &mut updated, "three", t(9));
        (out, updated)
    };
    let text = "conversion webhook for g.example.com/v2, Kind=Widget failed: no";
    let convert = |_: Vec<Value>, _: String| std::future::ready(Err::<Vec<Value>, _>(text));
    let seeds = FieldManager::update_inputs(Some(&live), &new);
    let (out, updated) = converge(&types, G2, &seeds, run, convert).await;
    let Err(Error::Internal(message)) = out else {
        panic!("want an internal error, got {out:?}");
    };
    assert!(message.contains(text), "{message}");
    assert!(
        updated["metadata"].get("managedFields").is_none(),
        "{updated}"
    );
}
