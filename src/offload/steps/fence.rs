//! The fence: a ValidatingAdmissionPolicy and its binding of ours, both named
//! `crd-apiserver-offload-fence.<group>`, denying CREATE/UPDATE/DELETE of every resource
//! of the group and their subresources to everyone but our own (non-dry-run) writes;
//! put in place (created, or updated to the content we want) and taken away.

use std::collections::BTreeMap;

use k8s_openapi::api::admissionregistration::v1::{
    MatchCondition, MatchResources, NamedRuleWithOperations, ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding, ValidatingAdmissionPolicyBindingSpec,
    ValidatingAdmissionPolicySpec, Validation,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde_json::Value;

use super::host;
use crate::offload::{MANAGED_BY, MANAGED_BY_LABEL, StepError};

pub const POLICIES: &str = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
pub const BINDINGS: &str =
    "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
/// How often a create or update of the fence is tried when the host answers 409.
const ATTEMPTS: usize = 5;

/// The name of the policy and of its binding.
pub fn name(group: &str) -> String {
    format!("crd-apiserver-offload-fence.{group}")
}

/// What a fenced write is told (inside kube's `ValidatingAdmissionPolicy '<p>' with
/// binding '<b>' denied request: <message>`).
pub fn message(group: &str) -> String {
    format!(
        "the resources of API group {group:?} are being moved by crd-apiserver (offload): \
         writes are refused until the move completes; retry shortly"
    )
}

/// The denial kube's ValidatingAdmissionPolicy dispatcher words for the fence of `group`
/// (`dispatcher.go`: `ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s`).
pub fn denial(group: &str) -> String {
    let name = name(group);
    format!(
        "ValidatingAdmissionPolicy '{name}' with binding '{name}' denied request: {}",
        message(group)
    )
}

/// The match condition: our own writes pass, unless they are dry runs — so the fence's
/// in-effect probe, a dry-run write made with our credentials, sees the denial
/// (`request.dryRun` is a bool of kube's CEL admission request).
pub fn match_condition(username: &str) -> String {
    let quoted = username.replace('\\', "\\\\").replace('\'', "\\'");
    format!("request.userInfo.username != '{quoted}' || request.dryRun")
}

fn metadata(group: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name(group)),
        labels: Some(BTreeMap::from([(
            MANAGED_BY_LABEL.to_string(),
            MANAGED_BY.to_string(),
        )])),
        ..ObjectMeta::default()
    }
}

fn strings(items: &[&str]) -> Option<Vec<String>> {
    Some(items.iter().map(|s| s.to_string()).collect())
}

/// The policy for `group`, exempting `username`'s own writes.
pub fn policy(group: &str, username: &str) -> ValidatingAdmissionPolicy {
    ValidatingAdmissionPolicy {
        metadata: metadata(group),
        spec: Some(ValidatingAdmissionPolicySpec {
            failure_policy: Some("Fail".to_string()),
            match_constraints: Some(MatchResources {
                resource_rules: Some(vec![NamedRuleWithOperations {
                    api_groups: strings(&[group]),
                    api_versions: strings(&["*"]),
                    // `*` is every resource but no subresource; `*/*` both (kube's rule doc).
                    resources: strings(&["*/*"]),
                    operations: strings(&["CREATE", "UPDATE", "DELETE"]),
                    ..NamedRuleWithOperations::default()
                }]),
                // kube's defaults, written out: a policy source that does not default
                // them (ours reading an undefaulted object) refuses a nil selector.
                match_policy: Some("Equivalent".to_string()),
                namespace_selector: Some(LabelSelector::default()),
                object_selector: Some(LabelSelector::default()),
                ..MatchResources::default()
            }),
            match_conditions: Some(vec![MatchCondition {
                name: "not-crd-apiserver".to_string(),
                expression: match_condition(username),
            }]),
            validations: Some(vec![Validation {
                expression: "false".to_string(),
                reason: Some("Forbidden".to_string()),
                message: Some(message(group)),
                message_expression: None,
            }]),
            ..ValidatingAdmissionPolicySpec::default()
        }),
        status: None,
    }
}

