//! Query options: list/watch options, write options (dryRun, fieldValidation), delete options.

use std::time::Duration;

use crate::error::{ApiError, ErrorType, FieldError};
use crate::request::info::{RequestInfo, Verb};
use crate::request::query::{Query, query_bool};
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
    /// `fieldManager` (empty when absent; the User-Agent then names the manager).
    pub field_manager: String,
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
    /// Decodes `metav1.ListOptions` as kube's parameter codec does: the first value of each
    /// parameter, fields in the struct's order (the first that fails is the 400).
    pub fn from_query(query: &Query) -> Result<ListOptions, ApiError> {
        let selector_error = |e: &dyn std::fmt::Display| ApiError::BadRequest(e.to_string());
        let label_selector = LabelSelector::parse(query.get("labelSelector").unwrap_or_default())
            .map_err(|e| selector_error(&e))?;
        let field_selector = FieldSelector::parse(query.get("fieldSelector").unwrap_or_default())
            .map_err(|e| selector_error(&e))?;
        let timeout = match query.get("timeoutSeconds") {
            Some(v) => {
                let secs = int_param("timeoutSeconds", v)?;
                (secs > 0).then(|| Duration::from_secs(secs.unsigned_abs()))
            }
            None => None,
        };
        let limit = match query.get("limit") {
            Some(v) => usize::try_from(int_param("limit", v)?.max(0)).unwrap_or(usize::MAX),
            None => 0,
        };
        let resource_version_match = match query.get("resourceVersionMatch").unwrap_or_default() {
            "" => ResourceVersionMatch::Unset,
            "Exact" => ResourceVersionMatch::Exact,
            "NotOlderThan" => ResourceVersionMatch::NotOlderThan,
            other => ResourceVersionMatch::Other(other.to_string()),
        };
        let text = |key| query.get(key).unwrap_or_default().to_owned();
        Ok(ListOptions {
            label_selector,
            field_selector,
            resource_version: text("resourceVersion"),
            resource_version_match,
            limit,
            continue_token: text("continue"),
            allow_watch_bookmarks: query.get("allowWatchBookmarks").is_some_and(query_bool),
            timeout,
            send_initial_events: query.get("sendInitialEvents").map(query_bool),
        })
    }

    /// The options a list, watch or deletecollection is served with, in kube's
    /// `ListResource` order: decoded from the query, validated, the field selector checked
    /// against the resource's `selectable` fields, then narrowed to the request info's name.
    /// Pure, and the same call handlers make, so the authorization table test can hold what
    /// was authorized against what is served.
    pub fn for_request(
        info: &RequestInfo,
        query: &Query,
        selectable: &[&str],
    ) -> Result<ListOptions, ApiError> {
        let mut options = ListOptions::from_query(query)?;
        options.validate(info.verb == Verb::Watch)?;
        options
            .field_selector
            .check_supported(selectable)
            .map_err(|e| ApiError::BadRequest(e.to_string()))?;
        options.restrict_to_name(&info.name)?;
        Ok(options)
    }

    /// kube's `ListResource` for a request whose info carries a name (the deprecated
    /// `/watch/.../{name}` path, or a `metadata.name` field selector): the name joins the
    /// field selector, so the handler serves exactly the object authorization was asked
    /// about. A field selector naming another object is kube's 400.
    fn restrict_to_name(&mut self, name: &str) -> Result<(), ApiError> {
        if name.is_empty() {
            return Ok(());
        }
        if self.field_selector.is_empty() {
            self.field_selector = FieldSelector::exact("metadata.name", name);
            return Ok(());
        }
        match self.field_selector.requires_exact_match("metadata.name") {
            Some(selected) if selected == name => Ok(()),
            _ => Err(ApiError::BadRequest(
                "fieldSelector metadata.name doesn't match requested name".into(),
            )),
        }
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
        let field_validation = match query.get("fieldValidation").unwrap_or_default() {
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

mod delete;
#[cfg(test)]
mod tests;

pub use delete::{DeleteOptions, Preconditions, Propagation};
