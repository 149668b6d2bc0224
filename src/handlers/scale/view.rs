//! The `autoscaling/v1` Scale of a custom object (`scaleFromCustomResource`) and a
//! request's Scale as kube decodes it into the typed `autoscalingv1.Scale`.

use serde_json::{Map, Value, json};

use crate::crd::catalog::ScalePaths;
use crate::error::{ApiError, FieldError};
use crate::fieldmanager::typed::{SCALE_API_VERSION, SCALE_KIND};
use crate::meta::object as obj;

/// `invalidSpecReplicas`: the old Scale's replicas when the object has none, so a write
/// that leaves them unset is told they cannot be empty.
pub const INVALID_SPEC_REPLICAS: i64 = i32::MIN as i64;

fn path_parts(path: &str) -> impl Iterator<Item = &str> {
    path.trim_start_matches('.')
        .split('.')
        .filter(|p| !p.is_empty())
}

fn lookup<'a>(object: &'a Value, path: &str) -> Option<&'a Value> {
    path_parts(path).try_fold(object, |cur, part| cur.get(part))
}

/// `unstructured.SetNestedField`: creates the maps on the way.
pub fn set_path(object: &mut Value, path: &str, value: Value) {
    let parts: Vec<&str> = path_parts(path).collect();
    let mut cur = object;
    for (i, part) in parts.iter().enumerate() {
        let Some(map) = cur.as_object_mut() else {
            return;
        };
        if i + 1 == parts.len() {
            map.insert((*part).to_string(), value);
            return;
        }
        let next = map.entry((*part).to_string()).or_insert_with(|| json!({}));
        if !next.is_object() {
            *next = json!({});
        }
        cur = next;
    }
}

/// An int64 at `path` as the int32 the Scale holds (Go's conversion wraps).
fn int32_at(object: &Value, path: &str) -> Option<i64> {
    lookup(object, path)
        .and_then(Value::as_i64)
        .map(|v| i64::from(v as i32))
}

/// The Scale of `object`, and whether it has spec replicas (0 when not).
pub fn scale_of(object: &Value, paths: &ScalePaths) -> (Value, bool) {
    let meta = obj::metadata(object);
    let pick = |f: &str| meta.and_then(|m| m.get(f)).cloned();
    let mut metadata = Map::new();
    for field in [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
    ] {
        if let Some(v) = pick(field).filter(|v| v.as_str() != Some("")) {
            metadata.insert(field.to_string(), v);
        }
    }
    let spec_replicas = int32_at(object, &paths.spec_replicas);
    let selector = paths
        .label_selector
        .as_deref()
        .and_then(|p| lookup(object, p))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let scale = encode(
        Value::Object(metadata),
        spec_replicas.unwrap_or(0),
        int32_at(object, &paths.status_replicas).unwrap_or(0),
        selector,
    );
    (scale, spec_replicas.is_some())
}

/// The typed Scale as JSON: `spec.replicas` and `status.selector` are `omitempty`.
fn encode(metadata: Value, spec_replicas: i64, status_replicas: i64, selector: &str) -> Value {
    let mut spec = Map::new();
    if spec_replicas != 0 {
        spec.insert("replicas".into(), json!(spec_replicas));
    }
    let mut status = json!({"replicas": status_replicas});
    if !selector.is_empty() {
        status["selector"] = json!(selector);
    }
    json!({"kind": SCALE_KIND, "apiVersion": SCALE_API_VERSION, "metadata": metadata,
           "spec": spec, "status": status})
}

/// The Scale a write starts from: the object's, with [`INVALID_SPEC_REPLICAS`] when it
/// has no spec replicas.
pub fn old_scale(object: &Value, paths: &ScalePaths) -> Value {
    let (mut scale, found) = scale_of(object, paths);
    if !found {
        scale["spec"]["replicas"] = json!(INVALID_SPEC_REPLICAS);
    }
    scale
}