/// The binding of [`policy`]: its denials deny.
pub fn binding(group: &str) -> ValidatingAdmissionPolicyBinding {
    ValidatingAdmissionPolicyBinding {
        metadata: metadata(group),
        spec: ValidatingAdmissionPolicyBindingSpec {
            policy_name: name(group),
            validation_actions: vec!["Deny".to_string()],
            ..ValidatingAdmissionPolicyBindingSpec::default()
        },
    }
}

/// Whether `existing` holds everything `desired` says (the host adds defaults, e.g.
/// `matchPolicy`, `namespaceSelector`, so equality would never hold): objects by their
/// fields, arrays element by element, scalars equal.
pub fn covers(existing: &Value, desired: &Value) -> bool {
    match (existing, desired) {
        (Value::Object(have), Value::Object(want)) => want
            .iter()
            .all(|(k, w)| have.get(k).is_some_and(|h| covers(h, w))),
        (Value::Array(have), Value::Array(want)) => {
            have.len() == want.len() && have.iter().zip(want).all(|(h, w)| covers(h, w))
        }
        (have, want) => have == want,
    }
}

/// What to do with the host's object to get `desired` there.
#[derive(Debug, Clone, PartialEq)]
pub enum Put {
    Create(Value),
    /// The host's object with our labels and spec, its resourceVersion kept.
    Update(Value),
    Nothing,
}

/// Decides how `desired` (labels + spec) gets to the host, which has `existing`.
pub fn plan(existing: Option<&Value>, desired: &Value) -> Put {
    let Some(existing) = existing else {
        return Put::Create(desired.clone());
    };
    let labels = &desired["metadata"]["labels"];
    let held = covers(&existing["metadata"]["labels"], labels)
        && covers(&existing["spec"], &desired["spec"]);
    if held {
        return Put::Nothing;
    }
    let mut updated = existing.clone();
    let mut merged = existing["metadata"]["labels"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    merged.extend(labels.as_object().cloned().unwrap_or_default());
    updated["metadata"]["labels"] = Value::Object(merged);
    updated["spec"] = desired["spec"].clone();
    Put::Update(updated)
}

/// Gets `desired` into `collection` at the host (created, or updated with the host's
/// resourceVersion; a 409 re-reads).
pub async fn ensure(
    client: &kube::Client,
    collection: &str,
    desired: &Value,
) -> Result<(), StepError> {
    let name = desired["metadata"]["name"].as_str().unwrap_or_default();
    let what = format!("{collection}/{name}");
    for _ in 0..ATTEMPTS {
        let existing = host::get(client, collection, name)
            .await
            .map_err(|e| host::transient(&format!("reading {what}"), e))?;
        let result = match plan(existing.as_ref(), desired) {
            Put::Nothing => return Ok(()),
            Put::Create(object) => host::create(client, collection, &object, false).await,
            Put::Update(object) => host::replace(client, collection, &object, None, false).await,
        };
        match result {
            Ok(_) => return Ok(()),
            Err(e) if host::code(&e) == Some(409) => continue,
            Err(e) => return Err(host::transient(&format!("writing {what}"), e)),
        }
    }
    Err(StepError::Transient(format!(
        "writing {what}: conflicts {ATTEMPTS} times in a row"
    )))
}

/// Puts the fence of `group` in place (policy first, then its binding).
pub async fn put(client: &kube::Client, group: &str, username: &str) -> Result<(), StepError> {
    let encode = |v: Result<Value, serde_json::Error>| {
        v.map_err(|e| StepError::Transient(format!("encoding the fence: {e}")))
    };
    let policy = encode(serde_json::to_value(policy(group, username)))?;
    let binding = encode(serde_json::to_value(binding(group)))?;
    ensure(client, POLICIES, &policy).await?;
    ensure(client, BINDINGS, &binding).await
}

/// Takes the fence of `group` away (binding first, then the policy); absent is done.
pub async fn lift(client: &kube::Client, group: &str) -> Result<(), StepError> {
    let name = name(group);
    for collection in [BINDINGS, POLICIES] {
        host::delete(client, collection, &name, "")
            .await
            .map_err(|e| host::transient(&format!("deleting {collection}/{name}"), e))?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "fence_tests.rs"]
mod tests;
