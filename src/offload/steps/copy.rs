//! The copy: every object of the unit's CRDs, listed at the host (consistent, paged, at
//! the storage version), restored here preserving its metadata and status; then the
//! objects here the host no longer has are deleted. Passes repeat until one writes
//! nothing (the host is fenced, so the second normally does), at most [`PASSES`].

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use super::here::{self, Restored};
use super::host::{self, HostResource, PAGE};
use crate::crd::catalog::ServedResource;
use crate::handlers::AppState;
use crate::offload::{Copied, StepError, Unit};

/// Passes before the copy gives up for now (the host keeps changing: not fenced?).
pub const PASSES: usize = 5;

/// `(namespace, name)` of the objects a pass saw at the host.
type Seen = HashSet<(String, String)>;

/// One pass over one resource: restores what the host lists, deletes what it no longer has.
async fn pass(
    client: &kube::Client,
    state: &Arc<AppState>,
    resource: &HostResource,
    served: &ServedResource,
) -> Result<Copied, StepError> {
    let mut copied = Copied::default();
    let mut seen = Seen::new();
    let collection = resource.collection(None);
    let mut token: Option<String> = None;
    loop {
        let (items, next) = host::list_page(client, &collection, PAGE, token.as_deref())
            .await
            .map_err(|e| host::transient(&format!("listing {collection} at the host"), e))?;
        for object in items {
            copied.listed += 1;
            seen.insert(host::key_of(&object));
            match here::restore(state, served, object).await? {
                Restored::Created | Restored::Updated => copied.written += 1,
                Restored::Unchanged => {}
            }
        }
        match next {
            Some(next) => token = Some(next),
            None => break,
        }
    }
    for object in gone(
        here::list(state, &served.group, &served.plural).await?,
        &seen,
    ) {
        let (namespace, name) = host::key_of(&object);
        let uid = host::uid_of(&object);
        here::restore_delete(state, served, &namespace, &name, uid).await?;
        copied.deleted += 1;
    }
    Ok(copied)
}

/// The refusal when an object here has the key of `theirs` but another uid.
pub fn clash(
    ours: &std::collections::HashMap<(String, String), String>,
    theirs: &Value,
    resource: &str,
) -> Option<StepError> {
    let key = host::key_of(theirs);
    let uid = ours.get(&key)?;
    let their_uid = host::uid_of(theirs);
    (uid != their_uid).then(|| {
        let (namespace, name) = key;
        let shown = if namespace.is_empty() {
            name
        } else {
            format!("{namespace}/{name}")
        };
        StepError::Refused(format!(
            "{resource} {shown:?} is stored here with uid {uid} and at the host with uid \
             {their_uid}: it is another object, which the copy would replace"
        ))
    })
}

/// Refuses the copy before anything is written when an object here clashes with one at
/// the host (nothing to check when we have none, as at the start of a take-over).
async fn check_clashes(
    client: &kube::Client,
    state: &AppState,
    resource: &HostResource,
) -> Result<(), StepError> {
    let ours = here::uids(state, &resource.group, &resource.plural).await?;
    if ours.is_empty() {
        return Ok(());
    }
    let shown = format!("{}.{}", resource.plural, resource.group);
    let collection = resource.collection(None);
    let mut token: Option<String> = None;
    loop {
        let (items, next) = host::list_page(client, &collection, PAGE, token.as_deref())
            .await
            .map_err(|e| host::transient(&format!("listing {collection} at the host"), e))?;
        if let Some(refused) = items.iter().find_map(|o| clash(&ours, o, &shown)) {
            return Err(refused);
        }
        match next {
            Some(next) => token = Some(next),
            None => return Ok(()),
        }
    }
}

/// The objects here whose key the host did not list.
pub fn gone(here: Vec<Value>, seen: &Seen) -> Vec<Value> {
    here.into_iter()
        .filter(|o| !seen.contains(&host::key_of(o)))
        .collect()
}

/// Whether a pass changed anything here.
fn wrote(copied: &Copied) -> bool {
    copied.written + copied.deleted > 0
}

/// Copies the unit until a pass writes nothing; what the last pass listed, and what
/// every pass wrote and deleted.
pub async fn copy(
    client: &kube::Client,
    state: &Arc<AppState>,
    unit: &Unit,
) -> Result<Copied, StepError> {
    let resources = HostResource::all(&unit.crds)?;
    let served = here::compile(&unit.crds)?;
    for resource in &resources {
        check_clashes(client, state, resource).await?;
    }
    let mut total = Copied::default();
    for _ in 0..PASSES {
        let mut this = Copied::default();
        for resource in &resources {
            let Some(served) = served.iter().find(|s| s.crd_name == resource.crd_name) else {
                return Err(StepError::Refused(format!(
                    "{}: not compiled",
                    resource.crd_name
                )));
            };
            let one = pass(client, state, resource, served).await?;
            this.listed += one.listed;
            this.written += one.written;
            this.deleted += one.deleted;
        }
        total.listed = this.listed;
        total.written += this.written;
        total.deleted += this.deleted;
        if !wrote(&this) {
            return Ok(total);
        }
    }
    Err(StepError::Transient(format!(
        "the objects of {} still change after {PASSES} copy passes (is the fence in effect?)",
        unit.group
    )))
}

#[cfg(test)]
#[path = "copy_tests.rs"]
mod tests;
