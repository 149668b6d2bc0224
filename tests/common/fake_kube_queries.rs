//! The fake kube-apiserver's answers to `GET` of the collections `fake_kube_collections.rs`
//! holds, in the real wire format: a path resolved to discovery, a collection or one object;
//! the query percent-decoded; a collection's list (a `…List` with its resourceVersion, across
//! namespaces or in one, `labelSelector` and `fieldSelector` honoured and held back while a
//! test holds it), one object (or kube's 404 Status) and `?watch=1` (`{"type","object"}` lines
//! from the requested version on, or the objects as ADDED plus the initial-events-end BOOKMARK
//! with `sendInitialEvents=true`), each counted; an unparsable selector is kube's 400
//! BadRequest. Tests hold a collection's lists back, drop its open watches and read the counts.

use std::sync::Arc;

use axum::body::Body;
use crd_apiserver::selector::field::FieldSelector;
use crd_apiserver::selector::label::LabelSelector;
use http::{Response, StatusCode};
use serde_json::{Value, json};

use super::collections::{Collection, Collections, Resource, State};
use super::wire::{reply, since, watch_stream};

/// What a request path names.
pub(super) enum Target {
    /// `/api`, `/apis`, `/apis/<g>`, `/api/v1`, `/apis/<g>/<v>`.
    Discovery(Response<Body>),
    Collection(Arc<Collection>, Option<String>),
    Object(Arc<Collection>, Option<String>, String),
    /// The `/status` subresource of an object (of a kind that has it).
    Status(Arc<Collection>, Option<String>, String),
}

/// `GET` of a discovery document, a collection or an object; `None` when the path names
/// nothing served here.
pub(super) async fn serve(
    shared: &Arc<super::Shared>,
    path: &str,
    query: &str,
) -> Option<Response<Body>> {
    let collections = &shared.collections;
    let params = Params::parse(query);
    let target = target(collections, path)?;
    if let Err(invalid) = params.selectors() {
        return Some(invalid.response());
    }
    match target {
        Target::Discovery(resp) => Some(resp),
        Target::Object(c, ns, name) | Target::Status(c, ns, name) => {
            Some(get(&c, ns.as_deref(), &name))
        }
        Target::Collection(c, ns) => Some(match params.get("watch") {
            Some("true" | "1") => watch_from(&c, ns, &params),
            _ => list(&c, ns.as_deref(), &params).await,
        }),
    }
}

pub(super) fn target(collections: &Collections, path: &str) -> Option<Target> {
    use super::discovery::{api_versions, group_document, groups, resource_list};
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, rest) = match parts.as_slice() {
        ["api"] => return Some(Target::Discovery(reply(StatusCode::OK, &api_versions()))),
        ["apis"] => {
            return Some(Target::Discovery(reply(
                StatusCode::OK,
                &groups(collections),
            )));
        }
        ["apis", group] => return group_document(collections, group).map(Target::Discovery),
        ["api", rest @ ..] => ("", rest),
        ["apis", group, rest @ ..] => (*group, rest),
        _ => return None,
    };
    let (version, rest) = rest.split_first()?;
    let find = |plural: &str, namespaced: bool| {
        collections.find(|r| {
            r.group == group
                && r.version == *version
                && r.plural == plural
                && r.namespaced == namespaced
        })
    };
    match rest {
        [] => resource_list(collections, group, version).map(Target::Discovery),
        ["namespaces", ns, plural] => Some(Target::Collection(
            find(plural, true)?,
            Some(ns.to_string()),
        )),
        ["namespaces", ns, plural, name] => Some(Target::Object(
            find(plural, true)?,
            Some(ns.to_string()),
            name.to_string(),
        )),
        [plural] => {
            let c = find(plural, false).or_else(|| find(plural, true))?;
            Some(Target::Collection(c, None))
        }
        ["namespaces", ns, plural, name, "status"] => Some(Target::Status(
            find(plural, true).filter(|c| c.resource.status)?,
            Some(ns.to_string()),
            name.to_string(),
        )),
        [plural, name] => Some(Target::Object(find(plural, false)?, None, name.to_string())),
        [plural, name, "status"] => Some(Target::Status(
            find(plural, false).filter(|c| c.resource.status)?,
            None,
            name.to_string(),
        )),
        _ => None,
    }
}

/// The query's parameters, percent-decoded.
pub(super) struct Params(pub(super) Vec<(String, String)>);

