//! Whether the fence is in effect, checked, not assumed: at the host, a dry-run write
//! (an UPDATE of an object as listed, or a CREATE of a minimal object when there is none)
//! must be refused with the fence's denial; a create the host refuses before admission
//! (422: the schema wants more) cannot tell, and a fixed grace is waited instead. Here
//! (when we serve the group, so writes can reach us), a synthetic dry-run create by a user
//! the fence does not exempt must meet the denial in our own ValidatingAdmissionPolicy
//! plugin, which follows the host's policies.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kube::core::Status;
use serde_json::{Value, json};

use super::host::{self, HostResource};
use crate::admission::{Attributes, Kind, Operation, Options, Recorder};
use crate::crd::catalog::ServedResource;
use crate::error::ApiError;
use crate::handlers::AppState;
use crate::offload::StepError;
use crate::request::options::WriteOptions;
use crate::request::user::UserInfo;

/// How long the host (and we) may take to see a new policy: kube's policy source is an
/// informer, so this is one watch event away; past it the step is retried later.
pub const DEADLINE: Duration = Duration::from_secs(30);
/// The wait when the host cannot be probed (its schema refuses a minimal object before
/// admission runs): a few informer round trips.
pub const GRACE: Duration = Duration::from_secs(5);
const INTERVAL: Duration = Duration::from_millis(250);
/// The name of the minimal object of a dry-run create probe.
pub const PROBE_NAME: &str = "crd-apiserver-fence-probe";
/// The user of the probe here: one the fence does not exempt.
pub const PROBE_USER: &str = "system:crd-apiserver:fence-probe";

/// What one probe said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Refused with the fence's denial.
    InEffect,
    /// Not refused by the fence (yet): probe again.
    NotYet(String),
    /// The host refused a probe create before admission: the fence cannot be seen.
    Unprobeable(String),
}

/// Judges a dry-run write's answer (`Ok` for a success) against the fence's `denial`.
pub fn judge(answer: Result<(), &Status>, denial: &str, create: bool) -> Verdict {
    let status = match answer {
        Ok(()) => return Verdict::NotYet("a dry-run write was accepted".to_string()),
        Err(status) => status,
    };
    let said = format!("{} {}: {}", status.code, status.reason, status.message);
    match status.code {
        403 if status.message.contains(denial) => Verdict::InEffect,
        // A create refused before admission: schema (422), bad request, missing namespace.
        400 | 404 | 422 if create => Verdict::Unprobeable(said),
        _ => Verdict::NotYet(said),
    }
}

/// The minimal object a dry-run create probe sends.
pub fn probe_object(resource: &HostResource) -> Value {
    let mut metadata = json!({"name": PROBE_NAME});
    if resource.namespaced {
        metadata["namespace"] = json!("default");
    }
    json!({"apiVersion": resource.api_version(), "kind": resource.kind, "metadata": metadata})
}

/// One dry-run write at the host: an UPDATE of the first listed object, else a CREATE.
async fn probe_host_once(client: &kube::Client, resource: &HostResource, denial: &str) -> Verdict {
    let listed = host::list_page(client, &resource.collection(None), 1, None).await;
    let (object, create) = match listed {
        Ok((mut items, _)) if !items.is_empty() => (items.swap_remove(0), false),
        Ok(_) => (probe_object(resource), true),
        Err(e) => return Verdict::NotYet(format!("listing: {e}")),
    };
    let collection = resource.collection_of(&object);
    let answer = match create {
        true => host::create(client, &collection, &object, true).await,
        false => host::replace(client, &collection, &object, None, true).await,
    };
    match answer {
        Ok(_) => judge(Ok(()), denial, create),
        Err(e) => match host::status(&e) {
            Some(status) => judge(Err(status), denial, create),
            None => Verdict::NotYet(e.to_string()),
        },
    }
}

