//! Client-side ↔ server-side apply migration: the `kubectl` applier may take over the
//! fields its last client-side apply set (`lastAppliedManager`), and its applies keep
//! the last-applied annotation current when the object has one (`lastAppliedUpdater`).

use serde_json::{Map, Value};

use super::FieldManager;
use crate::fieldmanager::fieldpath::Set;
use crate::fieldmanager::merge::Conflicts;
use crate::fieldmanager::typed;

/// `LastAppliedConfigAnnotation`.
pub const LAST_APPLIED_CONFIG_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// `ValidateAnnotationsSize`'s limit on all annotations' keys and values together.
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

fn annotations(object: &Value) -> Option<&Map<String, Value>> {
    object.get("metadata")?.get("annotations")?.as_object()
}

/// The non-empty last-applied annotation of `object`.
fn last_applied(object: &Value) -> Option<&str> {
    annotations(object)?
        .get(LAST_APPLIED_CONFIG_ANNOTATION)?
        .as_str()
        .filter(|s| !s.is_empty())
}

/// `hasLastApplied`.
pub fn has_last_applied(object: &Value) -> bool {
    last_applied(object).is_some()
}

/// `buildLastApplied`: the applied object without its own last-applied annotation, as
/// `UnstructuredJSONScheme` encodes it (Go's JSON of YAML-decoded numbers, sorted keys,
/// a trailing newline).
pub fn build_last_applied(applied: &Value) -> String {
    let mut applied = applied.clone();
    if let Some(ann) = applied
        .get_mut("metadata")
        .and_then(|m| m.get_mut("annotations"))
        .and_then(Value::as_object_mut)
    {
        ann.remove(LAST_APPLIED_CONFIG_ANNOTATION);
    }
    format!("{}\n", crate::gofmt::marshal_float64(&applied))
}

/// `SetLastApplied`: sets the annotation, unless the annotations would then exceed
/// 256 KiB, in which case the annotation is dropped.
pub fn set_last_applied(object: &mut Value, value: &str) {
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let ann = meta
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    if !ann.is_object() {
        *ann = Value::Object(Map::new());
    }
    let Some(ann) = ann.as_object_mut() else {
        return;
    };
    ann.insert(
        LAST_APPLIED_CONFIG_ANNOTATION.to_string(),
        Value::String(value.to_string()),
    );
    let size: usize = ann
        .iter()
        .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
        .sum();
    if size > TOTAL_ANNOTATION_SIZE_LIMIT {
        ann.remove(LAST_APPLIED_CONFIG_ANNOTATION);
    }
}

impl FieldManager<'_> {
    /// `allowedConflictsFromLastApplied`: the fields of `live`'s last-applied
    /// configuration whose value `live` still has (client-side apply set them, so the
    /// `kubectl` applier may take them over). `None` when there is no usable annotation.
    pub(super) fn allowed_conflicts_from_last_applied(&self, live: &Value) -> Option<Set> {
        let text = last_applied(live)?;
        let ty = self.type_ref().ok()?;
        typed::validate(ty, live, false).ok()?;
        let applied: Value = serde_json::from_str(text).ok()?;
        let kind = applied.get("kind").and_then(Value::as_str).unwrap_or("");
        let api_version = applied.get("apiVersion").and_then(Value::as_str);
        if !applied.is_object() || kind.is_empty() || api_version != Some(self.api_version) {
            return None;
        }
        typed::validate(ty, &applied, false).ok()?;
        let set = typed::to_field_set(ty, &applied).ok()?;
        let cmp = typed::compare(ty, &applied, live).ok()?;
        Some(
            set.difference(&cmp.modified)
                .difference(&cmp.added)
                .difference(&cmp.removed),
        )
    }
}

/// The conflicts of `conflicts` whose path `allowed` lacks (`conflictsDifference`), or
/// `None` when all of them are allowed.
pub(super) fn disallowed_conflicts(conflicts: &Conflicts, allowed: &Set) -> Option<Conflicts> {
    let rest: Vec<_> = conflicts
        .iter()
        .filter(|c| !allowed.has(c.path.elements()))
        .cloned()
        .collect();
    (!rest.is_empty()).then_some(Conflicts(rest))
}
