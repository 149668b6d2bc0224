//! Delete options: preconditions, dry run and propagation, from the query and an optional
//! `DeleteOptions` body.

use serde_json::Value;

use crate::error::{ApiError, ErrorType, FieldError};
use crate::gofmt::quote;
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
}

/// metav1.DeleteOptions as decoded, before validation: from the body when there is one,
/// else from the query (kube reads one or the other, never both).
#[derive(Default)]
struct Decoded {
    orphan_dependents: Option<bool>,
    propagation_policy: Option<String>,
    dry_run: Vec<String>,
    preconditions: Preconditions,
}

impl Decoded {
    /// The parameter codec's reading, fields in the struct's order: gracePeriodSeconds
    /// must be an integer (a 400 with Go's text), the rest are read as they come.
    fn from_query(query: &Query) -> Result<Decoded, ApiError> {
        if let Some(grace) = query.get("gracePeriodSeconds") {
            super::int_param(grace)?;
        }
        Ok(Decoded {
            orphan_dependents: query.get("orphanDependents").map(query_bool),
            propagation_policy: query.get("propagationPolicy").map(str::to_string),
            dry_run: query.all("dryRun").map(str::to_string).collect(),
            preconditions: Preconditions::default(),
        })
    }

    fn from_body(body: &Value) -> Decoded {
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
        let pre = body.get("preconditions").unwrap_or(&Value::Null);
        let dry_run = body.get("dryRun").and_then(Value::as_array);
        Decoded {
            orphan_dependents: body.get("orphanDependents").and_then(Value::as_bool),
            propagation_policy: text(body, "propagationPolicy"),
            dry_run: dry_run
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            preconditions: Preconditions {
                uid: text(pre, "uid"),
                resource_version: text(pre, "resourceVersion"),
            },
        }
    }

    /// `ValidateDeleteOptions`: one 422 listing every problem.
    fn validate(&self) -> Result<(), ApiError> {
        let mut causes = Vec::new();
        if let (Some(_), Some(policy)) = (self.orphan_dependents, &self.propagation_policy) {
            causes.push(FieldError::invalid(
                "propagationPolicy",
                &Value::String(policy.clone()),
                "orphanDependents and deletionPropagation cannot be both set",
            ));
        }
        if let Some(policy) = &self.propagation_policy
            && !matches!(policy.as_str(), "Foreground" | "Background" | "Orphan")
        {
            causes.push(FieldError {
                reason: ErrorType::NotSupported,
                field: "propagationPolicy".into(),
                detail: format!(
                    "Unsupported value: {}: supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
                    quote(policy)
                ),
            });
        }
        if self.dry_run.iter().any(|v| v != "All") {
            let rendered = serde_json::to_string(&self.dry_run).unwrap_or_default();
            causes.push(FieldError {
                reason: ErrorType::NotSupported,
                field: "dryRun".into(),
                detail: format!("Unsupported value: {rendered}: supported values: \"All\""),
            });
        }
        if causes.is_empty() {
            return Ok(());
        }
        Err(ApiError::Invalid {
            group: "meta.k8s.io".into(),
            kind: "DeleteOptions".into(),
            name: String::new(),
            causes,
        })
    }

    fn propagation(&self) -> Propagation {
        match (self.orphan_dependents, self.propagation_policy.as_deref()) {
            (Some(true), _) | (_, Some("Orphan")) => Propagation::Orphan,
            (_, Some("Foreground")) => Propagation::Foreground,
            _ => Propagation::Background,
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
    /// `propagationPolicy` as the client sent it (admission shows the options as sent).
    pub propagation_policy: Option<String>,
}

impl DeleteOptions {
    /// The DeleteOptions body when there is one, else the query; then kube's validation.
    pub fn parse(query: &Query, body: Option<&Value>) -> Result<DeleteOptions, ApiError> {
        let decoded = match body {
            Some(body) => Decoded::from_body(body),
            None => Decoded::from_query(query)?,
        };
        decoded.validate()?;
        Ok(DeleteOptions {
            propagation: decoded.propagation(),
            dry_run: !decoded.dry_run.is_empty(),
            propagation_policy: decoded.propagation_policy.clone(),
            preconditions: decoded.preconditions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(query: &str, body: Option<Value>) -> Result<DeleteOptions, String> {
        DeleteOptions::parse(&Query::parse(query), body.as_ref()).map_err(|e| e.to_string())
    }

    #[test]
    fn parse_query_errors_as_kube() {
        let invalid = "DeleteOptions.meta.k8s.io \"\" is invalid: ";
        let cases = [
            (
                "gracePeriodSeconds=abc&propagationPolicy=Bogus",
                r#"strconv.ParseInt: parsing "abc": invalid syntax"#.to_string(),
            ),
            (
                "propagationPolicy=",
                format!(
                    r#"{invalid}propagationPolicy: Unsupported value: "": supported values: "Foreground", "Background", "Orphan", "nil""#
                ),
            ),
            (
                "propagationPolicy=Orphan&orphanDependents=false",
                format!(
                    r#"{invalid}propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set"#
                ),
            ),
            (
                "propagationPolicy=Bogus&dryRun=x",
                format!(
                    r#"{invalid}[propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil", dryRun: Unsupported value: ["x"]: supported values: "All"]"#
                ),
            ),
        ];
        for (query, want) in cases {
            assert_eq!(parse(query, None).err(), Some(want), "{query}");
        }
    }

    #[test]
    fn parse_body_replaces_query() {
        let body = serde_json::json!({"propagationPolicy": "Foreground", "dryRun": ["All"], "preconditions": {"uid": "u"}});
        let got = parse("propagationPolicy=Bogus&gracePeriodSeconds=x", Some(body)).unwrap();
        assert_eq!(got.propagation, Propagation::Foreground);
        assert!(got.dry_run);
        assert_eq!(got.preconditions.uid.as_deref(), Some("u"));
        let got = parse(
            "orphanDependents=true&gracePeriodSeconds=30&dryRun=All",
            None,
        )
        .unwrap();
        assert_eq!((got.propagation, got.dry_run), (Propagation::Orphan, true));
    }
}
