//! The fake kube-apiserver's emulation of crd-apiserver's offload fence — a narrow stand-in
//! for kube's ValidatingAdmissionPolicy plugin, the real one is proven end to end against
//! the reference apiextensions-apiserver: a write is refused when a
//! ValidatingAdmissionPolicy labelled `app.kubernetes.io/managed-by=crd-apiserver` with a
//! binding naming it (`validationActions` holding `Deny`) matches it by
//! `matchConstraints.resourceRules` (apiGroups, apiVersions, operations, and resources as kube
//! reads them: `*` every resource but no subresource, `*/*` every resource and subresource,
//! `<plural>`, `<plural>/<sub>`, `<plural>/*`, `*/<sub>`) — unless its first matchCondition is
//! exactly `request.userInfo.username != '<u>'` and the caller is `<u>`, or
//! `request.userInfo.username != '<u>' || request.dryRun` and the caller is `<u>` writing
//! for real (not dry-run); another expression is taken to hold. Its first validation's
//! message is the denial (kube's dispatcher: `ValidatingAdmissionPolicy '<p>' with binding
//! '<b>' denied request: <message>` inside `admission.NewForbidden`, the validation's reason
//! and its code). Everything else a policy says (CEL, selectors, params) is not evaluated.

use serde_json::Value;

use super::collections::Resource;
use super::errors::{self, Failure};

pub const MANAGED_BY: (&str, &str) = ("app.kubernetes.io/managed-by", "crd-apiserver");

/// What the fence looks at in a write.
#[derive(Clone, Debug)]
pub struct Attributes<'a> {
    pub resource: &'a Resource,
    /// `""` or `"status"`.
    pub subresource: &'a str,
    /// `CREATE`, `UPDATE` or `DELETE`.
    pub operation: &'a str,
    pub username: &'a str,
    pub dry_run: bool,
    /// The object's name (a create's `generateName` when it has no name; `Unknown` without).
    pub name: &'a str,
}

/// A matching policy's denial.
#[derive(Clone, Debug, PartialEq)]
pub struct Denial {
    pub policy: String,
    pub binding: String,
    pub message: String,
    /// The validation's reason (kube's default when unset: `Invalid`).
    pub reason: String,
}

impl Denial {
    /// kube's Status: `<resource> "<name>" is forbidden: ValidatingAdmissionPolicy ...`.
    pub fn failure(&self, attributes: &Attributes) -> Failure {
        let why = format!(
            "ValidatingAdmissionPolicy '{}' with binding '{}' denied request: {}",
            self.policy, self.binding, self.message
        );
        let code = match self.reason.as_str() {
            "Forbidden" => 403,
            "Unauthorized" => 401,
            "RequestEntityTooLarge" => 413,
            _ => 422,
        };
        errors::forbidden(
            attributes.resource,
            attributes.name,
            &why,
            &self.reason,
            code,
        )
    }
}

/// The user a matchCondition exempts — `request.userInfo.username != '<u>'` — and whether
/// the exemption is for real writes only (` || request.dryRun` after it).
pub fn exempted_user(expression: &str) -> Option<(&str, bool)> {
    let text = expression.trim();
    let (text, real_only) = match text.strip_suffix("request.dryRun") {
        Some(rest) => (rest.trim_end().strip_suffix("||")?.trim_end(), true),
        None => (text, false),
    };
    let quoted = text
        .strip_prefix("request.userInfo.username")?
        .trim_start()
        .strip_prefix("!=")?
        .trim();
    let user = quoted.strip_prefix('\'')?.strip_suffix('\'')?;
    (!user.contains('\'')).then_some((user, real_only))
}

fn listed(value: &Value, wanted: &str) -> bool {
    value
        .as_array()
        .is_some_and(|l| l.iter().any(|v| v == "*" || v == wanted))
}

/// Whether a `resources` entry names the resource (and subresource) written, as kube's
/// rule matcher reads it.
pub fn names_resource(entry: &str, plural: &str, subresource: &str) -> bool {
    let (resource, sub) = entry.split_once('/').unwrap_or((entry, ""));
    let resource_ok = resource == "*" || resource == plural;
    let sub_ok = match (sub, subresource) {
        ("", "") => true,
        ("", _) => false,
        ("*", _) => entry == "*/*" || !subresource.is_empty(),
        (wanted, written) => wanted == written,
    };
    resource_ok && sub_ok
}

/// Whether `policy`'s resource rules and match condition select the write.
pub fn policy_matches(policy: &Value, a: &Attributes) -> bool {
    let labels = &policy["metadata"]["labels"];
    if labels[MANAGED_BY.0] != MANAGED_BY.1 {
        return false;
    }
    let rules = policy["spec"]["matchConstraints"]["resourceRules"].as_array();
    let ruled = rules.into_iter().flatten().any(|rule| {
        let resources = rule["resources"].as_array().into_iter().flatten();
        listed(&rule["apiGroups"], a.resource.group)
            && listed(&rule["apiVersions"], a.resource.version)
            && listed(&rule["operations"], a.operation)
            && resources
                .filter_map(Value::as_str)
                .any(|r| names_resource(r, a.resource.plural, a.subresource))
    });
    let condition = policy["spec"]["matchConditions"][0]["expression"].as_str();
    let exempt = match condition.and_then(exempted_user) {
        Some((user, real_only)) => user == a.username && !(real_only && a.dry_run),
        None => false,
    };
    ruled && !exempt
}

/// The first denial of the write by a fence policy with a `Deny` binding.
pub fn denial(policies: &[Value], bindings: &[Value], a: &Attributes) -> Option<Denial> {
    policies
        .iter()
        .filter(|p| policy_matches(p, a))
        .find_map(|policy| {
            let name = policy["metadata"]["name"].as_str()?;
            let binding = bindings.iter().find(|b| {
                b["spec"]["policyName"] == name && listed(&b["spec"]["validationActions"], "Deny")
            })?;
            let validation = &policy["spec"]["validations"][0];
            let message = match validation["message"].as_str() {
                Some(m) if !m.is_empty() => m.to_string(),
                _ => format!(
                    "failed expression: {}",
                    validation["expression"].as_str().unwrap_or_default()
                ),
            };
            Some(Denial {
                policy: name.to_string(),
                binding: binding["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                message,
                reason: validation["reason"]
                    .as_str()
                    .unwrap_or("Invalid")
                    .to_string(),
            })
        })
}
