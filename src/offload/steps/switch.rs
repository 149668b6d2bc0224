//! The unit's APIServices pointed at us (switch) and back at the host (switch back), and
//! whether they are available. kube's crdregistration controller registers a CRD's
//! group/version as a local APIService (`groupPriorityMinimum: 1000`, `versionPriority:
//! 100`, labelled `kube-aggregator.kubernetes.io/automanaged: "true"`); kube-aggregator's
//! autoregister controller never updates or deletes an existing APIService without that
//! label (`autoregister_controller.go`, `checkAPIService`: "3. current: no sync"), so the
//! switch drops it and adds our owner label, and the switch back restores it.

use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::{APIService, APIServiceSpec};
use kube::api::{Api, PostParams};

use super::host;
use crate::offload::StepError;
use crate::register::OWNER_LABEL;
use crate::register::desired::Desired;

/// kube-aggregator's label on the APIServices its autoregister controller owns.
pub const AUTOMANAGED_LABEL: &str = "kube-aggregator.kubernetes.io/automanaged";
/// kube's crdregistration controller's priorities for a CRD's group/version.
pub const CRD_GROUP_PRIORITY_MINIMUM: i32 = 1000;
pub const CRD_VERSION_PRIORITY: i32 = 100;
/// The Available reason of kube-aggregator's local APIServices (always available): the
/// condition of an APIService before it routes to us.
pub const LOCAL_REASON: &str = "Local";
const ATTEMPTS: usize = 5;

/// `current` pointed at us: `desired`'s spec, our owner label, no `automanaged` label;
/// `None` when it already is.
pub fn switched(current: &APIService, desired: &APIService) -> Option<APIService> {
    let mut next = current.clone();
    let labels = next.metadata.labels.get_or_insert_with(Default::default);
    labels.remove(AUTOMANAGED_LABEL);
    labels.extend(desired.metadata.labels.clone().unwrap_or_default());
    next.spec = desired.spec.clone();
    (normalized(&next) != normalized(current)).then_some(next)
}

/// `apiservice` as compared: `insecureSkipTLSVerify: false` is its absence (kube omits a
/// false one when it answers), so an APIService switched already is not written again.
fn normalized(apiservice: &APIService) -> APIService {
    let mut apiservice = apiservice.clone();
    if let Some(spec) = apiservice.spec.as_mut()
        && spec.insecure_skip_tls_verify == Some(false)
    {
        spec.insecure_skip_tls_verify = None;
    }
    apiservice
}

/// `current` pointed back at the host (local: no service, no caBundle, kube's CRD
/// priorities, `automanaged: "true"`, our owner label removed); `None` when it already is.
pub fn switched_back(current: &APIService) -> Option<APIService> {
    let mut next = current.clone();
    let labels = next.metadata.labels.get_or_insert_with(Default::default);
    labels.remove(OWNER_LABEL);
    labels.insert(AUTOMANAGED_LABEL.to_string(), "true".to_string());
    let spec = next.spec.get_or_insert_with(APIServiceSpec::default);
    spec.service = None;
    spec.ca_bundle = None;
    spec.insecure_skip_tls_verify = None;
    spec.group_priority_minimum = CRD_GROUP_PRIORITY_MINIMUM;
    spec.version_priority = CRD_VERSION_PRIORITY;
    (normalized(&next) != normalized(current)).then_some(next)
}

/// Whether `apiservice` routes to us and kube-aggregator found it `Available=True` (a
/// local APIService is always available, so the condition alone proves nothing).
pub fn available(apiservice: &APIService, desired: &APIService) -> bool {
    let routed = apiservice.spec.as_ref().and_then(|s| s.service.as_ref())
        == desired.spec.as_ref().and_then(|s| s.service.as_ref());
    let conditions = apiservice
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref());
    let up = conditions.into_iter().flatten().any(|c| {
        c.type_ == "Available" && c.status == "True" && c.reason.as_deref() != Some(LOCAL_REASON)
    });
    routed && up
}

/// An APIService's `<version>.<group>` name split.
pub fn version_of(name: &str, group: &str) -> String {
    name.strip_suffix(&format!(".{group}"))
        .unwrap_or(name)
        .to_string()
}

/// What [`edit`] does to an existing APIService: the new content, or `None` to leave it.
pub type Edit<'a> = &'a (dyn Fn(&APIService) -> Option<APIService> + Send + Sync);

/// Applies `change` to the APIService `name` (PUT with its resourceVersion; a 409
/// re-reads); `absent` is what to create when there is none (or `None` to leave it so).
pub async fn edit(
    api: &Api<APIService>,
    name: &str,
    change: Edit<'_>,
    absent: Option<&APIService>,
) -> Result<(), StepError> {
    let what = format!("APIService {name}");
    for _ in 0..ATTEMPTS {
        let current = api
            .get_opt(name)
            .await
            .map_err(|e| host::transient(&format!("reading {what}"), e))?;
        let result = match (current, absent) {
            (Some(current), _) => match change(&current) {
                Some(next) => api.replace(name, &PostParams::default(), &next).await,
                None => return Ok(()),
            },
            (None, Some(created)) => api.create(&PostParams::default(), created).await,
            (None, None) => return Ok(()),
        };
        match result {
            Ok(_) => return Ok(()),
            Err(e) if matches!(host::code(&e), Some(409)) => continue,
            Err(e) => return Err(host::transient(&format!("writing {what}"), e)),
        }
    }
    Err(StepError::Transient(format!(
        "writing {what}: conflicts {ATTEMPTS} times in a row"
    )))
}

/// Points each of `names` (APIServices of `group`) at us.
pub async fn to_us(
    client: &kube::Client,
    desired: &Desired,
    group: &str,
    names: &[String],
) -> Result<(), StepError> {
    let api: Api<APIService> = Api::all(client.clone());
    for name in names {
        let wanted = desired.apiservice(group, &version_of(name, group));
        let change = |current: &APIService| switched(current, &wanted);
        edit(&api, name, &change, Some(&wanted)).await?;
    }
    Ok(())
}

/// Points each of `names` back at the host; an APIService routed to another Service
/// than ours is not ours to change and is left as it is.
pub async fn to_host(
    client: &kube::Client,
    desired: &Desired,
    names: &[String],
) -> Result<(), StepError> {
    let api: Api<APIService> = Api::all(client.clone());
    for name in names {
        let change = |current: &APIService| {
            let local = current.spec.as_ref().is_none_or(|s| s.service.is_none());
            match desired.owns(current) || local {
                true => switched_back(current),
                false => {
                    tracing::warn!(apiservice = %name, "not switched back: it routes to a Service that is not ours");
                    None
                }
            }
        };
        edit(&api, name, &change, None).await?;
    }
    Ok(())
}

/// Whether every one of `names` routes to us and is `Available=True`.
pub async fn all_available(
    client: &kube::Client,
    desired: &Desired,
    group: &str,
    names: &[String],
) -> Result<bool, StepError> {
    let api: Api<APIService> = Api::all(client.clone());
    for name in names {
        let current = api
            .get_opt(name)
            .await
            .map_err(|e| host::transient(&format!("reading APIService {name}"), e))?;
        let wanted = desired.apiservice(group, &version_of(name, group));
        if !current.is_some_and(|c| available(&c, &wanted)) {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
#[path = "switch_tests.rs"]
mod tests;
