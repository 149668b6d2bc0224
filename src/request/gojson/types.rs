//! Go's `json: cannot unmarshal …` errors: a decoded value checked against the Go type kube
//! decodes it into (sigs.k8s.io/json, Go's v1 decoder: case-sensitive names, the first
//! type error reported, errors of custom unmarshalers ending the decoding at once).

use serde_json::{Number, Value};

/// The shape of a Go type, as far as decoding JSON into it can fail.
#[derive(Debug)]
pub enum GoType {
    /// A string type, by its Go name (`string`, `types.UID`).
    Str(&'static str),
    Int64,
    Bool,
    /// metav1.Time: a string in RFC 3339 (or null), decoded by its own UnmarshalJSON.
    Time,
    /// interface{} or raw JSON: anything.
    Any,
    Map(&'static str, &'static GoType),
    Slice(&'static str, &'static GoType),
    /// Struct name (`ObjectMeta`), qualified type (`v1.ObjectMeta`), fields by JSON name.
    Struct(
        &'static str,
        &'static str,
        &'static [(&'static str, GoType)],
    ),
}

use GoType::*;

const STRINGS: GoType = Map("map[string]string", &Str("string"));

/// metav1.Status, as a webhook's answer carries it (an AdmissionResponse's `status`, a
/// ConversionResponse's `result`).
pub const METAV1_STATUS: GoType = Struct(
    "Status",
    "v1.Status",
    &[
        ("kind", Str("string")),
        ("apiVersion", Str("string")),
        ("metadata", Any),
        ("status", Str("string")),
        ("message", Str("string")),
        ("reason", Str("v1.StatusReason")),
        ("details", Any),
        // int32 in Go; the walker knows int64 (texts differ only past int32).
        ("code", Int64),
    ],
);

const OWNER_REFERENCE: GoType = Struct(
    "OwnerReference",
    "v1.OwnerReference",
    &[
        ("apiVersion", Str("string")),
        ("kind", Str("string")),
        ("name", Str("string")),
        ("uid", Str("types.UID")),
        ("controller", Bool),
        ("blockOwnerDeletion", Bool),
    ],
);

const MANAGED_FIELDS_ENTRY: GoType = Struct(
    "ManagedFieldsEntry",
    "v1.ManagedFieldsEntry",
    &[
        ("manager", Str("string")),
        ("operation", Str("v1.ManagedFieldsOperationType")),
        ("apiVersion", Str("string")),
        ("time", Time),
        ("fieldsType", Str("string")),
        ("fieldsV1", Any),
        ("subresource", Str("string")),
    ],
);

/// metav1.ObjectMeta.
pub const OBJECT_META: GoType = Struct(
    "ObjectMeta",
    "v1.ObjectMeta",
    &[
        ("name", Str("string")),
        ("generateName", Str("string")),
        ("namespace", Str("string")),
        ("selfLink", Str("string")),
        ("uid", Str("types.UID")),
        ("resourceVersion", Str("string")),
        ("generation", Int64),
        ("creationTimestamp", Time),
        ("deletionTimestamp", Time),
        ("deletionGracePeriodSeconds", Int64),
        ("labels", STRINGS),
        ("annotations", STRINGS),
        (
            "ownerReferences",
            Slice("[]v1.OwnerReference", &OWNER_REFERENCE),
        ),
        ("finalizers", Slice("[]string", &Str("string"))),
        (
            "managedFields",
            Slice("[]v1.ManagedFieldsEntry", &MANAGED_FIELDS_ENTRY),
        ),
    ],
);

const JSON_PATCH_OP: GoType = Struct(
    "jsonPatchOp",
    "handlers.jsonPatchOp",
    &[
        ("op", Str("string")),
        ("path", Str("string")),
        ("from", Str("string")),
        ("value", Any),
    ],
);

/// k8s.io/apiserver's `[]jsonPatchOp`, a JSON patch as the patch handler reads it.
pub const JSON_PATCH: GoType = Slice("[]handlers.jsonPatchOp", &JSON_PATCH_OP);

/// A merge patch as the patch handler reads it.
pub const MERGE_PATCH: GoType = Map("map[string]interface {}", &Any);

