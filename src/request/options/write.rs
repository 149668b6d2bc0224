//! Options of writes: `dryRun`, `fieldValidation`, `fieldManager` and, for patches, `force`,
//! validated as kube validates Create/Update/PatchOptions.

use super::{forbidden, not_supported};
use crate::error::{ApiError, ErrorType, FieldError};
use crate::request::query::{Query, query_bool};

/// Options of writes (create, update, patch, delete).
#[derive(Debug, Default, Clone)]
pub struct WriteOptions {
    pub dry_run: bool,
    pub field_validation: FieldValidation,
    /// `fieldManager` (empty when absent; the User-Agent then names the manager).
    pub field_manager: String,
    /// `fieldValidation` as sent (empty when absent): admission shows the options as sent.
    pub field_validation_sent: String,
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

impl FieldValidation {
    /// Whether the strict decoders' findings (duplicate and unknown fields) are wanted.
    pub fn reports(self) -> bool {
        self != FieldValidation::Ignore
    }
}

impl WriteOptions {
    /// `dryRun` (only `All`) and `fieldValidation` checked as kube checks them: a 422
    /// naming the options kind (`CreateOptions`, `UpdateOptions`, `PatchOptions`,
    /// `DeleteOptions`).
    /// `dryRun` is a list in kube's options (every value counts); `fieldValidation` is a
    /// string (the first value counts).
    pub fn from_query(query: &Query, options_kind: &str) -> Result<WriteOptions, ApiError> {
        let dry_run: Vec<&str> = query.all("dryRun").collect();
        let field_manager = query.get("fieldManager").unwrap_or_default().to_string();
        // DeleteOptions carry no fieldManager; the others validate it first.
        let mut causes = if options_kind == "DeleteOptions" {
            Vec::new()
        } else {
            field_manager_problems(&field_manager)
        };
        if dry_run.iter().any(|v| *v != "All") {
            let rendered = serde_json::to_string(&dry_run).unwrap_or_default();
            causes.push(FieldError {
                reason: ErrorType::NotSupported,
                field: "dryRun".into(),
                detail: format!("Unsupported value: {rendered}: supported values: \"All\""),
            });
        }
        let field_validation_sent = query.get("fieldValidation").unwrap_or_default();
        let field_validation = match field_validation_sent {
            "" | "Warn" => FieldValidation::Warn,
            "Ignore" => FieldValidation::Ignore,
            "Strict" => FieldValidation::Strict,
            other => {
                causes.push(not_supported(
                    "fieldValidation",
                    other,
                    "\"\", \"Ignore\", \"Strict\", \"Warn\"",
                ));
                FieldValidation::default()
            }
        };
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
            field_manager,
            field_validation_sent: field_validation_sent.to_string(),
        })
    }
}

impl WriteOptions {
    /// `ValidatePatchOptions`: `force` only for apply, `fieldManager` required for it,
    /// then the options every write checks. Returns the options and `force`.
    pub fn for_patch(query: &Query, apply: bool) -> Result<(WriteOptions, bool), ApiError> {
        let force = query.get("force");
        let mut causes = Vec::new();
        if !apply && force.is_some() {
            causes.push(forbidden(
                "force",
                "may not be specified for non-apply patch",
            ));
        }
        if apply && query.get("fieldManager").unwrap_or_default().is_empty() {
            causes.push(FieldError::required(
                "fieldManager",
                "is required for apply patch",
            ));
        }
        let more = match WriteOptions::from_query(query, "PatchOptions") {
            Ok(options) if causes.is_empty() => {
                return Ok((options, force.is_some_and(query_bool)));
            }
            Ok(_) => Vec::new(),
            Err(ApiError::Invalid { causes, .. }) => causes,
            Err(e) => return Err(e),
        };
        causes.extend(more);
        Err(ApiError::Invalid {
            group: "meta.k8s.io".into(),
            kind: "PatchOptions".into(),
            name: String::new(),
            causes,
        })
    }
}

/// `ValidateFieldManager` as field errors on `fieldManager`.
fn field_manager_problems(name: &str) -> Vec<FieldError> {
    use crate::fieldmanager::managed::{FieldManagerError, validate_field_manager};
    validate_field_manager(name)
        .into_iter()
        .map(|e| match e {
            FieldManagerError::TooLong { max } => FieldError {
                reason: ErrorType::TooLong,
                field: "fieldManager".into(),
                detail: format!("Too long: may not be more than {max} bytes"),
            },
            FieldManagerError::Invalid { detail } => FieldError::invalid(
                "fieldManager",
                &serde_json::Value::String(name.to_string()),
                &detail,
            ),
        })
        .collect()
}
