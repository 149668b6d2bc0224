//! What an admission plugin is told about a write (kube's `admission.Attributes`), and
//! what the plugins record on the way (kube's warning recorder and audit annotations).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::{Value, json};

use crate::audit::Level;
use crate::crd::catalog::ServedResource;
use crate::request::options::{DeleteOptions, WriteOptions};
use crate::request::user::UserInfo;

/// The admission operation of a request (kube's `admission.Operation`), as
/// k8s.io/apiserver's handlers name it: `POST` and a server-side apply to a missing
/// object are Create; every other update or patch (`/status` and `/scale` too) is
/// Update; a delete is Delete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
    Delete,
}

impl Operation {
    /// The operation as an AdmissionReview and a webhook rule spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
        }
    }
}

/// The request's options as admission sees them (kube's `GetOperationOptions`): a
/// create's CreateOptions, an update's UpdateOptions (a patch's too: kube's
/// `patchToUpdateOptions`, and `patchToCreateOptions` for an apply that creates), a
/// delete's DeleteOptions.
#[derive(Clone, Copy)]
pub enum Options<'a> {
    Create(&'a WriteOptions),
    Update(&'a WriteOptions),
    Delete(&'a DeleteOptions),
    /// Pure tests: no options.
    None,
}

impl Options<'_> {
    /// The options object as kube serializes it into an AdmissionReview.
    pub fn to_json(self) -> Option<Value> {
        let (kind, write) = match self {
            Options::Create(w) => ("CreateOptions", w),
            Options::Update(w) => ("UpdateOptions", w),
            Options::Delete(d) => return Some(delete_options_json(d)),
            Options::None => return None,
        };
        let mut options = json!({"kind": kind, "apiVersion": "meta.k8s.io/v1"});
        if write.dry_run {
            options["dryRun"] = json!(["All"]);
        }
        if !write.field_manager.is_empty() {
            options["fieldManager"] = json!(write.field_manager);
        }
        if !write.field_validation_sent.is_empty() {
            options["fieldValidation"] = json!(write.field_validation_sent);
        }
        Some(options)
    }
}

fn delete_options_json(options: &DeleteOptions) -> Value {
    let mut out = json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"});
    if options.dry_run {
        out["dryRun"] = json!(["All"]);
    }
    if let Some(policy) = &options.propagation_policy {
        out["propagationPolicy"] = json!(policy);
    }
    out
}

/// A group, version and kind (kube's `schema.GroupVersionKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind<'a> {
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
}

/// One write as the plugins see it.
#[derive(Clone, Copy)]
pub struct Attributes<'a> {
    pub operation: Operation,
    /// The object's namespace; empty for a cluster-scoped resource.
    pub namespace: &'a str,
    /// The request's name (kube's `GetName`): empty on a create by `generateName`, and
    /// on every delete of a deletecollection, as kube's handlers set it.
    pub name: &'a str,
    /// The resource's API group and plural name.
    pub group: &'a str,
    pub resource: &'a str,
    /// The version the request was made in.
    pub version: &'a str,
    /// The kind of the object admitted (the resource's, or `autoscaling/v1` Scale on
    /// `/scale`).
    pub kind: Kind<'a>,
    /// `""`, `status` or `scale`.
    pub subresource: &'a str,
    pub dry_run: bool,
    pub user: &'a UserInfo,
    pub options: Options<'a>,
    /// The stored object an update or delete changes (kube's `GetOldObject`).
    pub old_object: Option<&'a Value>,
    /// The served resource (its versions and schemas), `None` in pure tests.
    pub served: Option<&'a ServedResource>,
    /// Where plugins record warnings and audit annotations.
    pub recorder: &'a Recorder,
    /// When the request must be done (kube's request context deadline): a webhook call
    /// gets the lesser of this and its `timeoutSeconds`.
    pub deadline: Option<Instant>,
}

impl Attributes<'_> {
    /// The name kube's admission refusals show (`extractResourceName`): the request's
    /// name, else the object's name or `generateName`, else `Unknown`.
    pub fn shown_name<'b>(&'b self, object: Option<&'b Value>) -> &'b str {
        if !self.name.is_empty() {
            return self.name;
        }
        let meta = |field: &str| {
            object
                .and_then(|o| o.get("metadata"))
                .and_then(|m| m.get(field))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        meta("name")
            .or_else(|| meta("generateName"))
            .unwrap_or("Unknown")
    }
}

/// What admission recorded for one request: `Warning` headers (kept even when a later
/// plugin refuses, as kube's recorder keeps them) and audit annotations (for the audit
/// log; kept in the order added).
#[derive(Default)]
pub struct Recorder {
    recorded: Mutex<Recorded>,
}

#[derive(Default)]
struct Recorded {
    warnings: Vec<String>,
    /// Each annotation with the least audit level its event must have (kube's
    /// `AddAnnotationWithLevel`: Metadata unless said otherwise).
    annotations: BTreeMap<String, (String, Level)>,
}

impl Recorder {
    pub fn warn(&self, warning: String) {
        self.lock().warnings.push(warning);
    }

    /// kube's `AddAnnotation`: a key set once keeps its first value.
    pub fn annotate(&self, key: String, value: String) {
        self.annotate_at(Level::Metadata, key, value);
    }

    /// kube's `AddAnnotationWithLevel`: the annotation is logged only in events of at
    /// least `level`.
    pub fn annotate_at(&self, level: Level, key: String, value: String) {
        self.lock().annotations.entry(key).or_insert((value, level));
    }

    /// The warnings recorded since the last call.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.lock().warnings)
    }

    /// Every annotation recorded, whatever its level.
    pub fn annotations(&self) -> BTreeMap<String, String> {
        self.annotations_at(Level::RequestResponse)
    }

    /// The annotations an event at `level` carries (kube's `getAnnotations(level)`).
    pub fn annotations_at(&self, level: Level) -> BTreeMap<String, String> {
        let recorded = self.lock();
        recorded
            .annotations
            .iter()
            .filter(|(_, (_, at))| *at <= level)
            .map(|(k, (v, _))| (k.clone(), v.clone()))
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Recorded> {
        self.recorded.lock().unwrap_or_else(|e| e.into_inner())
    }
}
