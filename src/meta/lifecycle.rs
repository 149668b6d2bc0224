//! What kube does to `metadata` (and `status`) before a create, an update and a status
//! update of a custom resource (registry/customresource strategy + rest.BeforeCreate/Update).

use serde_json::{Value, json};

use super::names;
use super::object::{self as obj, metadata};
use super::validation::{self, NameRule};
use crate::error::FieldError;

/// Facts about the target a write needs.
pub struct WriteTarget<'a> {
    /// The namespace from the URL (`None` for cluster-scoped resources).
    pub namespace: Option<&'a str>,
    /// Whether the version has the status subresource (status is then written only via /status).
    pub status_subresource: bool,
}

/// Fills and checks metadata on create: name from generateName, uid, creationTimestamp,
/// generation 1; clears what clients may not set; drops status when /status exists.
pub fn prepare_create(object: &mut Value, target: &WriteTarget<'_>) -> Result<(), Vec<FieldError>> {
    if obj::name(object).is_empty() {
        let base = obj::meta_str(object, "generateName");
        if base.is_empty() {
            return Err(vec![FieldError::required(
                "metadata.name",
                "name or generateName is required",
            )]);
        }
        let generated = names::generate_name(base);
        obj::set_meta(object, "name", Some(json!(generated)));
    }
    obj::set_meta(object, "namespace", target.namespace.map(|ns| json!(ns)));
    obj::set_meta(object, "uid", Some(json!(uuid::Uuid::new_v4().to_string())));
    obj::set_meta(object, "creationTimestamp", Some(json!(obj::now_rfc3339())));
    obj::set_meta(object, "generation", Some(json!(1)));
    for cleared in [
        "resourceVersion",
        "selfLink",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ] {
        obj::set_meta(object, cleared, None);
    }
    if target.status_subresource
        && let Some(map) = object.as_object_mut()
    {
        map.remove("status");
    }
    let errors = validation::validate_create(object, NameRule::DnsSubdomain);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Carries over what an update may not change and bumps generation as kube does: on any
/// change outside `metadata` (and outside `status` when the status subresource exists);
/// then kube's metadata rules for updates.
pub fn prepare_update(
    new: &mut Value,
    old: &Value,
    target: &WriteTarget<'_>,
) -> Result<(), Vec<FieldError>> {
    // BeforeUpdate: the stored uid when the body names none; a different one is refused.
    if obj::uid(new).is_empty() {
        obj::set_meta(new, "uid", Some(json!(obj::uid(old))));
    }
    for kept in [
        "creationTimestamp",
        "generation",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ] {
        let value = metadata(old).and_then(|m| m.get(kept)).cloned();
        obj::set_meta(new, kept, value);
    }
    obj::set_meta(new, "namespace", target.namespace.map(|ns| json!(ns)));
    obj::set_meta(new, "selfLink", None);
    if target.status_subresource {
        copy_top_level(new, old, "status");
    }
    if non_metadata(new, target.status_subresource) != non_metadata(old, target.status_subresource)
    {
        obj::set_meta(new, "generation", Some(json!(obj::generation(old) + 1)));
    }
    let errors = validation::validate_update(new, old);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// The UID precondition kube's update takes from a PUT body (main resource and /status):
/// when the body names another uid than the stored object's, the storage layer's
/// `AdditionalErrorMsg` of its 409 (see `Target::precondition_failed`).
pub fn uid_precondition_failure(body: &Value, stored: &Value) -> Option<String> {
    let (requested, actual) = (obj::uid(body), obj::uid(stored));
    (!requested.is_empty() && requested != actual).then(|| {
        format!(
            "Precondition failed: UID in precondition: {requested}, UID in object meta: {actual}"
        )
    })
}

/// A write to `/status`: the stored object with only `.status` taken from the request.
pub fn prepare_status_update(new: &Value, old: &Value) -> Value {
    let mut result = old.clone();
    copy_top_level(&mut result, new, "status");
    result
}

/// Sets `to[field]` to `from[field]`, or removes it when `from` lacks it.
fn copy_top_level(to: &mut Value, from: &Value, field: &str) {
    let value = from.get(field).cloned();
    if let Some(map) = to.as_object_mut() {
        match value {
            Some(v) => {
                map.insert(field.to_string(), v);
            }
            None => {
                map.remove(field);
            }
        }
    }
}

/// The object without `metadata` (and `status` when the status subresource exists).
fn non_metadata(object: &Value, status_subresource: bool) -> Value {
    let mut copy = object.clone();
    if let Some(map) = copy.as_object_mut() {
        map.remove("metadata");
        if status_subresource {
            map.remove("status");
        }
    }
    copy
}

/// Adds a finalizer unless present (the garbage collector's `orphan`/`foregroundDeletion`).
pub fn add_finalizer(object: &mut Value, finalizer: &str) {
    let mut finalizers = obj::finalizers(object);
    if !finalizers.iter().any(|f| f == finalizer) {
        finalizers.push(finalizer.to_string());
        obj::set_meta(object, "finalizers", Some(json!(finalizers)));
    }
}

/// Marks an object for deletion (finalizers pending): deletionTimestamp now, grace 0.
pub fn mark_deleted(object: &mut Value) {
    if !obj::is_being_deleted(object) {
        obj::set_meta(object, "deletionTimestamp", Some(json!(obj::now_rfc3339())));
        obj::set_meta(object, "deletionGracePeriodSeconds", Some(json!(0)));
        // kube bumps generation when graceful deletion starts.
        let generation = obj::generation(object);
        if generation > 0 {
            obj::set_meta(object, "generation", Some(json!(generation + 1)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(status: bool) -> WriteTarget<'static> {
        WriteTarget {
            namespace: Some("default"),
            status_subresource: status,
        }
    }

    #[test]
    fn prepare_create_generate_name_fills_metadata() {
        let mut o = json!({"metadata": {"generateName": "web-", "resourceVersion": "9"}, "status": {"a": 1}});
        prepare_create(&mut o, &target(true)).unwrap();
        let name = obj::name(&o);
        assert!(name.starts_with("web-") && name.len() == 9, "{name}");
        assert_eq!(o["metadata"]["generation"], 1);
        assert_eq!(o["metadata"]["namespace"], "default");
        assert!(o["metadata"].get("resourceVersion").is_none());
        assert!(
            o.get("status").is_none(),
            "status is dropped when /status exists"
        );
        assert_eq!(obj::uid(&o).len(), 36);
    }

    #[test]
    fn prepare_create_without_name_is_required() {
        let mut o = json!({"metadata": {}});
        let errs = prepare_create(&mut o, &target(false)).unwrap_err();
        assert_eq!(
            errs[0].message(),
            "metadata.name: Required value: name or generateName is required"
        );
    }

    #[test]
    fn prepare_update_generation_bumps_as_kube() {
        let old = json!({"metadata": {"name": "a", "uid": "u", "generation": 3}, "spec": {"x": 1}, "status": {"s": 1}});
        let cases = [
            (
                "spec change",
                json!({"metadata": {"name": "a"}, "spec": {"x": 2}}),
                true,
                4,
                json!({"s": 1}),
            ),
            (
                "label only",
                json!({"metadata": {"name": "a", "labels": {"k": "v"}}, "spec": {"x": 1}}),
                true,
                3,
                json!({"s": 1}),
            ),
            (
                "status ignored with subresource",
                json!({"metadata": {"name": "a"}, "spec": {"x": 1}, "status": {"s": 2}}),
                true,
                3,
                json!({"s": 1}),
            ),
            (
                "status counts without subresource",
                json!({"metadata": {"name": "a"}, "spec": {"x": 1}, "status": {"s": 2}}),
                false,
                4,
                json!({"s": 2}),
            ),
        ];
        for (name, mut new, status, generation, want_status) in cases {
            prepare_update(&mut new, &old, &target(status)).unwrap();
            assert_eq!(new["metadata"]["generation"], generation, "{name}");
            assert_eq!(new["status"], want_status, "{name}");
            assert_eq!(new["metadata"]["uid"], "u", "{name}");
        }
    }

    #[test]
    fn prepare_update_new_finalizer_while_deleting_forbidden() {
        let old = json!({"metadata": {"name": "a", "deletionTimestamp": "2024-01-01T00:00:00Z", "finalizers": ["x"]}});
        let mut new = json!({"metadata": {"name": "a", "finalizers": ["x", "y"]}});
        let errs = prepare_update(&mut new, &old, &target(false)).unwrap_err();
        assert_eq!(errs[0].field, "metadata.finalizers");
    }

    #[test]
    fn uid_precondition_failure_names_both_uids() {
        let stored = json!({"metadata": {"uid": "u1"}});
        let got = uid_precondition_failure(&json!({"metadata": {"uid": "u2"}}), &stored);
        assert_eq!(
            got.as_deref(),
            Some("Precondition failed: UID in precondition: u2, UID in object meta: u1")
        );
        assert_eq!(
            uid_precondition_failure(&json!({"metadata": {}}), &stored),
            None
        );
        assert_eq!(uid_precondition_failure(&stored, &stored), None);
    }

    #[test]
    fn prepare_status_update_takes_only_status() {
        let old = json!({"metadata": {"name": "a", "labels": {"k": "v"}}, "spec": {"x": 1}});
        let new = json!({"metadata": {"name": "a"}, "spec": {"x": 9}, "status": {"ok": true}});
        let got = prepare_status_update(&new, &old);
        assert_eq!(got["spec"]["x"], 1);
        assert_eq!(got["status"]["ok"], true);
        assert_eq!(got["metadata"]["labels"]["k"], "v");
    }
}