/// Where the decoder is: the innermost struct and the JSON names leading to the value.
#[derive(Clone, Default)]
struct Context {
    strukt: Option<&'static str>,
    fields: Vec<&'static str>,
}

/// How a decoding fails: a type error is remembered and decoding goes on; a custom
/// unmarshaler's error ends it.
enum Failure {
    Saved(String),
    Abort(String),
}

/// The error Go's decoder reports for `value` decoded into `ty`, if any.
pub fn unmarshal_error(value: &Value, ty: &GoType) -> Option<String> {
    let mut saved = None;
    match walk(value, ty, &Context::default(), &mut saved) {
        Err(message) => Some(message),
        Ok(()) => saved,
    }
}

fn walk(
    value: &Value,
    ty: &GoType,
    ctx: &Context,
    saved: &mut Option<String>,
) -> Result<(), String> {
    let failure = match (ty, value) {
        (_, Value::Null) | (Any, _) => None,
        (Str(_), Value::String(_)) | (Bool, Value::Bool(_)) => None,
        (Int64, Value::Number(n)) => {
            let text = number_text(n);
            match text.parse::<i64>() {
                Ok(_) => None,
                Err(_) => Some(Failure::Saved(type_error(
                    &format!("number {text}"),
                    "int64",
                    ctx,
                ))),
            }
        }
        (Time, Value::String(s)) => time_error(s).map(Failure::Abort),
        (Time, other) => Some(Failure::Abort(type_error(kind(other), "string", ctx))),
        (Map(_, elem), Value::Object(map)) => {
            for v in map.values() {
                walk(v, elem, ctx, saved)?;
            }
            None
        }
        (Slice(_, elem), Value::Array(items)) => {
            for v in items {
                walk(v, elem, ctx, saved)?;
            }
            None
        }
        (Struct(name, _, fields), Value::Object(map)) => {
            for (key, v) in map {
                if let Some((json_name, field_ty)) = fields.iter().find(|(n, _)| n == key) {
                    let mut inner = ctx.clone();
                    inner.strukt = Some(name);
                    inner.fields.push(json_name);
                    walk(v, field_ty, &inner, saved)?;
                }
            }
            None
        }
        (ty, other) => Some(Failure::Saved(type_error(kind(other), type_name(ty), ctx))),
    };
    match failure {
        Some(Failure::Abort(message)) => Err(message),
        Some(Failure::Saved(message)) => {
            saved.get_or_insert(message);
            Ok(())
        }
        None => Ok(()),
    }
}

fn type_error(what: &str, ty: &str, ctx: &Context) -> String {
    match ctx.strukt {
        Some(strukt) => format!(
            "json: cannot unmarshal {what} into Go struct field {strukt}.{} of type {ty}",
            ctx.fields.join(".")
        ),
        None => format!("json: cannot unmarshal {what} into Go value of type {ty}"),
    }
}

fn type_name(ty: &GoType) -> &'static str {
    match ty {
        Str(name) | Map(name, _) | Slice(name, _) | Struct(_, name, _) => name,
        Int64 => "int64",
        Bool => "bool",
        Time | Any => "string",
    }
}

/// Go's word for a JSON value's kind in type errors.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A number as kube's decoders see it after a round trip through Go: integers that fit
/// int64 as they are, everything else as Go prints a float64 (`1e+21`, `1.5`).
pub fn number_text(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    crate::gofmt::float_json(n.as_f64().unwrap_or_default())
}

/// metav1.Time's UnmarshalJSON: RFC 3339 as Go's time.Parse reads it. The text is Go's
/// when the year cannot be read; other malformed times get the same outline.
fn time_error(s: &str) -> Option<String> {
    if s.parse::<jiff::Timestamp>().is_ok() && s.len() >= 20 && s.as_bytes()[10] == b'T' {
        return None;
    }
    const LAYOUT: &str = "2006-01-02T15:04:05Z07:00";
    Some(format!(
        "parsing time {s:?} as \"{LAYOUT}\": cannot parse {s:?} as \"2006\""
    ))
}
