//! Impersonation stage (after authentication, before authorization), as k8s.io/apiserver's
//! `WithImpersonation`: `Impersonate-User`, `Impersonate-Group`, `Impersonate-Uid` and
//! `Impersonate-Extra-<key>` ask to act as someone else. Each thing asked for is one
//! authorization check of the verb `impersonate` by the authenticated user:
//!
//! | header                     | resource              | group                   | name      |
//! |----------------------------|-----------------------|-------------------------|-----------|
//! | user `system:serviceaccount:<ns>:<n>` | `serviceaccounts` (namespace `<ns>`) | `""` | `<n>` |
//! | any other user             | `users`               | `""`                    | the user  |
//! | each group                 | `groups`              | `""`                    | the group |
//! | each extra value           | `userextras/<key>`    | `authentication.k8s.io` | the value |
//! | uid                        | `uids`                | `authentication.k8s.io` | the uid   |
//!
//! The first refusal is kube's 403 for that check; when all pass the request runs as the
//! impersonated user (service accounts get their groups when no group is given;
//! `system:authenticated` or, for `system:anonymous`, `system:unauthenticated` is added).
//! Groups, extra or a uid without a user is kube's plain-text 500. The `Impersonate-*`
//! headers are removed so no handler sees them.

use std::collections::BTreeMap;

use http::HeaderMap;

use super::{Authorizer, Verdict, forbidden};
use crate::error::ApiError;
use crate::request::info::{RequestInfo, Subresource, Verb};
use crate::request::query::unescape;
use crate::request::user::UserInfo;
use crate::validation::{is_dns1123_label, is_dns1123_subdomain};

const USER: &str = "impersonate-user";
const GROUP: &str = "impersonate-group";
const UID: &str = "impersonate-uid";
const EXTRA_PREFIX: &str = "impersonate-extra-";
const SERVICE_ACCOUNT_PREFIX: &str = "system:serviceaccount:";
const ANONYMOUS: &str = "system:anonymous";
const AUTHENTICATED: &str = "system:authenticated";
const UNAUTHENTICATED: &str = "system:unauthenticated";
const AUTHENTICATION_GROUP: &str = "authentication.k8s.io";

/// One identity the requestor asks to act as (upstream's `ObjectReference` per request).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Impersonated {
    ServiceAccount { namespace: String, name: String },
    User(String),
    Group(String),
    Extra { key: String, value: String },
    Uid(String),
}

/// Why an impersonation request did not go through.
#[derive(Debug, thiserror::Error)]
pub enum ImpersonationError {
    /// Groups, extra or a uid without `Impersonate-User`; upstream answers a plain-text 500.
    #[error("requested {0} without impersonating a user")]
    WithoutUser(String),
    /// The requestor may not impersonate one of them: kube's 403 for that check.
    #[error(transparent)]
    Forbidden(ApiError),
}

/// The impersonation requests in `headers`, in upstream's order: user, groups, extra, uid.
pub fn requests(headers: &HeaderMap) -> Result<Vec<Impersonated>, ImpersonationError> {
    let text = |v: &http::HeaderValue| String::from_utf8_lossy(v.as_bytes()).into_owned();
    let mut found = Vec::new();
    let user = headers.get(USER).map(text).unwrap_or_default();
    if !user.is_empty() {
        found.push(match split_service_account(&user) {
            Some((namespace, name)) => Impersonated::ServiceAccount { namespace, name },
            None => Impersonated::User(user.clone()),
        });
    }
    found.extend(
        headers
            .get_all(GROUP)
            .iter()
            .map(|v| Impersonated::Group(text(v))),
    );
    // Go's map order is random; sorted keys make the first refusal deterministic
    let mut extra: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, value) in headers {
        if let Some(raw_key) = name.as_str().strip_prefix(EXTRA_PREFIX) {
            // always recorded, even when the escape is malformed (upstream's unescapeExtraKey)
            let key = unescape(raw_key, false).unwrap_or_else(|| raw_key.to_owned());
            extra.entry(key).or_default().push(text(value));
        }
    }
    for (key, values) in extra {
        found.extend(values.into_iter().map(|value| Impersonated::Extra {
            key: key.clone(),
            value,
        }));
    }
    let uid = headers.get(UID).map(text).unwrap_or_default();
    if !uid.is_empty() {
        found.push(Impersonated::Uid(uid));
    }
    if user.is_empty() && !found.is_empty() {
        let rendered: Vec<String> = found.iter().map(Impersonated::go_value).collect();
        return Err(ImpersonationError::WithoutUser(format!(
            "[{}]",
            rendered.join(" ")
        )));
    }
    Ok(found)
}

/// `system:serviceaccount:<namespace>:<name>` with a valid namespace (RFC 1123 label) and
/// name (RFC 1123 subdomain), as upstream's `serviceaccount.SplitUsername`.
fn split_service_account(user: &str) -> Option<(String, String)> {
    let rest = user.strip_prefix(SERVICE_ACCOUNT_PREFIX)?;
    let (namespace, name) = rest.split_once(':')?;
    let valid = !name.contains(':')
        && is_dns1123_label(namespace).is_empty()
        && is_dns1123_subdomain(name).is_empty();
    valid.then(|| (namespace.to_owned(), name.to_owned()))
}

