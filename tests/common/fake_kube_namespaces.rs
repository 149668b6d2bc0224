//! The fake kube-apiserver's namespaces, in the real wire format: `GET /api/v1/namespaces`
//! (a `NamespaceList` with its resourceVersion; `?watch=1` streams `{"type","object"}`
//! lines from the requested version on, or with `sendInitialEvents=true` every namespace as
//! ADDED then the initial-events-end BOOKMARK, as client-go's watch-list expects) and `GET /api/v1/namespaces/<name>` (the object,
//! or kube's 404 Status). Tests add namespaces, mark them terminating, label them, delete
//! them, hold the list back, and drop every open watch. Starts with kube's `default`, `kube-system`
//! and `kube-public`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use http::{Response, StatusCode};
use serde_json::{Value, json};
use tokio::sync::{broadcast, watch};

use super::FakeKube;
use super::wire::{reply, since, watch_stream};

pub const NAMESPACES: &str = "/api/v1/namespaces";

struct State {
    /// name → object, as last written.
    objects: BTreeMap<String, Value>,
    revision: u64,
    /// Watch event lines with their revision.
    history: Vec<(u64, String)>,
    lists: usize,
    watches: usize,
    /// Names asked for by a live GET, in order.
    lookups: Vec<String>,
    /// Labels set by tests, beside kube's `kubernetes.io/metadata.name`.
    labels: BTreeMap<String, BTreeMap<String, String>>,
}

/// The namespaces part of the fake's shared state.
pub struct Namespaces {
    state: Mutex<State>,
    events: broadcast::Sender<(u64, String)>,
    /// While true, lists wait.
    held: watch::Sender<bool>,
    /// Bumped to end every open watch.
    drops: watch::Sender<u64>,
}

impl Default for Namespaces {
    fn default() -> Self {
        let namespaces = Namespaces {
            state: Mutex::new(State {
                objects: BTreeMap::new(),
                revision: 1000,
                history: Vec::new(),
                lists: 0,
                watches: 0,
                lookups: Vec::new(),
                labels: BTreeMap::new(),
            }),
            events: broadcast::channel(64).0,
            held: watch::channel(false).0,
            drops: watch::channel(0).0,
        };
        for name in ["default", "kube-system", "kube-public"] {
            namespaces.write(name, Some(false));
        }
        namespaces
    }
}

