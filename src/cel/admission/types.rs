//! The declared types of the admission variables (k8s.io/apiserver
//! `pkg/admission/plugin/cel/compile.go` `BuildRequestType` and `BuildNamespaceType`):
//! `kubernetes.AdmissionRequest` without `uid`, `object` and `oldObject` (those are
//! variables of their own), and `kubernetes.Namespace` with the fields kube keeps.

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};

use crate::cel::decl::{DeclKind, DeclType, Field, MAX_REQUEST_SIZE_BYTES};
use crate::cel::schema::ListType;

const MIN_STRING_SIZE: i64 = 2;

pub(super) fn scalar(name: &str, kind: DeclKind, min: i64, max: i64) -> Arc<DeclType> {
    Arc::new(DeclType::simple(name, kind, min, max))
}

pub(super) fn string() -> Arc<DeclType> {
    let max = MAX_REQUEST_SIZE_BYTES - 2;
    scalar("string", DeclKind::String, MIN_STRING_SIZE, max)
}

pub(super) fn int() -> Arc<DeclType> {
    scalar("int", DeclKind::Int, 1, 0)
}

pub(super) fn bool_() -> Arc<DeclType> {
    scalar("bool", DeclKind::Bool, 4, 0)
}

pub(super) fn timestamp() -> Arc<DeclType> {
    scalar("timestamp", DeclKind::Timestamp, 21, 32)
}

pub(super) fn list(elem: Arc<DeclType>) -> Arc<DeclType> {
    let max = (MAX_REQUEST_SIZE_BYTES - 2) / (elem.min_serialized_size + 1);
    let kind = DeclKind::List {
        elem,
        list_type: ListType::Atomic,
        map_keys: Vec::new(),
    };
    scalar("list", kind, 2, max)
}

pub(super) fn map(value: Arc<DeclType>) -> Arc<DeclType> {
    let max = (MAX_REQUEST_SIZE_BYTES - 2) / (value.min_serialized_size + 6);
    scalar("map", DeclKind::Map { value }, 2, max)
}

pub(super) fn dyn_() -> Arc<DeclType> {
    let max = MAX_REQUEST_SIZE_BYTES - 2;
    scalar("dyn", DeclKind::Dyn, 1, max)
}

/// An object type named `name`; `(json name, type, required)` per field.
fn object(name: &str, fields: Vec<(&str, Arc<DeclType>, bool)>) -> Arc<DeclType> {
    let fields: BTreeMap<String, Field> = fields
        .into_iter()
        .map(|(json_name, decl, required)| {
            let field = Field {
                json_name: json_name.to_string(),
                decl,
                required,
            };
            (json_name.to_string(), field)
        })
        .collect();
    scalar(name, DeclKind::Object { fields }, 2, 0)
}

/// `kubernetes.AdmissionRequest`.
pub fn request_type() -> &'static Arc<DeclType> {
    static REQUEST: LazyLock<Arc<DeclType>> = LazyLock::new(build_request_type);
    &REQUEST
}

/// `kubernetes.Namespace`.
pub fn namespace_type() -> &'static Arc<DeclType> {
    static NAMESPACE: LazyLock<Arc<DeclType>> = LazyLock::new(build_namespace_type);
    &NAMESPACE
}

fn build_request_type() -> Arc<DeclType> {
    let gvk = object(
        "kubernetes.GroupVersionKind",
        vec![
            ("group", string(), true),
            ("version", string(), true),
            ("kind", string(), true),
        ],
    );
    let gvr = object(
        "kubernetes.GroupVersionResource",
        vec![
            ("group", string(), true),
            ("version", string(), true),
            ("resource", string(), true),
        ],
    );
    let user_info = object(
        "kubernetes.UserInfo",
        vec![
            ("username", string(), false),
            ("uid", string(), false),
            ("groups", list(string()), false),
            ("extra", map(list(string())), false),
        ],
    );
    object(
        "kubernetes.AdmissionRequest",
        vec![
            ("kind", Arc::clone(&gvk), true),
            ("resource", Arc::clone(&gvr), true),
            ("subResource", string(), false),
            ("requestKind", gvk, true),
            ("requestResource", gvr, true),
            ("requestSubResource", string(), false),
            ("name", string(), true),
            ("namespace", string(), false),
            ("operation", string(), true),
            ("userInfo", user_info, true),
            ("dryRun", bool_(), false),
            ("options", dyn_(), false),
        ],
    )
}

fn build_namespace_type() -> Arc<DeclType> {
    let strings = || list(string());
    let spec = object(
        "kubernetes.NamespaceSpec",
        vec![("finalizers", strings(), true)],
    );
    let condition = object(
        "kubernetes.NamespaceCondition",
        vec![
            ("status", string(), true),
            ("type", string(), true),
            ("lastTransitionTime", timestamp(), true),
            ("message", string(), true),
            ("reason", string(), true),
        ],
    );
    let status = object(
        "kubernetes.NamespaceStatus",
        vec![
            ("conditions", list(condition), true),
            ("phase", string(), true),
        ],
    );
    let metadata = object(
        "kubernetes.NamespaceMetadata",
        vec![
            ("name", string(), true),
            ("generateName", string(), true),
            ("namespace", string(), true),
            ("labels", map(string()), true),
            ("annotations", map(string()), true),
            ("UID", string(), true),
            ("creationTimestamp", timestamp(), true),
            ("deletionGracePeriodSeconds", int(), true),
            ("deletionTimestamp", timestamp(), true),
            ("generation", int(), true),
            ("resourceVersion", string(), true),
            ("finalizers", strings(), true),
        ],
    );
    object(
        "kubernetes.Namespace",
        vec![
            ("metadata", metadata, true),
            ("spec", spec, true),
            ("status", status, true),
        ],
    )
}