impl Impersonated {
    /// The attributes of the `impersonate` check for this request.
    pub fn attributes(&self) -> RequestInfo {
        let (group, version, namespace, resource, subresource, name) = match self {
            Impersonated::ServiceAccount { namespace, name } => (
                "",
                "",
                namespace.as_str(),
                "serviceaccounts",
                "",
                name.as_str(),
            ),
            Impersonated::User(name) => ("", "", "", "users", "", name.as_str()),
            Impersonated::Group(name) => ("", "", "", "groups", "", name.as_str()),
            Impersonated::Extra { key, value } => (
                AUTHENTICATION_GROUP,
                "v1",
                "",
                "userextras",
                key.as_str(),
                value.as_str(),
            ),
            Impersonated::Uid(uid) => (AUTHENTICATION_GROUP, "v1", "", "uids", "", uid.as_str()),
        };
        RequestInfo {
            is_resource_request: true,
            path: String::new(),
            verb: Verb::Impersonate,
            api_prefix: String::new(),
            api_group: group.to_owned(),
            api_version: version.to_owned(),
            namespace: namespace.to_owned(),
            resource: resource.to_owned(),
            subresource: Subresource::parse(subresource),
            name: name.to_owned(),
            parts: Vec::new(),
            field_selector: String::new(),
            label_selector: String::new(),
        }
    }

    /// Go's `%v` of the `v1.ObjectReference` upstream builds: `{Kind Namespace Name UID
    /// APIVersion ResourceVersion FieldPath}`.
    fn go_value(&self) -> String {
        let v1 = "authentication.k8s.io/v1";
        let (kind, namespace, name, api_version, field_path) = match self {
            Impersonated::ServiceAccount { namespace, name } => {
                ("ServiceAccount", namespace.as_str(), name.as_str(), "", "")
            }
            Impersonated::User(name) => ("User", "", name.as_str(), "", ""),
            Impersonated::Group(name) => ("Group", "", name.as_str(), "", ""),
            Impersonated::Extra { key, value } => {
                ("UserExtra", "", value.as_str(), v1, key.as_str())
            }
            Impersonated::Uid(uid) => ("UID", "", uid.as_str(), v1, ""),
        };
        format!("{{{kind} {namespace} {name}  {api_version}  {field_path}}}")
    }
}

/// The user the requests describe, with the implied groups added as upstream does.
pub fn impersonated_user(found: &[Impersonated]) -> UserInfo {
    let groups_given = found.iter().any(|r| matches!(r, Impersonated::Group(_)));
    let mut user = UserInfo::new(String::new(), Vec::new());
    for request in found {
        match request {
            Impersonated::ServiceAccount { namespace, name } => {
                user.name = format!("{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}");
                if !groups_given {
                    user.groups = vec![
                        "system:serviceaccounts".to_owned(),
                        format!("system:serviceaccounts:{namespace}"),
                    ];
                }
            }
            Impersonated::User(name) => user.name.clone_from(name),
            Impersonated::Group(group) => user.groups.push(group.clone()),
            Impersonated::Extra { key, value } => {
                user.extra
                    .entry(key.clone())
                    .or_default()
                    .push(value.clone());
            }
            Impersonated::Uid(uid) => user.uid.clone_from(uid),
        }
    }
    let has = |g: &str| user.groups.iter().any(|x| x == g);
    if user.name == ANONYMOUS {
        if !has(UNAUTHENTICATED) {
            user.groups.push(UNAUTHENTICATED.to_owned());
        }
    } else if !has(AUTHENTICATED) && !has(UNAUTHENTICATED) {
        user.groups.push(AUTHENTICATED.to_owned());
    }
    user
}

/// Runs the stage: the requestor unchanged when nothing is asked, else the impersonated
/// user once every check passed. The `Impersonate-*` headers are removed in every case
/// that lets the request go on.
pub async fn impersonate(
    authorizer: &Authorizer,
    requestor: UserInfo,
    headers: &mut HeaderMap,
) -> Result<UserInfo, ImpersonationError> {
    let found = requests(headers)?;
    strip(headers);
    if found.is_empty() {
        return Ok(requestor);
    }
    for request in &found {
        let attributes = request.attributes();
        let reason = match authorizer.decide(&requestor, &attributes).await {
            Ok(Verdict::Allowed(_)) => continue,
            Ok(Verdict::Refused(reason)) => reason,
            // upstream refuses (403, no reason) when the check itself fails
            Err(e) => {
                tracing::error!(error = %e, "failed to authorize impersonation");
                String::new()
            }
        };
        return Err(ImpersonationError::Forbidden(forbidden(
            &requestor,
            &attributes,
            &reason,
        )));
    }
    let user = impersonated_user(&found);
    tracing::debug!(requestor = %requestor.name, impersonated = %user.name, "impersonating");
    Ok(user)
}

/// Removes every `Impersonate-*` header kube reads.
fn strip(headers: &mut HeaderMap) {
    let extra: Vec<http::HeaderName> = headers
        .keys()
        .filter(|n| n.as_str().starts_with(EXTRA_PREFIX))
        .cloned()
        .collect();
    for name in extra {
        headers.remove(&name);
    }
    for name in [USER, GROUP, UID] {
        headers.remove(name);
    }
}

#[cfg(test)]
mod tests;
