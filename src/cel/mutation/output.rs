//! The evaluated result of a mutation as JSON: an `Object{...}` value as the object it
//! initializes (kube's `ObjectVal.ConvertToNative`, after its
//! `CheckTypeNamesMatchFieldPathNames`), a list of `JSONPatch` values as the JSON patch
//! operations kube builds from them (`jsonPatcher.evaluatePatchExpression`).

use serde_json::{Map as JsonMap, Value as Json};

use super::values::{JsonPatchVal, ObjectVal, go_native_type};
use crate::cel::eval::ops;
use crate::cel::value::Value;

/// One JSON patch operation as kube builds it: `from` only when not empty, `value` only
/// when set.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonPatchOp {
    pub op: String,
    pub path: String,
    pub from: String,
    pub value: Option<Json>,
}

impl JsonPatchOp {
    /// The operation as a JSON patch document's element.
    pub fn to_json(&self) -> Json {
        let mut m = JsonMap::new();
        m.insert("op".into(), Json::String(self.op.clone()));
        m.insert("path".into(), Json::String(self.path.clone()));
        if !self.from.is_empty() {
            m.insert("from".into(), Json::String(self.from.clone()));
        }
        if let Some(v) = &self.value {
            m.insert("value".into(), v.clone());
        }
        Json::Object(m)
    }
}

/// An ApplyConfiguration's result: the object its `Object{...}` value initializes; kube's
/// texts for another value (`unsupported return type from ApplyConfiguration expression:
/// <type>`) and for nested `Object` type names that do not follow their field path
/// (`type mismatch: unexpected type name ...`).
pub fn object_json(v: &Value<'_>) -> Result<JsonMap<String, Json>, String> {
    let Some(object) = as_object(v) else {
        return Err(format!(
            "unsupported return type from ApplyConfiguration expression: {}",
            ops::type_name(v)
        ));
    };
    check_type_names(object)?;
    match object_to_json(object)? {
        Json::Object(m) => Ok(m),
        other => Err(format!("invalid return type: {}", json_go_type(&other))),
    }
}

/// A JSONPatch's result: its operations, with kube's texts.
pub fn json_patch_ops(v: &Value<'_>) -> Result<Vec<JsonPatchOp>, String> {
    let Value::List(list) = v else {
        return Err("type mismatch: JSONPatchType.expression should evaluate to array".to_string());
    };
    let items = ops::list_items(list).map_err(|e| e.to_string())?;
    items.iter().map(patch_op).collect()
}

fn patch_op(v: &Value<'_>) -> Result<JsonPatchOp, String> {
    let patch = match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<JsonPatchVal>(),
        _ => None,
    };
    let Some(patch) = patch else {
        return Err(format!(
            "type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: cannot convert to native type: {}",
            "*mutation.JSONPatchVal"
        ));
    };
    let value = match &patch.value {
        None => None,
        Some(value) => {
            if let Some(object) = as_object(value) {
                check_type_names(object)?;
            }
            let unmarshalable = |e: String| {
                format!(
                    "JSONPath valueExpression evaluated to a type that could not marshal to JSON: {e}"
                )
            };
            Some(to_json(value).map_err(unmarshalable)?)
        }
    };
    Ok(JsonPatchOp {
        op: patch.op.clone(),
        path: patch.path.clone(),
        from: patch.from.clone(),
        value,
    })
}

fn as_object<'v>(v: &'v Value<'_>) -> Option<&'v ObjectVal> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<ObjectVal>(),
        _ => None,
    }
}

/// kube's `CheckTypeNamesMatchFieldPathNames`: every nested `Object` value is named by
/// its field path from the root's name (lists and maps are transparent).
fn check_type_names(root: &ObjectVal) -> Result<(), String> {
    let mut errors = Vec::new();
    let mut path = vec![root.type_name.to_string()];
    object_names(root, &mut path, &mut errors);
    match errors.is_empty() {
        true => Ok(()),
        false => Err(format!("type mismatch: {}", errors.join("\n"))),
    }
}

fn type_names(v: &Value<'_>, path: &mut Vec<String>, errors: &mut Vec<String>) {
    match v {
        Value::Opaque(o) => {
            if let Some(object) = o.as_any().downcast_ref::<ObjectVal>() {
                object_names(object, path, errors);
            }
        }
        Value::List(l) => {
            for item in ops::list_items(l).unwrap_or_default() {
                type_names(&item, path, errors);
            }
        }
        Value::Map(m) => {
            for (_, item) in ops::map_entries(m).unwrap_or_default() {
                type_names(&item, path, errors);
            }
        }
        _ => {}
    }
}

fn object_names(object: &ObjectVal, path: &mut Vec<String>, errors: &mut Vec<String>) {
    let expected = path.join(".");
    if *object.type_name != *expected {
        errors.push(format!(
            "unexpected type name {}, expected {}, which matches field name path from root Object type",
            crate::gofmt::quote(&object.type_name),
            crate::gofmt::quote(&expected)
        ));
    }
    for (k, f) in &object.fields {
        path.push(k.clone());
        type_names(f, path, errors);
        path.pop();
    }
}

fn object_to_json(object: &ObjectVal) -> Result<Json, String> {
    let mut m = JsonMap::new();
    for (k, v) in &object.fields {
        let converted = to_json(v)
            .map_err(|e| format!("fail to convert field {}: {e}", crate::gofmt::quote(k)))?;
        m.insert(k.clone(), converted);
    }
    Ok(Json::Object(m))
}

/// A CEL value as JSON (`structpb.NewValue` of its native form): map keys must be
/// strings; durations, timestamps, types and optionals have no JSON form.
pub fn to_json(v: &Value<'_>) -> Result<Json, String> {
    Ok(match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::Uint(u) => Json::from(*u),
        Value::Double(d) => serde_json::Number::from_f64(*d)
            .map(Json::Number)
            .ok_or_else(|| format!("json: unsupported value: {}", ops::go_format(v)))?,
        Value::String(s) => Json::String(s.as_str().to_string()),
        Value::Bytes(b) => {
            use base64::Engine;
            Json::String(base64::engine::general_purpose::STANDARD.encode(b))
        }
        Value::List(l) => Json::Array(
            ops::list_items(l)
                .map_err(|e| e.to_string())?
                .iter()
                .map(to_json)
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(m) => {
            let mut out = JsonMap::new();
            for (k, val) in ops::map_entries(m).map_err(|e| e.to_string())? {
                let Value::String(key) = &k else {
                    return Err(format!(
                        "map key {} is of type {}, not string",
                        ops::go_format(&k),
                        go_native_type(&k)
                    ));
                };
                out.insert(key.as_str().to_string(), to_json(&val)?);
            }
            Json::Object(out)
        }
        Value::Opaque(o) => match o.as_any().downcast_ref::<ObjectVal>() {
            Some(object) => object_to_json(object)?,
            None => return Err(format!("invalid type: {}", go_native_type(v))),
        },
        Value::Duration(_) | Value::Timestamp(_) | Value::Type(_) | Value::Optional(_) => {
            return Err(format!("invalid type: {}", go_native_type(v)));
        }
    })
}

fn json_go_type(v: &Json) -> &'static str {
    match v {
        Json::Object(_) => "map[string]interface {}",
        _ => "interface {}",
    }
}
