//! What the stub converter answers (stub_converter.rs): converter.py's `do_POST` and
//! `convert`, path for path, as pure functions of the path and the body received. Where
//! converter.py's handler would raise (a body that is not a JSON object, an object without a
//! string `apiVersion`, a `metadata` that is not an object, …) the answer is
//! [`Answer::Crash`]: http.server then closes the connection unanswered.

use serde_json::{Map, Value, json};

/// Where `/convert` keeps a v2 object's `spec.shape` in v1.
pub const ANNOTATION: &str = "convert.example.com/shape";

/// The label `/convert-labels` and `/convert-bad-label` set on every converted object.
pub const LABEL: &str = "converted-to";

/// The answer to one POST.
#[derive(Debug, PartialEq)]
pub enum Answer {
    /// A 200 `application/json` answer with this body.
    Body(Vec<u8>),
    /// converter.py raised: the connection closes without an answer.
    Crash,
    /// `/convert-slow`: no answer until the caller closes the connection.
    Hang,
}

/// The answer to a POST of `body` at `path` (no query).
pub fn answer(path: &str, body: &[u8]) -> Answer {
    match respond(path, body) {
        Some(answer) => answer,
        None => Answer::Crash,
    }
}

fn respond(path: &str, body: &[u8]) -> Option<Answer> {
    let review: Value = match body.is_empty() {
        true => json!({}),
        false => serde_json::from_slice(body).ok()?,
    };
    let review = review.as_object()?;
    let empty = json!({});
    let request = review.get("request").unwrap_or(&empty).as_object()?;
    let objects = match request.get("objects") {
        None => &[][..],
        Some(objects) => objects.as_array()?.as_slice(),
    };
    let desired = request
        .get("desiredAPIVersion")
        .cloned()
        .unwrap_or(json!(""));
    let converted: Option<Vec<Value>> = objects.iter().map(|o| convert(o, &desired)).collect();
    let mut converted = converted?;
    let uid = request.get("uid").cloned().unwrap_or(json!(""));
    let version = desired.as_str().map(last_segment).unwrap_or_default();
    let mut response = json!({"uid": uid, "result": {"status": "Success"}});
    let mut kind = "ConversionReview";
    match path {
        "/convert-fail" => {
            response["result"] =
                json!({"status": "Failure", "message": "the test converter refuses"});
        }
        "/convert-garbage" => return Some(Answer::Body(b"not a ConversionReview".to_vec())),
        "/convert-slow" => return Some(Answer::Hang),
        "/convert-wrong-count" => {
            converted.pop();
        }
        "/convert-rename" => {
            for o in &mut converted {
                let name = o["metadata"].get_mut("name")?;
                *name = json!(format!("{}-renamed", name.as_str()?));
            }
        }
        "/convert-wrong-uid" => response["uid"] = json!(format!("not-{}", text_of(&uid))),
        "/convert-wrong-kind" => set_all(&mut converted, "kind", json!("WrongKind"))?,
        "/convert-wrong-apiversion" => {
            set_all(&mut converted, "apiVersion", json!("wrong.example.com/v2"))?
        }
        "/convert-review-kind" => kind = "ConversionResponse",
        "/convert-labels" => set_metadata(&mut converted, "labels", LABEL, json!(version))?,
        "/convert-bad-label" => {
            set_metadata(&mut converted, "labels", LABEL, json!("not a label value!"))?
        }
        "/convert-annotation-number" => {
            set_metadata(&mut converted, "annotations", "converted-count", json!(1))?
        }
        _ => {}
    }
    if path != "/convert-fail" {
        response["convertedObjects"] = Value::Array(converted);
    }
    let api_version = review
        .get("apiVersion")
        .cloned()
        .unwrap_or(json!("apiextensions.k8s.io/v1"));
    let out = json!({"apiVersion": api_version, "kind": kind, "response": response});
    Some(Answer::Body(out.to_string().into_bytes()))
}

/// converter.py's `convert(o, desired)`; `None` where it would raise.
pub fn convert(object: &Value, desired: &Value) -> Option<Value> {
    let mut object = object.clone();
    let source = last_segment(object.get("apiVersion")?.as_str()?).to_string();
    let desired_text = desired.as_str()?;
    let target = last_segment(desired_text);
    let fields = object.as_object_mut()?;
    fields.insert("apiVersion".into(), desired.clone());
    let mut spec = fields.remove("spec").unwrap_or(json!({}));
    let metadata = fields
        .entry("metadata")
        .or_insert(json!({}))
        .as_object_mut()?;
    let mut annotations = metadata.remove("annotations").unwrap_or(json!({}));
    if source != target {
        move_shape(spec.as_object_mut()?, annotations.as_object_mut()?, target);
    }
    let emptied = annotations.as_object().is_some_and(Map::is_empty);
    if source == target || !emptied {
        metadata.insert("annotations".into(), annotations);
    }
    fields.insert("spec".into(), spec);
    Some(object)
}

/// The one field that differs between v1 and v2: v2's `spec.shape`, v1's annotation.
fn move_shape(spec: &mut Map<String, Value>, annotations: &mut Map<String, Value>, to: &str) {
    match to {
        "v2" => {
            if let Some(shape) = annotations.remove(ANNOTATION) {
                spec.insert("shape".into(), shape);
            }
            let red = spec.get("color") == Some(&json!("red"));
            let shape = if red { "round" } else { "square" };
            spec.entry("shape").or_insert(json!(shape));
        }
        "v1" => {
            if let Some(shape) = spec.remove("shape") {
                annotations.insert(ANNOTATION.into(), shape);
            }
        }
        _ => {}
    }
}

/// Python's `text.split("/")[-1]`.
fn last_segment(text: &str) -> &str {
    text.rsplit('/').next().unwrap_or(text)
}

/// Python's `f"{value}"` for the uid a review carried (a string in every real review).
fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn set_all(objects: &mut [Value], field: &str, value: Value) -> Option<()> {
    for o in objects {
        o.as_object_mut()?.insert(field.into(), value.clone());
    }
    Some(())
}

/// `o["metadata"].setdefault(map, {})[key] = value` on every object.
fn set_metadata(objects: &mut [Value], map: &str, key: &str, value: Value) -> Option<()> {
    for o in objects {
        let metadata = o.get_mut("metadata")?.as_object_mut()?;
        let entries = metadata.entry(map).or_insert(json!({})).as_object_mut()?;
        entries.insert(key.into(), value.clone());
    }
    Some(())
}
