//! Authorization stage: may this user do this. Until delegated authorization lands:
//! always-allow paths (`/healthz`, `/livez`, `/readyz`), `system:masters` may do
//! everything, everyone else is forbidden with kube's message.

use crate::authn::UserInfo;
use crate::error::{ApiError, GroupResource};
use crate::request::info::RequestInfo;

/// Paths anyone may read, as `--authorization-always-allow-paths` defaults.
const ALWAYS_ALLOW_PATHS: &[&str] = &["/healthz", "/readyz", "/livez"];
/// Groups that may do everything, as `--authorization-always-allow-groups` defaults.
const ALWAYS_ALLOW_GROUPS: &[&str] = &["system:masters"];

/// Allow, or the 403 kube sends.
pub fn authorize(user: &UserInfo, info: &RequestInfo) -> Result<(), ApiError> {
    if !info.is_resource_request && ALWAYS_ALLOW_PATHS.contains(&info.path.as_str()) {
        return Ok(());
    }
    if user
        .groups
        .iter()
        .any(|g| ALWAYS_ALLOW_GROUPS.contains(&g.as_str()))
    {
        return Ok(());
    }
    Err(forbidden(user, info, ""))
}

/// kube's Forbidden: `<resource>.<group> "<name>" is forbidden: User "<u>" cannot <verb> resource ...`.
pub fn forbidden(user: &UserInfo, info: &RequestInfo, reason: &str) -> ApiError {
    let verb = info.verb.as_str();
    let mut because = if info.is_resource_request {
        let resource = if info.subresource.is_empty() {
            info.resource.clone()
        } else {
            format!("{}/{}", info.resource, info.subresource)
        };
        let scope = if info.namespace.is_empty() {
            "at the cluster scope".to_string()
        } else {
            format!("in the namespace \"{}\"", info.namespace)
        };
        format!(
            "User \"{}\" cannot {verb} resource \"{resource}\" in API group \"{}\" {scope}",
            user.name, info.api_group
        )
    } else {
        format!(
            "User \"{}\" cannot {verb} path \"{}\"",
            user.name, info.path
        )
    };
    if !reason.is_empty() {
        because = format!("{because}: {reason}");
    }
    if !info.is_resource_request {
        return ApiError::Forbidden {
            message: format!("forbidden: {because}"),
            resource: None,
            name: String::new(),
        };
    }
    let resource = GroupResource::new(&info.api_group, &info.resource);
    let message = if info.name.is_empty() {
        format!("{resource} is forbidden: {because}")
    } else {
        format!("{resource} \"{}\" is forbidden: {because}", info.name)
    };
    ApiError::Forbidden {
        message,
        resource: Some(resource),
        name: info.name.clone(),
    }
}
