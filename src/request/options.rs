//! Query options: list/watch options, write options (dryRun, fieldValidation), delete options.

use std::time::Duration;

use serde_json::Value;

use crate::error::{ApiError, ErrorType, FieldError};
use crate::request::query::query_bool;
use crate::selector::field::FieldSelector;
use crate::selector::label::LabelSelector;

/// `resourceVersionMatch` on lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceVersionMatch {
    Unset,
    Exact,
    NotOlderThan,
    /// Anything else; rejected by [`ListOptions::validate`] with kube's 422.
    Other(String),
}

/// Options of list and watch requests (metav1.ListOptions).
#[derive(Debug, Clone)]
pub struct ListOptions {
    pub label_selector: LabelSelector,
    pub field_selector: FieldSelector,
    pub resource_version: String,
    pub resource_version_match: ResourceVersionMatch,
    pub limit: usize,
    pub continue_token: String,
    pub allow_watch_bookmarks: bool,
    pub timeout: Option<Duration>,
    pub send_initial_events: Option<bool>,
}

impl ResourceVersionMatch {
    fn as_str(&self) -> &str {
        match self {
            ResourceVersionMatch::Unset => "",
            ResourceVersionMatch::Exact => "Exact",
            ResourceVersionMatch::NotOlderThan => "NotOlderThan",
            ResourceVersionMatch::Other(s) => s,
        }
    }
}

fn forbidden(field: &str, detail: &str) -> FieldError {
    FieldError::forbidden(field, detail)
}

fn not_supported(field: &str, value: &str, supported: &str) -> FieldError {
    FieldError {
        reason: ErrorType::NotSupported,
        field: field.to_string(),
        detail: format!("Unsupported value: {value:?}: supported values: {supported}"),
    }
}

impl ListOptions {
    /// kube's ListOptions validation (apimachinery metainternalversion/validation):
    /// a 422 `ListOptions.meta.k8s.io "" is invalid` listing every problem.
    pub fn validate(&self, watch: bool) -> Result<(), ApiError> {
        let causes = if watch {
            self.watch_problems()
        } else {
            self.list_problems()
        };
        if causes.is_empty() {
            return Ok(());
        }
        Err(ApiError::Invalid {
            group: "meta.k8s.io".into(),
            kind: "ListOptions".into(),
            name: String::new(),
            causes,
        })
    }

    fn list_problems(&self) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let m = &self.resource_version_match;
        if *m != ResourceVersionMatch::Unset {
            if self.resource_version.is_empty() {
                errs.push(forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden unless resourceVersion is provided",
                ));
            }
            if !self.continue_token.is_empty() {
                errs.push(forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden when continue is provided",
                ));
            }
            if let ResourceVersionMatch::Other(v) = m {
                errs.push(not_supported(
                    "resourceVersionMatch",
                    v,
                    "\"Exact\", \"NotOlderThan\", \"\"",
                ));
            }
            if *m == ResourceVersionMatch::Exact && self.resource_version == "0" {
                errs.push(forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                ));
            }
        }
        if self.send_initial_events.is_some() {
            errs.push(forbidden(
                "sendInitialEvents",
                "sendInitialEvents is forbidden for list",
            ));
        }
        errs
    }

    fn watch_problems(&self) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let m = &self.resource_version_match;
        if self.send_initial_events.is_some() {
            if *m != ResourceVersionMatch::NotOlderThan {
                errs.push(forbidden(
                    "resourceVersionMatch",
                    "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                ));
            }
            if !self.allow_watch_bookmarks {
                errs.push(forbidden(
                    "allowWatchBookmarks",
                    "sendInitialEvents requires setting allowWatchBookmarks to true",
                ));
            }
        }
        if *m != ResourceVersionMatch::Unset {
            if self.send_initial_events.is_none() {
                errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
            }
            if *m != ResourceVersionMatch::NotOlderThan {
                errs.push(not_supported(
                    "resourceVersionMatch",
                    m.as_str(),
                    "\"NotOlderThan\"",
                ));
            }
            if !self.continue_token.is_empty() {
                errs.push(forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden when continue is provided",
                ));
            }
        }
        errs
    }
}

/// Options of writes (create, update, patch, delete).
#[derive(Debug, Default, Clone)]
pub struct WriteOptions {
    pub dry_run: bool,
    pub field_validation: FieldValidation,
}

/// `fieldValidation`: what a write does with fields the schema does not know and with
/// duplicate fields. An empty or absent directive means `Warn`, as in kube.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum FieldValidation {
    Ignore,
    #[default]
    Warn,
    Strict,
}

fn int_param(name: &str, value: &str) -> Result<i64, ApiError> {
    value.parse::<i64>().map_err(|_| {
        ApiError::BadRequest(format!(
            "invalid value for {name}: strconv.ParseInt: parsing {value:?}: invalid syntax"
        ))
    })
}

