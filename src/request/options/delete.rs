//! Delete options: preconditions, dry run and propagation, from the query and an optional
//! `DeleteOptions` body.

use serde_json::Value;

use super::WriteOptions;
use crate::error::ApiError;
use crate::request::query::{Query, query_bool};

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
                    reason: crate::error::ErrorType::NotSupported,
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
    pub fn parse(query: &Query, body: Option<&Value>) -> Result<DeleteOptions, ApiError> {
        let mut o = DeleteOptions {
            dry_run: WriteOptions::from_query(query, "DeleteOptions")?.dry_run,
            ..DeleteOptions::default()
        };
        // orphanDependents (deprecated) is decoded before propagationPolicy, as the
        // fields are ordered in metav1.DeleteOptions; each reads its first value
        if query.get("orphanDependents").is_some_and(query_bool) {
            o.propagation = Propagation::Orphan;
        }
        if let Some(policy) = query.get("propagationPolicy") {
            o.propagation = Propagation::parse(policy)?;
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
