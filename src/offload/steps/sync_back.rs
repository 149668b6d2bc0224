//! Give-back's sync: our objects written back to the host (which is fenced, but not to our
//! own writes). The host's copy of an object with the same uid is updated with the host's
//! resourceVersion (`/status` separately when the CRD has that subresource); an object
//! only here is created (the host gives it a new uid: counted); the host's objects we do
//! not have (by key and uid) are deleted (uid precondition). An object being deleted here
//! is deleted at the host after its update (its finalizers then hold it there).
//!
//! A created object carries [`ORIGIN_UID`] (the uid it had here), so a sync done again
//! (after a crash before its record) finds it as the same object instead of deleting and
//! creating it once more.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::here;
use super::host::{self, HostResource};
use crate::handlers::AppState;
use crate::offload::{Copied, StepError, Unit};

/// One write to the host.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// The host's object of the same uid gets ours: the main resource (when it differs),
    /// then `/status` (when the CRD has it and it differs), then a delete (when ours is
    /// being deleted).
    Update {
        object: Value,
        main: bool,
        status: bool,
        delete: bool,
    },
    /// Only here: created (new uid), then its status and its deletion as above.
    Create {
        object: Value,
        status: bool,
        delete: bool,
    },
    /// At the host only (or another uid under our key).
    Delete {
        namespace: String,
        name: String,
        uid: String,
    },
}

/// The annotation on an object sync_back created at the host: the uid it had here.
pub const ORIGIN_UID: &str = "crd-apiserver.io/offload-origin-uid";

/// Metadata the host sets itself, never compared or sent on a create.
const SERVER_SET: [&str; 6] = [
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
];

fn metadata(object: &Value) -> Map<String, Value> {
    object["metadata"].as_object().cloned().unwrap_or_default()
}

/// `object` without the fields the host sets and, with a `/status` subresource, status.
fn sendable(object: &Value, status_subresource: bool) -> Value {
    let mut object = object.clone();
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in SERVER_SET {
            meta.remove(field);
        }
    }
    if status_subresource && let Some(map) = object.as_object_mut() {
        map.remove("status");
    }
    without_origin(&mut object);
    object
}

/// What is compared: [`sendable`] without managedFields too (the host adds its own entry
/// for our write whatever we send, so they never come out equal; ours go with any write).
fn comparable(object: &Value, status_subresource: bool) -> Value {
    let mut object = sendable(object, status_subresource);
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
    object
}

/// Removes [`ORIGIN_UID`] (and an annotation map it leaves empty).
fn without_origin(object: &mut Value) {
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let emptied = match meta.get_mut("annotations").and_then(Value::as_object_mut) {
        Some(annotations) => {
            annotations.remove(ORIGIN_UID);
            annotations.is_empty()
        }
        None => false,
    };
    if emptied {
        meta.remove("annotations");
    }
}

/// The uid that identifies `theirs` as one of ours: its own, or the one it had here.
fn identity(theirs: &Value) -> &str {
    theirs["metadata"]["annotations"][ORIGIN_UID]
        .as_str()
        .unwrap_or_else(|| host::uid_of(theirs))
}

fn deleting(object: &Value) -> bool {
    metadata(object).contains_key("deletionTimestamp")
}

/// What to write for one of ours, given the host's object of the same key.
fn for_ours(ours: &Value, theirs: Option<&Value>, status_sub: bool) -> Vec<Op> {
    let status_of = |o: &Value| o.get("status").cloned().unwrap_or(Value::Null);
    let delete = deleting(ours);
    match theirs {
        Some(theirs) if identity(theirs) == host::uid_of(ours) => {
            let main = comparable(ours, status_sub) != comparable(theirs, status_sub);
            let status = status_sub && status_of(ours) != status_of(theirs);
            let delete = delete && !deleting(theirs);
            if !(main || status || delete) {
                return Vec::new();
            }
            let mut object = ours.clone();
            let meta = &mut object["metadata"];
            meta["resourceVersion"] = theirs["metadata"]["resourceVersion"].clone();
            meta["uid"] = theirs["metadata"]["uid"].clone();
            if let Some(origin) = theirs["metadata"]["annotations"].get(ORIGIN_UID) {
                meta["annotations"][ORIGIN_UID] = origin.clone();
            }
            vec![Op::Update {
                object,
                main,
                status,
                delete,
            }]
        }
        other => {
            let mut ops: Vec<Op> = other.map(delete_op).into_iter().collect();
            let status = status_sub && !status_of(ours).is_null();
            let mut object = sendable(ours, false);
            object["metadata"]["annotations"][ORIGIN_UID] = ours["metadata"]["uid"].clone();
            ops.push(Op::Create {
                object,
                status,
                delete,
            });
            ops
        }
    }
}

