//! What registration does with the APIServices it finds: the pure decision over the
//! served group/versions, the host's APIServices and the desired ones. An absent
//! APIService is created (POST: one made by someone else meanwhile is a 409, never taken
//! over) and one of ours that differs is applied again with the listed uid and
//! resourceVersion as preconditions; one that is not ours is never touched; one of ours
//! whose group/version this process served once and no longer serves is deleted (with
//! its uid as precondition, so a replacement made meanwhile survives). Ours for a
//! group/version this process never served are kept: after a restart, offload has not
//! re-served its taken-over groups yet, and their switched APIServices carry our label.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::{APIService, APIServiceSpec};

use super::OWNER_LABEL;
use super::desired::Desired;

/// One step of a reconcile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// POST of the desired APIService of `group`/`version` (absent when listed).
    Create { group: String, version: String },
    /// Server-side apply of the desired APIService of `group`/`version` over ours as
    /// listed (`uid`, `resource_version`: a change since the list makes it a 409).
    Apply {
        group: String,
        version: String,
        uid: Option<String>,
        resource_version: Option<String>,
    },
    /// `name` exists and is not ours: left alone (`owner`: its owner label, if any).
    NotOwned { name: String, owner: Option<String> },
    /// Ours, for a group/version this process served and no longer serves: delete it
    /// (uid precondition).
    Delete { name: String, uid: String },
}

/// The actions for `served` (group, version) pairs given the host's `existing`
/// APIServices; ours that already match are left out; ours not served are deleted only
/// when their name is in `ever_served` (the APIService names this process has served).
pub fn plan(
    served: &BTreeSet<(String, String)>,
    ever_served: &BTreeSet<String>,
    existing: &[APIService],
    desired: &Desired,
) -> Vec<Action> {
    let by_name: BTreeMap<&str, &APIService> = existing
        .iter()
        .filter_map(|a| Some((a.metadata.name.as_deref()?, a)))
        .collect();
    let mut actions = Vec::new();
    for (group, version) in served {
        let name = Desired::name(group, version);
        match by_name.get(name.as_str()) {
            None => actions.push(Action::Create {
                group: group.clone(),
                version: version.clone(),
            }),
            Some(found) if desired.owns(found) => {
                if !matches(found, &desired.apiservice(group, version)) {
                    actions.push(Action::Apply {
                        group: group.clone(),
                        version: version.clone(),
                        uid: found.metadata.uid.clone(),
                        resource_version: found.metadata.resource_version.clone(),
                    });
                }
            }
            Some(found) => actions.push(Action::NotOwned {
                name,
                owner: owner_of(found),
            }),
        }
    }
    let served_names: BTreeSet<String> = served.iter().map(|(g, v)| Desired::name(g, v)).collect();
    for found in existing.iter().filter(|a| desired.owns(a)) {
        let name = found.metadata.name.clone().unwrap_or_default();
        if served_names.contains(&name) || !ever_served.contains(&name) {
            continue;
        }
        if let Some(uid) = found.metadata.uid.clone() {
            actions.push(Action::Delete { name, uid });
        }
    }
    actions
}

fn owner_of(apiservice: &APIService) -> Option<String> {
    apiservice
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(OWNER_LABEL))
        .cloned()
}

/// Whether `found` already has what we apply: our label and the spec's fields.
fn matches(found: &APIService, want: &APIService) -> bool {
    let spec = |a: &APIService| a.spec.clone().unwrap_or_default();
    owner_of(found) == owner_of(want) && same_spec(&spec(found), &spec(want))
}

fn same_spec(a: &APIServiceSpec, b: &APIServiceSpec) -> bool {
    // An absent caBundle and an empty one are the same on the wire.
    let bundle = |s: &APIServiceSpec| s.ca_bundle.clone().map(|b| b.0).unwrap_or_default();
    a.group == b.group
        && a.version == b.version
        && a.group_priority_minimum == b.group_priority_minimum
        && a.version_priority == b.version_priority
        && a.service == b.service
        && bundle(a) == bundle(b)
        && a.insecure_skip_tls_verify.unwrap_or(false)
            == b.insecure_skip_tls_verify.unwrap_or(false)
}

/// Remembers which not-owned APIServices were warned about, so each is warned about
/// once per change (of its uid or owner).
#[derive(Debug, Default)]
pub struct Warned(BTreeMap<String, (Option<String>, Option<String>)>);

impl Warned {
    /// Whether `name` (with `uid` and `owner`) is news: not warned about as it is now.
    pub fn first(&mut self, name: &str, uid: Option<String>, owner: Option<String>) -> bool {
        let now = (uid, owner);
        let before = self.0.insert(name.to_string(), now.clone());
        before != Some(now)
    }

    /// Forgets names no longer reported (so a later conflict is warned about again).
    pub fn retain(&mut self, reported: &BTreeSet<String>) {
        self.0.retain(|name, _| reported.contains(name));
    }
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
