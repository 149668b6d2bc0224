//! The fake kube-apiserver's webhook configurations, in the real wire format:
//! `GET /apis/admissionregistration.k8s.io/v1/{mutating,validating}webhookconfigurations`
//! (a `…List` with its resourceVersion; `?watch=1` streams `{"type","object"}` lines from
//! the requested version on). Tests put and delete configurations (watchers see ADDED,
//! MODIFIED, DELETED), hold the lists back, drop every open watch, and count lists and
//! watches.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use http::{Response, StatusCode};
use serde_json::{Value, json};
use tokio::sync::{broadcast, watch};

use super::FakeKube;
use super::wire::{reply, since, watch_stream};

const GROUP_VERSION: &str = "admissionregistration.k8s.io/v1";
pub const MUTATING: &str = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
pub const VALIDATING: &str =
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

#[derive(Default)]
struct State {
    /// name → object, as last written.
    objects: BTreeMap<String, Value>,
    revision: u64,
    /// Watch event lines with their revision.
    history: Vec<(u64, String)>,
    lists: usize,
    watches: usize,
}

/// One configuration kind's collection.
struct Collection {
    kind: &'static str,
    state: Mutex<State>,
    events: broadcast::Sender<(u64, String)>,
}

impl Collection {
    fn new(kind: &'static str) -> Self {
        Collection {
            kind,
            state: Mutex::new(State {
                revision: 2000,
                ..State::default()
            }),
            events: broadcast::channel(64).0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    /// Writes `object` (`Some`: add or modify, with server-set metadata) or deletes `name`.
    fn write(&self, name: &str, object: Option<Value>) {
        let mut state = self.lock();
        state.revision += 1;
        let rv = state.revision;
        let previous = state.objects.get(name).cloned();
        let (event, shown) = match (previous, object) {
            (None, Some(o)) => ("ADDED", self.stamp(o, name, rv)),
            (Some(_), Some(o)) => ("MODIFIED", self.stamp(o, name, rv)),
            (Some(mut old), None) => {
                old["metadata"]["resourceVersion"] = json!(rv.to_string());
                ("DELETED", old)
            }
            (None, None) => return,
        };
        match event {
            "DELETED" => state.objects.remove(name),
            _ => state.objects.insert(name.to_string(), shown.clone()),
        };
        let line = format!("{}\n", json!({"type": event, "object": shown}));
        state.history.push((rv, line.clone()));
        let _ = self.events.send((rv, line));
    }

    /// The object as kube-apiserver serves it: kind, apiVersion and server metadata set.
    fn stamp(&self, mut object: Value, name: &str, rv: u64) -> Value {
        object["kind"] = json!(self.kind);
        object["apiVersion"] = json!(GROUP_VERSION);
        let metadata = &mut object["metadata"];
        metadata["name"] = json!(name);
        metadata["uid"] = json!(format!("uid-{}-{name}", self.kind));
        metadata["resourceVersion"] = json!(rv.to_string());
        metadata["generation"] = json!(1);
        metadata["creationTimestamp"] = json!("2025-01-01T00:00:00Z");
        object
    }
}

/// The webhook configurations part of the fake's shared state.
pub struct Webhooks {
    mutating: Collection,
    validating: Collection,
    /// While true, lists of both kinds wait.
    held: watch::Sender<bool>,
    /// Bumped to end every open watch.
    drops: watch::Sender<u64>,
}

impl Default for Webhooks {
    fn default() -> Self {
        Webhooks {
            mutating: Collection::new("MutatingWebhookConfiguration"),
            validating: Collection::new("ValidatingWebhookConfiguration"),
            held: watch::channel(false).0,
            drops: watch::channel(0).0,
        }
    }
}

impl Webhooks {
    fn collection(&self, kind: &str) -> &Collection {
        match kind {
            "MutatingWebhookConfiguration" => &self.mutating,
            "ValidatingWebhookConfiguration" => &self.validating,
            other => panic!("not a webhook configuration kind: {other}"),
        }
    }
}

impl FakeKube {
    fn webhooks(&self) -> &Webhooks {
        &self.shared.webhooks
    }

    /// Creates or replaces a configuration; `object["kind"]` says which kind, and
    /// `object["metadata"]["name"]` names it. Watchers see ADDED or MODIFIED.
    pub fn put_webhook_configuration(&self, object: Value) {
        let kind = object["kind"].as_str().expect("kind").to_string();
        let name = object["metadata"]["name"]
            .as_str()
            .expect("name")
            .to_string();
        self.webhooks().collection(&kind).write(&name, Some(object));
    }

    /// Deletes a configuration of `kind`; watchers see DELETED.
    pub fn delete_webhook_configuration(&self, kind: &str, name: &str) {
        self.webhooks().collection(kind).write(name, None);
    }

    /// Lists of both kinds wait until [`FakeKube::release_webhook_lists`].
    pub fn hold_webhook_lists(&self) {
        self.webhooks().held.send_replace(true);
    }

    pub fn release_webhook_lists(&self) {
        self.webhooks().held.send_replace(false);
    }

    /// Ends every open configuration watch (the stream closes as on a server timeout).
    pub fn drop_webhook_watches(&self) {
        self.webhooks().drops.send_modify(|g| *g += 1);
    }

    /// Lists answered so far, both kinds together.
    pub fn webhook_lists(&self) -> usize {
        let w = self.webhooks();
        w.mutating.lock().lists + w.validating.lock().lists
    }

    /// Watches opened so far, both kinds together.
    pub fn webhook_watches(&self) -> usize {
        let w = self.webhooks();
        w.mutating.lock().watches + w.validating.lock().watches
    }
}

/// `GET` of a configuration collection (`path` is [`MUTATING`] or [`VALIDATING`]).
pub(super) async fn serve(shared: &Arc<super::Shared>, path: &str, query: &str) -> Response<Body> {
    let webhooks = &shared.webhooks;
    let collection = match path {
        MUTATING => &webhooks.mutating,
        _ => &webhooks.validating,
    };
    let param = |key: &str| {
        query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (k == key).then(|| v.to_string())
        })
    };
    match param("watch").as_deref() {
        Some("true" | "1") => {
            let from = param("resourceVersion")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            watch_from(webhooks, collection, from)
        }
        _ => list(webhooks, collection).await,
    }
}

async fn list(webhooks: &Webhooks, collection: &Collection) -> Response<Body> {
    let mut held = webhooks.held.subscribe();
    let _ = held.wait_for(|h| !*h).await;
    let mut state = collection.lock();
    state.lists += 1;
    let items: Vec<Value> = state.objects.values().cloned().collect();
    let body = json!({"kind": format!("{}List", collection.kind), "apiVersion": GROUP_VERSION,
        "metadata": {"resourceVersion": state.revision.to_string()}, "items": items});
    reply(StatusCode::OK, &body)
}

fn watch_from(webhooks: &Webhooks, collection: &Collection, from: u64) -> Response<Body> {
    let (past, live) = {
        let mut state = collection.lock();
        state.watches += 1;
        (since(&state.history, from), collection.events.subscribe())
    };
    let mut drops = webhooks.drops.subscribe();
    let dropped = async move {
        let _ = drops.changed().await;
    };
    watch_stream(past, live, from, dropped)
}