impl Params {
    pub(super) fn parse(query: &str) -> Params {
        let pairs = query.split('&').filter(|p| !p.is_empty()).map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        });
        Params(pairs.collect())
    }

    pub(super) fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// kube's 400 BadRequest Status when the label or field selector does not parse.
    fn selectors(&self) -> Result<(), super::errors::Failure> {
        let label = LabelSelector::parse(self.get("labelSelector").unwrap_or_default())
            .map(|_| ())
            .map_err(|e| e.to_string());
        let field = FieldSelector::parse(self.get("fieldSelector").unwrap_or_default())
            .map(|_| ())
            .map_err(|e| e.to_string());
        label
            .and(field)
            .map_err(|message| super::errors::bad_request(&message))
    }

    /// Whether `object` is in `namespace` and passes the label and field selectors.
    pub(super) fn selects(&self, namespace: Option<&str>, object: &Value) -> bool {
        let metadata = &object["metadata"];
        let labels = metadata["labels"].as_object().cloned().unwrap_or_default();
        let labelled = LabelSelector::parse(self.get("labelSelector").unwrap_or_default())
            .unwrap()
            .matches(&labels);
        let field = |path: &str| -> Option<String> {
            let key = path.strip_prefix("metadata.")?;
            metadata[key].as_str().map(str::to_string)
        };
        let fields = FieldSelector::parse(self.get("fieldSelector").unwrap_or_default())
            .unwrap()
            .matches(field);
        let in_namespace = namespace.is_none_or(|ns| metadata["namespace"] == json!(ns));
        labelled && fields && in_namespace
    }
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(super) fn get(collection: &Collection, namespace: Option<&str>, name: &str) -> Response<Body> {
    let mut state = collection.lock();
    state.gets += 1;
    let key = (namespace.unwrap_or_default().to_string(), name.to_string());
    match state.objects.get(&key) {
        Some(object) => reply(StatusCode::OK, object),
        None => super::errors::not_found(&collection.resource, name).response(),
    }
}

async fn list(collection: &Collection, namespace: Option<&str>, params: &Params) -> Response<Body> {
    let mut held = collection.held.subscribe();
    let _ = held.wait_for(|h| !*h).await;
    let mut state = collection.lock();
    state.lists += 1;
    let items: Vec<Value> = state
        .objects
        .values()
        .filter(|o| params.selects(namespace, o))
        .cloned()
        .collect();
    let body = json!({"kind": format!("{}List", collection.resource.kind),
        "apiVersion": collection.resource.api_version(),
        "metadata": {"resourceVersion": collection.revision().to_string()}, "items": items});
    reply(StatusCode::OK, &body)
}

fn watch_from(
    collection: &Collection,
    namespace: Option<String>,
    params: &Params,
) -> Response<Body> {
    let initial = params.get("sendInitialEvents") == Some("true");
    let (past, live, from) = {
        let mut state = collection.lock();
        state.watches += 1;
        let from = match initial {
            true => collection.revision(),
            false => params
                .get("resourceVersion")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
        };
        let past = match initial {
            true => initial_events(collection, &state, from),
            false => since(&state.history, from),
        };
        (past, collection.events.subscribe(), from)
    };
    let selection = Params(params.0.clone());
    // kube's watch cache: an object modified into the selection is ADDED, out of it DELETED.
    let shown = move |line: &str| {
        let mut event: Value = serde_json::from_str(line).ok()?;
        let previous = event.as_object_mut()?.remove("previous");
        let selects = |o: &Value| selection.selects(namespace.as_deref(), o);
        let now = selects(&event["object"]);
        let kind = match (event["type"].as_str()?, previous.as_ref().map(selects), now) {
            ("BOOKMARK", _, _) => "BOOKMARK",
            ("MODIFIED", Some(true), false) => "DELETED",
            ("MODIFIED", Some(false), true) => "ADDED",
            (kind, _, true) => kind,
            _ => return None,
        };
        event["type"] = json!(kind);
        Some(format!("{event}\n"))
    };
    let mut drops = collection.drops.subscribe();
    let dropped = async move {
        let _ = drops.changed().await;
    };
    watch_stream(past, live, from, shown, dropped)
}

/// A watch-list's start: every object as ADDED, then the BOOKMARK that ends the initial events.
fn initial_events(collection: &Collection, state: &State, rv: u64) -> Vec<(u64, String)> {
    let line = |event: Value| (rv, format!("{event}\n"));
    let mut lines: Vec<(u64, String)> = state
        .objects
        .values()
        .map(|o| line(json!({"type": "ADDED", "object": o})))
        .collect();
    let r = &collection.resource;
    lines.push(line(
        json!({"type": "BOOKMARK", "object": {"kind": r.kind, "apiVersion": r.api_version(),
        "metadata": {"resourceVersion": rv.to_string(),
            "annotations": {"k8s.io/initial-events-end": "true"}}}}),
    ));
    lines
}

/// Holding, dropping and counting a collection's reads.
impl super::FakeKube {
    /// Lists of `resource` wait until [`FakeKube::release_lists`].
    pub fn hold_lists(&self, resource: &Resource) {
        self.collections().get(resource).held.send_replace(true);
    }

    pub fn release_lists(&self, resource: &Resource) {
        self.collections().get(resource).held.send_replace(false);
    }

    /// Ends every open watch of `resource` (the stream closes as on a server timeout).
    pub fn drop_watches(&self, resource: &Resource) {
        self.collections()
            .get(resource)
            .drops
            .send_modify(|g| *g += 1);
    }

    /// Lists of `resource` answered so far (all namespaces together).
    pub fn lists(&self, resource: &Resource) -> usize {
        self.collections().get(resource).lock().lists
    }

    /// Single-object GETs of `resource` answered so far.
    pub fn gets(&self, resource: &Resource) -> usize {
        self.collections().get(resource).lock().gets
    }

    /// Watches of `resource` opened so far.
    pub fn watches(&self, resource: &Resource) -> usize {
        self.collections().get(resource).lock().watches
    }
}