impl ListOptions {
    pub fn from_query(pairs: &[(String, String)]) -> Result<ListOptions, ApiError> {
        let mut o = ListOptions {
            label_selector: LabelSelector::default(),
            field_selector: FieldSelector::default(),
            resource_version: String::new(),
            resource_version_match: ResourceVersionMatch::Unset,
            limit: 0,
            continue_token: String::new(),
            allow_watch_bookmarks: false,
            timeout: None,
            send_initial_events: None,
        };
        for (k, v) in pairs {
            match k.as_str() {
                "labelSelector" => {
                    o.label_selector =
                        LabelSelector::parse(v).map_err(|e| ApiError::BadRequest(e.to_string()))?
                }
                "fieldSelector" => {
                    o.field_selector =
                        FieldSelector::parse(v).map_err(|e| ApiError::BadRequest(e.to_string()))?
                }
                "resourceVersion" => o.resource_version = v.clone(),
                "resourceVersionMatch" => {
                    o.resource_version_match = match v.as_str() {
                        "" => ResourceVersionMatch::Unset,
                        "Exact" => ResourceVersionMatch::Exact,
                        "NotOlderThan" => ResourceVersionMatch::NotOlderThan,
                        other => ResourceVersionMatch::Other(other.to_string()),
                    }
                }
                "limit" => o.limit = int_param("limit", v)?.max(0) as usize,
                "continue" => o.continue_token = v.clone(),
                "allowWatchBookmarks" => o.allow_watch_bookmarks = query_bool(v),
                "timeoutSeconds" => {
                    let secs = int_param("timeoutSeconds", v)?;
                    o.timeout = (secs > 0).then(|| Duration::from_secs(secs as u64));
                }
                "sendInitialEvents" => o.send_initial_events = Some(query_bool(v)),
                _ => {}
            }
        }
        Ok(o)
    }
}

impl WriteOptions {
    /// `dryRun` (only `All`) and `fieldValidation` checked as kube checks them: a 422
    /// naming the options kind (`CreateOptions`, `UpdateOptions`, `PatchOptions`,
    /// `DeleteOptions`).
    pub fn from_query(
        pairs: &[(String, String)],
        options_kind: &str,
    ) -> Result<WriteOptions, ApiError> {
        let dry_run: Vec<&str> = pairs
            .iter()
            .filter(|(k, _)| k == "dryRun")
            .map(|(_, v)| v.as_str())
            .collect();
        let mut causes = Vec::new();
        if dry_run.iter().any(|v| *v != "All") {
            let rendered = serde_json::to_string(&dry_run).unwrap_or_default();
            causes.push(FieldError {
                reason: ErrorType::NotSupported,
                field: "dryRun".into(),
                detail: format!("Unsupported value: {rendered}: supported values: \"All\""),
            });
        }
        let mut field_validation = FieldValidation::default();
        for (_, v) in pairs.iter().filter(|(k, _)| k == "fieldValidation") {
            match v.as_str() {
                "" | "Warn" => field_validation = FieldValidation::Warn,
                "Ignore" => field_validation = FieldValidation::Ignore,
                "Strict" => field_validation = FieldValidation::Strict,
                _ => causes.push(not_supported(
                    "fieldValidation",
                    v,
                    "\"\", \"Ignore\", \"Strict\", \"Warn\"",
                )),
            }
        }
        if !causes.is_empty() {
            return Err(ApiError::Invalid {
                group: "meta.k8s.io".into(),
                kind: options_kind.into(),
                name: String::new(),
                causes,
            });
        }
        Ok(WriteOptions {
            dry_run: !dry_run.is_empty(),
            field_validation,
        })
    }
}

/// Preconditions of a delete (metav1.DeleteOptions.preconditions).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Preconditions {
    pub uid: Option<String>,
    pub resource_version: Option<String>,
}

/// What happens to dependents: kube's garbage collector acts on the finalizer an
/// Orphan or Foreground deletion leaves on the object.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    #[default]
    Background,
    Orphan,
    Foreground,
}

impl Propagation {
    /// The finalizer kube adds for this policy.
    pub fn finalizer(self) -> Option<&'static str> {
        match self {
            Propagation::Background => None,
            Propagation::Orphan => Some("orphan"),
            Propagation::Foreground => Some("foregroundDeletion"),
        }
    }

    fn parse(value: &str) -> Result<Propagation, ApiError> {
        match value {
            "" | "Background" => Ok(Propagation::Background),
            "Orphan" => Ok(Propagation::Orphan),
            "Foreground" => Ok(Propagation::Foreground),
            other => Err(ApiError::Invalid {
                group: "meta.k8s.io".into(),
                kind: "DeleteOptions".into(),
                name: String::new(),
                causes: vec![crate::error::FieldError {
                    reason: ErrorType::NotSupported,
                    field: "propagationPolicy".into(),
                    detail: format!(
                        "Unsupported value: {other:?}: supported values: \"Foreground\", \"Background\", \"Orphan\""
                    ),
                }],
            }),
        }
    }
}

/// What a delete request asks for: preconditions, dry run and propagation, from the
/// body or the query.
#[derive(Debug, Default, Clone)]
pub struct DeleteOptions {
    pub preconditions: Preconditions,
    pub dry_run: bool,
    pub propagation: Propagation,
}

impl DeleteOptions {
    /// Query parameters first, then an optional DeleteOptions body.
    pub fn parse(
        pairs: &[(String, String)],
        body: Option<&Value>,
    ) -> Result<DeleteOptions, ApiError> {
        let mut o = DeleteOptions {
            dry_run: WriteOptions::from_query(pairs, "DeleteOptions")?.dry_run,
            ..DeleteOptions::default()
        };
        for (k, v) in pairs {
            match k.as_str() {
                "propagationPolicy" => o.propagation = Propagation::parse(v)?,
                "orphanDependents" if query_bool(v) => o.propagation = Propagation::Orphan,
                _ => {}
            }
        }
        let Some(body) = body else { return Ok(o) };
        if let Some(policy) = body.get("propagationPolicy").and_then(Value::as_str) {
            o.propagation = Propagation::parse(policy)?;
        }
        if body.get("orphanDependents").and_then(Value::as_bool) == Some(true) {
            o.propagation = Propagation::Orphan;
        }
        if let Some(pre) = body.get("preconditions") {
            o.preconditions.uid = pre.get("uid").and_then(Value::as_str).map(str::to_string);
            o.preconditions.resource_version = pre
                .get("resourceVersion")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        if let Some(dry) = body.get("dryRun").and_then(Value::as_array) {
            o.dry_run |= dry.iter().any(|v| v == "All");
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests;