fn delete_op(theirs: &Value) -> Op {
    let (namespace, name) = host::key_of(theirs);
    Op::Delete {
        namespace,
        name,
        uid: host::uid_of(theirs).to_string(),
    }
}

/// The writes that make the host's objects (`theirs`) ours: deletes first (so a create
/// can take a freed key), then updates and creates in our order.
pub fn plan(ours: &[Value], theirs: &[Value], status_subresource: bool) -> Vec<Op> {
    let by_key: HashMap<(String, String), &Value> =
        theirs.iter().map(|o| (host::key_of(o), o)).collect();
    let our_keys: std::collections::HashSet<(String, String)> =
        ours.iter().map(host::key_of).collect();
    let mut ops: Vec<Op> = theirs
        .iter()
        .filter(|o| !our_keys.contains(&host::key_of(o)) && !deleting(o))
        .map(delete_op)
        .collect();
    for object in ours {
        let theirs = by_key.get(&host::key_of(object)).copied();
        ops.extend(for_ours(object, theirs, status_subresource));
    }
    ops.sort_by_key(|op| !matches!(op, Op::Delete { .. }));
    ops
}

/// Writes `object`'s status at the host over the object as it stands (`written`).
async fn put_status(
    client: &kube::Client,
    collection: &str,
    object: &Value,
    written: &Value,
) -> Result<Value, kube::Error> {
    let mut body = object.clone();
    body["metadata"]["uid"] = written["metadata"]["uid"].clone();
    body["metadata"]["resourceVersion"] = written["metadata"]["resourceVersion"].clone();
    host::replace(client, collection, &body, Some("status"), false).await
}

/// Does one op; what it wrote (`written`, `recreated`, `deleted`).
async fn apply(
    client: &kube::Client,
    resource: &HostResource,
    op: Op,
) -> Result<Copied, kube::Error> {
    let one = |written, recreated, deleted| Copied {
        listed: 0,
        written,
        deleted,
        recreated,
    };
    match op {
        Op::Delete {
            namespace,
            name,
            uid,
        } => {
            host::delete(client, &resource.collection(Some(&namespace)), &name, &uid).await?;
            Ok(one(0, 0, 1))
        }
        Op::Update {
            object,
            main,
            status,
            delete,
        } => {
            let collection = resource.collection_of(&object);
            let mut written = object.clone();
            if main {
                written = host::replace(client, &collection, &object, None, false).await?;
            }
            if status {
                written = put_status(client, &collection, &object, &written).await?;
            }
            finish(client, &collection, &written, delete).await?;
            Ok(one(1, 0, 0))
        }
        Op::Create {
            object,
            status,
            delete,
        } => {
            let collection = resource.collection_of(&object);
            let mut written = host::create(client, &collection, &object, false).await?;
            if status {
                written = put_status(client, &collection, &object, &written).await?;
            }
            finish(client, &collection, &written, delete).await?;
            Ok(one(1, 1, 0))
        }
    }
}

/// Deletes `written` at the host when ours is being deleted.
async fn finish(
    client: &kube::Client,
    collection: &str,
    written: &Value,
    delete: bool,
) -> Result<(), kube::Error> {
    if !delete {
        return Ok(());
    }
    let (_, name) = host::key_of(written);
    host::delete(client, collection, &name, host::uid_of(written)).await
}

/// Syncs every resource of the unit back to the host.
pub async fn sync_back(
    client: &kube::Client,
    state: &Arc<AppState>,
    unit: &Unit,
) -> Result<Copied, StepError> {
    let mut total = Copied::default();
    for resource in HostResource::all(&unit.crds)? {
        let ours = here::list(state, &resource.group, &resource.plural).await?;
        let theirs = host::list_all(client, &resource).await?;
        total.listed += ours.len();
        for op in plan(&ours, &theirs, resource.status) {
            let done = apply(client, &resource, op).await.map_err(|e| {
                host::transient(
                    &format!("writing {} back to the host", resource.crd_name),
                    e,
                )
            })?;
            total.written += done.written;
            total.recreated += done.recreated;
            total.deleted += done.deleted;
        }
    }
    Ok(total)
}

#[cfg(test)]
#[path = "sync_back_tests.rs"]
mod tests;
