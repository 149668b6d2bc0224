//! Query options: list/watch options, write options (dryRun, fieldValidation), delete options.

use std::time::Duration;

use crate::error::{ApiError, ErrorType, FieldError};
use crate::gofmt::quote;
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

    /// `validateWatchOptions` after `SetListOptionsDefaults` (WatchList on, as in 1.36): a
    /// legacy watch (no resourceVersion or `0`, neither sendInitialEvents nor
    /// resourceVersionMatch) is judged as one sending initial events from NotOlderThan.
    fn watch_problems(&self) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let legacy = matches!(self.resource_version.as_str(), "" | "0");
        let defaulted = self.send_initial_events.is_none()
            && self.resource_version_match == ResourceVersionMatch::Unset
            && legacy;
        let (send_initial_events, m) = match defaulted {
            true => (Some(true), &ResourceVersionMatch::NotOlderThan),
            false => (self.send_initial_events, &self.resource_version_match),
        };
        if send_initial_events.is_some() && *m != ResourceVersionMatch::NotOlderThan {
            errs.push(forbidden(
                "resourceVersionMatch",
                "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
            ));
        }
        if *m != ResourceVersionMatch::Unset {
            if send_initial_events.is_none() {
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

/// A get's `resourceVersion` as kube's storage parses it: unparsable, it is kube's 500
/// with storage's text; we answer that text with a 400 (issue 12 keeps the deviation).
pub fn check_get_resource_version(query: &Query) -> Result<(), ApiError> {
    let rv = query.get("resourceVersion").unwrap_or_default();
    parse_resource_version(rv)
        .map(|_| ())
        .map_err(ApiError::BadRequest)
}

/// An integer parameter as the parameter codec decodes it (Go's `strconv.ParseInt`): a
/// failure is a 400 with Go's `NumError` text alone.
pub(crate) fn int_param(value: &str) -> Result<i64, ApiError> {
    value
        .parse::<i64>()
        .map_err(|e| ApiError::BadRequest(num_error("ParseInt", value, &e)))
}

/// Go's `strconv.NumError` text: `strconv.<func>: parsing "<value>": <why>`.
fn num_error(func: &str, value: &str, err: &std::num::ParseIntError) -> String {
    use std::num::IntErrorKind;
    let why = match err.kind() {
        IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => "value out of range",
        _ => "invalid syntax",
    };
    format!("strconv.{func}: parsing {}: {why}", quote(value))
}

/// `APIObjectVersioner.ParseResourceVersion`: empty and `0` are none; anything else must
/// be an unsigned integer, else storage's Invalid error text (`resourceVersion: Invalid
/// value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`).
pub fn parse_resource_version(value: &str) -> Result<u64, String> {
    if value.is_empty() || value == "0" {
        return Ok(0);
    }
    // ParseUint takes no sign, which Rust's parser would.
    let parsed = match value.strip_prefix('+') {
        Some(_) => "x".parse::<u64>(),
        None => value.parse::<u64>(),
    };
    parsed.map_err(|e| {
        let cause = FieldError::invalid(
            "resourceVersion",
            &serde_json::Value::String(value.to_string()),
            &num_error("ParseUint", value, &e),
        );
        cause.message()
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
                let secs = int_param(v)?;
                (secs > 0).then(|| Duration::from_secs(secs.unsigned_abs()))
            }
            None => None,
        };
        let limit = match query.get("limit") {
            Some(v) => usize::try_from(int_param(v)?.max(0)).unwrap_or(usize::MAX),
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
        options.check_versions(info.verb == Verb::Watch)?;
        Ok(options)
    }

    /// What kube's storage checks before reading (`storage.ValidateListOptions`): a list's
    /// continue token decodes and comes without a resourceVersion; otherwise the
    /// resourceVersion parses. A watch's unparsable resourceVersion is kube's 500; we
    /// answer 400 as for a list (issue 12 keeps that deviation).
    fn check_versions(&self, watch: bool) -> Result<(), ApiError> {
        let rv = self.resource_version.as_str();
        if !watch && !self.continue_token.is_empty() {
            crate::request::continuation::decode(&self.continue_token)?;
            if !rv.is_empty() && rv != "0" {
                return Err(ApiError::BadRequest(
                    "specifying resource version is not allowed when using continue".into(),
                ));
            }
            return Ok(());
        }
        parse_resource_version(rv).map(|_| ()).map_err(|e| {
            ApiError::BadRequest(match watch {
                true => e,
                false => format!("invalid resource version: {e}"),
            })
        })
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

mod delete;
#[cfg(test)]
mod tests;
mod timeout;
mod write;

pub use delete::{DeleteOptions, Preconditions, Propagation};
pub use timeout::request_timeout;
pub use write::{FieldValidation, WriteOptions};