/// A Namespace as kube-apiserver serves it.
fn object(name: &str, rv: u64, terminating: bool) -> Value {
    let mut ns = json!({"kind": "Namespace", "apiVersion": "v1",
        "metadata": {"name": name, "uid": format!("uid-ns-{name}"), "resourceVersion": rv.to_string(),
            "creationTimestamp": "2025-01-01T00:00:00Z",
            "labels": {"kubernetes.io/metadata.name": name}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"}});
    if terminating {
        ns["metadata"]["deletionTimestamp"] = json!("2025-01-01T00:05:00Z");
        ns["status"]["phase"] = json!("Terminating");
    }
    ns
}

impl Namespaces {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    /// Writes `name`: `Some(terminating)` adds or modifies it, `None` deletes it.
    fn write(&self, name: &str, terminating: Option<bool>) {
        let mut state = self.lock();
        state.revision += 1;
        let rv = state.revision;
        let (kind, mut shown) = match (state.objects.contains_key(name), terminating) {
            (false, Some(t)) => ("ADDED", object(name, rv, t)),
            (true, Some(t)) => ("MODIFIED", object(name, rv, t)),
            (true, None) => ("DELETED", object(name, rv, true)),
            (false, None) => return,
        };
        for (key, value) in state.labels.get(name).into_iter().flatten() {
            shown["metadata"]["labels"][key] = json!(value);
        }
        match terminating {
            Some(_) => state.objects.insert(name.to_string(), shown.clone()),
            None => state.objects.remove(name),
        };
        let line = format!("{}\n", json!({"type": kind, "object": shown}));
        state.history.push((rv, line.clone()));
        let _ = self.events.send((rv, line));
    }
}

impl FakeKube {
    fn namespaces(&self) -> &Namespaces {
        &self.shared.namespaces
    }

    /// Adds an Active namespace; watchers see ADDED.
    pub fn add_namespace(&self, name: &str) {
        self.namespaces().write(name, Some(false));
    }

    /// Marks a namespace as being deleted (deletionTimestamp, phase Terminating).
    pub fn terminate_namespace(&self, name: &str) {
        self.namespaces().write(name, Some(true));
    }

    /// Sets a namespace's labels (beside `kubernetes.io/metadata.name`), adding it
    /// Active if missing; watchers see ADDED or MODIFIED.
    pub fn set_namespace_labels(&self, name: &str, labels: &[(&str, &str)]) {
        let namespaces = self.namespaces();
        let terminating = {
            let mut state = namespaces.lock();
            let set = labels.iter().map(|(k, v)| (k.to_string(), v.to_string()));
            state.labels.insert(name.to_string(), set.collect());
            state
                .objects
                .get(name)
                .is_some_and(|ns| ns["status"]["phase"] == "Terminating")
        };
        namespaces.write(name, Some(terminating));
    }

    /// Removes a namespace; watchers see DELETED.
    pub fn delete_namespace(&self, name: &str) {
        self.namespaces().write(name, None);
    }

    /// Namespace lists wait until [`FakeKube::release_namespace_list`].
    pub fn hold_namespace_list(&self) {
        self.namespaces().held.send_replace(true);
    }

    pub fn release_namespace_list(&self) {
        self.namespaces().held.send_replace(false);
    }

    /// Ends every open namespace watch (the stream closes as on a server timeout).
    pub fn drop_namespace_watches(&self) {
        self.namespaces().drops.send_modify(|g| *g += 1);
    }

    /// Namespace lists answered so far.
    pub fn namespace_lists(&self) -> usize {
        self.namespaces().lock().lists
    }

    /// Namespace watches opened so far.
    pub fn namespace_watches(&self) -> usize {
        self.namespaces().lock().watches
    }

    /// Names of the namespaces fetched one by one (live lookups), in order.
    pub fn namespace_lookups(&self) -> Vec<String> {
        self.namespaces().lock().lookups.clone()
    }
}

/// `GET /api/v1/namespaces[/<name>]`.
pub(super) async fn serve(
    namespaces: &Arc<super::Shared>,
    path: &str,
    query: &str,
) -> Response<Body> {
    let namespaces = &namespaces.namespaces;
    let param = |key: &str| {
        query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (k == key).then(|| v.to_string())
        })
    };
    if let Some(name) = path
        .strip_prefix(NAMESPACES)
        .and_then(|p| p.strip_prefix('/'))
    {
        return get(namespaces, name);
    }
    match param("watch").as_deref() {
        Some("true" | "1") => {
            let from = param("resourceVersion")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let initial = param("sendInitialEvents").as_deref() == Some("true");
            watch_from(namespaces, from, initial)
        }
        _ => list(namespaces).await,
    }
}

fn get(namespaces: &Namespaces, name: &str) -> Response<Body> {
    let mut state = namespaces.lock();
    state.lookups.push(name.to_string());
    match state.objects.get(name) {
        Some(ns) => reply(StatusCode::OK, ns),
        None => {
            let body = json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": format!("namespaces \"{name}\" not found"),
                "reason": "NotFound", "details": {"name": name, "kind": "namespaces"}, "code": 404});
            reply(StatusCode::NOT_FOUND, &body)
        }
    }
}

async fn list(namespaces: &Namespaces) -> Response<Body> {
    let mut held = namespaces.held.subscribe();
    let _ = held.wait_for(|h| !*h).await;
    let mut state = namespaces.lock();
    state.lists += 1;
    let items: Vec<Value> = state.objects.values().cloned().collect();
    let body = json!({"kind": "NamespaceList", "apiVersion": "v1",
        "metadata": {"resourceVersion": state.revision.to_string()}, "items": items});
    reply(StatusCode::OK, &body)
}

/// A watch from revision `from`, or with `initial` (`sendInitialEvents=true`, client-go's
/// watch-list) every namespace as ADDED, then the BOOKMARK that ends the initial events.
fn watch_from(namespaces: &Namespaces, from: u64, initial: bool) -> Response<Body> {
    let (past, live, from) = {
        let mut state = namespaces.lock();
        state.watches += 1;
        let past = match initial {
            true => initial_events(&state),
            false => since(&state.history, from),
        };
        let from = if initial { state.revision } else { from };
        (past, namespaces.events.subscribe(), from)
    };
    let mut drops = namespaces.drops.subscribe();
    let dropped = async move {
        let _ = drops.changed().await;
    };
    watch_stream(past, live, from, |l| Some(l.into()), dropped)
}

fn initial_events(state: &State) -> Vec<(u64, String)> {
    let rv = state.revision;
    let line = |event: Value| (rv, format!("{event}\n"));
    let mut lines: Vec<(u64, String)> = state
        .objects
        .values()
        .map(|o| line(json!({"type": "ADDED", "object": o})))
        .collect();
    lines.push(line(
        json!({"type": "BOOKMARK", "object": {"kind": "Namespace",
        "apiVersion": "v1", "metadata": {"resourceVersion": rv.to_string(),
            "annotations": {"k8s.io/initial-events-end": "true"}}}}),
    ));
    lines
}
