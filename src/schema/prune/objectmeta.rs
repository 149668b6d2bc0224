//! `metadata` of custom objects and embedded resources reduced to what `metav1.ObjectMeta`
//! keeps when kube round-trips it through the Go type (apiextensions-apiserver
//! `schema/objectmeta`): unknown fields dropped and reported, empty values omitted.

use serde_json::{Map, Value};

use super::{Path, Recorder};

/// How `ObjectMeta`, `OwnerReference` and `ManagedFieldsEntry` decode and re-encode a
/// field (kube round-trips metadata through the Go type).
#[derive(Clone, Copy)]
enum Field {
    /// An `omitempty` string or integer: dropped when null, `""` or `0`.
    Scalar,
    /// A pointer or raw field: dropped only when null.
    Pointer,
    /// A required string of an owner reference: always present, null reads as `""`.
    Required,
    /// A `metav1.Time`: dropped when null, else RFC 3339 in UTC to the second.
    Time,
    /// A `map[string]string`: null values read as `""`, dropped when empty.
    Strings,
    /// A `[]string`: null items read as `""`, dropped when empty.
    List,
    OwnerReferences,
    ManagedFields,
}

fn object_meta_field(key: &str) -> Option<Field> {
    Some(match key {
        "name" | "generateName" | "namespace" | "selfLink" | "uid" | "resourceVersion"
        | "generation" => Field::Scalar,
        "creationTimestamp" | "deletionTimestamp" => Field::Time,
        "deletionGracePeriodSeconds" => Field::Pointer,
        "labels" | "annotations" => Field::Strings,
        "finalizers" => Field::List,
        "ownerReferences" => Field::OwnerReferences,
        "managedFields" => Field::ManagedFields,
        _ => return None,
    })
}

fn owner_reference_field(key: &str) -> Option<Field> {
    match key {
        "apiVersion" | "kind" | "name" | "uid" => Some(Field::Required),
        "controller" | "blockOwnerDeletion" => Some(Field::Pointer),
        _ => None,
    }
}

fn managed_fields_entry_field(key: &str) -> Option<Field> {
    match key {
        "manager" | "operation" | "apiVersion" | "fieldsType" | "subresource" => {
            Some(Field::Scalar)
        }
        "time" => Some(Field::Time),
        "fieldsV1" => Some(Field::Pointer),
        _ => None,
    }
}

/// Reduces a `metadata` object to what `ObjectMeta` keeps, recording the unknown fields
/// (`metadata.foo`, `metadata.ownerReferences[0].bar`) in key order. Values of the wrong
/// type are left for metadata validation.
pub(super) fn reduce_object_meta(meta: &mut Value, path: &Path, out: &mut Recorder) {
    reduce_struct(meta, object_meta_field, path, out);
}

fn reduce_struct(
    x: &mut Value,
    fields: fn(&str) -> Option<Field>,
    path: &Path,
    out: &mut Recorder,
) {
    let Value::Object(map) = x else {
        return;
    };
    map.retain(|k, v| match fields(k) {
        None => {
            out.record(&Path::Prop(path, k), true);
            false
        }
        Some(field) => keep(field, v, &Path::Prop(path, k), out),
    });
}

/// Normalises one known field; `false` when Go's encoding omits it.
fn keep(field: Field, v: &mut Value, path: &Path, out: &mut Recorder) -> bool {
    match (field, &mut *v) {
        (Field::Required, Value::Null) => {
            *v = Value::String(String::new());
            true
        }
        (_, Value::Null) => false,
        (Field::Scalar, Value::String(s)) => !s.is_empty(),
        (Field::Scalar, Value::Number(n)) => n.as_i64() != Some(0),
        (Field::Time, Value::String(s)) => {
            if let Some(canonical) = canonical_time(s) {
                *s = canonical;
            }
            true
        }
        (Field::Strings, Value::Object(map)) => {
            map.values_mut()
                .filter(|v| v.is_null())
                .for_each(empty_string);
            !map.is_empty()
        }
        (Field::List, Value::Array(items)) => {
            items
                .iter_mut()
                .filter(|v| v.is_null())
                .for_each(empty_string);
            !items.is_empty()
        }
        (Field::OwnerReferences | Field::ManagedFields, Value::Array(items)) => {
            for (i, item) in items.iter_mut().enumerate() {
                if item.is_null() {
                    *item = Value::Object(Map::new());
                }
                let path = Path::Index(path, i);
                if matches!(field, Field::ManagedFields) {
                    reduce_struct(item, managed_fields_entry_field, &path, out);
                } else {
                    reduce_struct(item, owner_reference_field, &path, out);
                    if let Value::Object(owner) = item {
                        for key in ["apiVersion", "kind", "name", "uid"] {
                            owner
                                .entry(key)
                                .or_insert_with(|| Value::String(String::new()));
                        }
                    }
                }
            }
            !items.is_empty()
        }
        _ => true,
    }
}

fn empty_string(v: &mut Value) {
    *v = Value::String(String::new());
}

/// `metav1.Time` as it encodes: RFC 3339 in UTC, whole seconds; `None` when `s` already
/// reads so or does not parse (validation reports that).
fn canonical_time(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.len() == 20 && b[10] == b'T' && b[19] == b'Z' {
        return None;
    }
    let ts: jiff::Timestamp = s.parse().ok()?;
    Some(ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
}