/// Waits until every resource's probe at the host meets the fence (or cannot tell, then
/// [`GRACE`]); a transient error past [`DEADLINE`].
pub async fn at_host(
    client: &kube::Client,
    resources: &[HostResource],
    denial: &str,
) -> Result<(), StepError> {
    let deadline = Instant::now() + DEADLINE;
    let mut grace = false;
    for resource in resources {
        loop {
            match probe_host_once(client, resource, denial).await {
                Verdict::InEffect => break,
                Verdict::Unprobeable(why) => {
                    tracing::info!(resource = %resource.crd_name, %why, "the fence cannot be probed at the host: waiting {GRACE:?}");
                    grace = true;
                    break;
                }
                Verdict::NotYet(why) if Instant::now() >= deadline => {
                    return Err(StepError::Transient(format!(
                        "the fence of {} is not in effect at the host after {DEADLINE:?}: {why}",
                        resource.crd_name
                    )));
                }
                Verdict::NotYet(_) => tokio::time::sleep(INTERVAL).await,
            }
        }
    }
    if grace {
        tokio::time::sleep(GRACE).await;
    }
    Ok(())
}

/// Judges our own ValidatingAdmissionPolicy plugin's answer to the synthetic probe.
pub fn judge_here(
    answer: Option<Result<(), ApiError>>,
    denial: &str,
) -> Result<Verdict, StepError> {
    match answer {
        None => Err(StepError::Transient(
            "the ValidatingAdmissionPolicy admission plugin is not enabled here, so the fence \
             cannot hold the writes that reach us"
                .to_string(),
        )),
        // kube's dispatcher answers with the validation's reason and its code (403 for
        // the fence's `Forbidden`), whatever variant carries it.
        Some(Err(refusal)) if refusal.code() == 403 && refusal.to_string().contains(denial) => {
            Ok(Verdict::InEffect)
        }
        Some(Ok(())) => Ok(Verdict::NotYet("admitted here".to_string())),
        Some(Err(other)) => Ok(Verdict::NotYet(other.to_string())),
    }
}

/// One synthetic dry-run create of `resource` through our ValidatingAdmissionPolicy plugin.
async fn probe_here_once(
    state: &AppState,
    resource: &ServedResource,
    denial: &str,
) -> Result<Verdict, StepError> {
    let options = WriteOptions {
        dry_run: true,
        ..WriteOptions::default()
    };
    let user = UserInfo::new(
        PROBE_USER.to_string(),
        vec!["system:authenticated".to_string()],
    );
    let recorder = Recorder::default();
    let namespace = if resource.namespaced { "default" } else { "" };
    let mut object = json!({
        "apiVersion": resource.storage_api_version,
        "kind": resource.kind,
        "metadata": {"name": PROBE_NAME},
    });
    if resource.namespaced {
        object["metadata"]["namespace"] = json!(namespace);
    }
    let attributes = Attributes {
        operation: Operation::Create,
        namespace,
        name: PROBE_NAME,
        group: &resource.group,
        resource: &resource.plural,
        version: &resource.storage_version,
        kind: Kind {
            group: &resource.group,
            version: &resource.storage_version,
            kind: &resource.kind,
        },
        subresource: "",
        dry_run: true,
        user: &user,
        options: Options::Create(&options),
        old_object: None,
        served: Some(resource),
        recorder: &recorder,
        deadline: Some(Instant::now() + DEADLINE),
    };
    let answer = state
        .admission
        .validate_policies(&attributes, Some(&object))
        .await;
    judge_here(answer, denial)
}

/// Waits until our own admission refuses a write of each of `resources` with the fence's
/// `denial`; a transient error past [`DEADLINE`].
pub async fn here(
    state: &AppState,
    resources: &[Arc<ServedResource>],
    denial: &str,
) -> Result<(), StepError> {
    let deadline = Instant::now() + DEADLINE;
    for resource in resources {
        loop {
            match probe_here_once(state, resource, denial).await? {
                Verdict::InEffect => break,
                Verdict::NotYet(why) | Verdict::Unprobeable(why) if Instant::now() >= deadline => {
                    return Err(StepError::Transient(format!(
                        "the fence of {} is not in effect here after {DEADLINE:?}: {why}",
                        resource.crd_name
                    )));
                }
                Verdict::NotYet(_) | Verdict::Unprobeable(_) => tokio::time::sleep(INTERVAL).await,
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "probe_tests.rs"]
mod tests;