/// The Scale's spec replicas (0 when unset, as the typed field).
pub fn spec_replicas(scale: &Value) -> i64 {
    scale
        .pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// Why a document does not decode into a Scale: Go's `json.Unmarshal` text.
fn unmarshal_error(doc: &Value) -> Option<String> {
    let fields = [
        ("/spec/replicas", "ScaleSpec.spec.replicas", "int32"),
        ("/status/replicas", "ScaleStatus.status.replicas", "int32"),
        ("/status/selector", "ScaleStatus.status.selector", "string"),
    ];
    fields.into_iter().find_map(|(pointer, field, ty)| {
        let value = doc.pointer(pointer)?;
        let got = match (value, ty) {
            (Value::Null, _) | (Value::String(_), "string") => return None,
            (Value::Number(n), "int32")
                if n.as_i64().and_then(|v| i32::try_from(v).ok()).is_some() =>
            {
                return None;
            }
            (Value::Number(n), _) => format!("number {n}"),
            (other, _) => crate::request::gojson::kind(other).to_string(),
        };
        Some(format!(
            "json: cannot unmarshal {got} into Go struct field {field} of type {ty}"
        ))
    })
}

/// The Scale kube decodes from `doc`: known fields only, in the typed encoding.
fn typed(doc: &Value) -> Value {
    let metadata = doc
        .get("metadata")
        .filter(|m| m.is_object())
        .cloned()
        .unwrap_or_else(|| json!({}));
    let int = |p: &str| doc.pointer(p).and_then(Value::as_i64).unwrap_or(0);
    let selector = doc
        .pointer("/status/selector")
        .and_then(Value::as_str)
        .unwrap_or_default();
    encode(
        metadata,
        int("/spec/replicas"),
        int("/status/replicas"),
        selector,
    )
}

/// A PUT body as a Scale. kube's update handler answers any decoding failure of the
/// body with this 400 (the scale codec's scheme does not know the typed Scale).
pub fn decode_body(body: &Value) -> Result<Value, ApiError> {
    let type_meta_ok = [("apiVersion", SCALE_API_VERSION), ("kind", SCALE_KIND)]
        .iter()
        .all(|(k, want)| {
            body.get(k)
                .and_then(Value::as_str)
                .is_none_or(|v| v == *want)
        });
    if !type_meta_ok || unmarshal_error(body).is_some() {
        return Err(ApiError::BadRequest(
            "no kind is registered for the type v1.Scale in scheme \"pkg/apiserver/customresource_handler.go:781\"".into(),
        ));
    }
    Ok(typed(body))
}

/// A patched document as a Scale; kube's 422 on the field `patch` when it does not decode.
pub fn decode_patched(doc: &Value) -> Result<Value, ApiError> {
    match unmarshal_error(doc) {
        None => Ok(typed(doc)),
        Some(text) => Err(ApiError::Invalid {
            group: String::new(),
            kind: String::new(),
            name: String::new(),
            causes: vec![FieldError::invalid(
                "patch",
                &Value::String(doc.to_string()),
                &text,
            )],
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> ScalePaths {
        ScalePaths {
            spec_replicas: ".spec.replicas".into(),
            status_replicas: ".status.replicas".into(),
            label_selector: Some(".status.selector".into()),
        }
    }

    #[test]
    fn scale_of_zero_replicas_omits_spec_replicas() {
        let cr = json!({"metadata": {"name": "a", "namespace": "ns"}, "spec": {"replicas": 0}});
        let (scale, found) = scale_of(&cr, &paths());
        assert!(found);
        assert_eq!(scale["spec"], json!({}));
        assert_eq!(scale["status"], json!({"replicas": 0}));
        assert_eq!(scale["metadata"], json!({"name": "a", "namespace": "ns"}));
    }

    #[test]
    fn old_scale_missing_replicas_holds_marker() {
        let cr = json!({"metadata": {"name": "a"}, "status": {"selector": "x=y"}});
        let scale = old_scale(&cr, &paths());
        assert_eq!(spec_replicas(&scale), INVALID_SPEC_REPLICAS);
        assert_eq!(scale["status"], json!({"replicas": 0, "selector": "x=y"}));
    }

    #[test]
    fn decode_body_out_of_range_replicas_is_bad_request() {
        for replicas in [json!(2147483648_i64), json!("3"), json!(1.5)] {
            let body = json!({"spec": {"replicas": replicas}});
            assert!(matches!(decode_body(&body), Err(ApiError::BadRequest(_))));
        }
        let body = json!({"apiVersion": "x/v1", "kind": "Scale"});
        assert!(matches!(decode_body(&body), Err(ApiError::BadRequest(_))));
    }

    #[test]
    fn decode_body_drops_unknown_fields() {
        let body = json!({"metadata": {"name": "a"}, "spec": {"replicas": 3, "foo": 1}, "x": 1});
        let scale = decode_body(&body).unwrap();
        assert_eq!(scale["spec"], json!({"replicas": 3}));
        assert!(scale.get("x").is_none());
    }

    #[test]
    fn decode_patched_big_replicas_names_go_field() {
        let doc = json!({"spec": {"replicas": 2147483648_i64}});
        let Err(ApiError::Invalid { causes, .. }) = decode_patched(&doc) else {
            panic!("not invalid");
        };
        assert!(causes[0].detail.ends_with(
            "json: cannot unmarshal number 2147483648 into Go struct field ScaleSpec.spec.replicas of type int32"
        ), "{}", causes[0].detail);
    }
}
