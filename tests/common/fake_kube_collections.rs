//! The fake kube-apiserver's collections of any kind, in the real wire format: for each
//! [`Resource`] served (cluster-scoped or namespaced, core `/api/v1` or `/apis/<g>/<v>`),
//! `GET` of the collection (a `…List` with its resourceVersion; across namespaces and per
//! namespace; `labelSelector` and `fieldSelector` honoured), of one object (or kube's 404
//! Status) and `?watch=1` (`{"type","object"}` lines from the requested version on, or the
//! objects as ADDED plus the initial-events-end BOOKMARK with `sendInitialEvents=true`).
//! Tests put and delete objects (watchers see ADDED, MODIFIED, DELETED; `generation` is bumped
//! when anything beside metadata changes), hold a collection's lists back, drop its open
//! watches and count its lists, gets and watches. Served by default: the webhook
//! configurations, the four admission policy kinds, ConfigMaps (but `kube-system`'s, which
//! `fake_kube.rs` serves itself) and [`CLUSTER_PARAMS`], a cluster-scoped param kind.
//! Discovery (`/api`, `/api/v1`, `/apis`, `/apis/<g>`, `/apis/<g>/<v>`) lists them all with the
//! namespaces, so a client's REST mapper resolves a paramKind.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use crd_apiserver::selector::field::FieldSelector;
use crd_apiserver::selector::label::LabelSelector;
use http::{Response, StatusCode};
use serde_json::{Value, json};
use tokio::sync::{broadcast, watch};

use super::FakeKube;
use super::wire::{reply, since, watch_stream};

/// A kind the fake serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resource {
    pub group: &'static str,
    pub version: &'static str,
    /// The plural resource name of the paths.
    pub plural: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
}

const fn registration(plural: &'static str, kind: &'static str) -> Resource {
    Resource {
        group: "admissionregistration.k8s.io",
        version: "v1",
        plural,
        kind,
        namespaced: false,
    }
}

pub const MUTATING_WEBHOOKS: Resource = registration(
    "mutatingwebhookconfigurations",
    "MutatingWebhookConfiguration",
);
pub const VALIDATING_WEBHOOKS: Resource = registration(
    "validatingwebhookconfigurations",
    "ValidatingWebhookConfiguration",
);
pub const VALIDATING_POLICIES: Resource =
    registration("validatingadmissionpolicies", "ValidatingAdmissionPolicy");
pub const VALIDATING_POLICY_BINDINGS: Resource = registration(
    "validatingadmissionpolicybindings",
    "ValidatingAdmissionPolicyBinding",
);
pub const MUTATING_POLICIES: Resource =
    registration("mutatingadmissionpolicies", "MutatingAdmissionPolicy");
pub const MUTATING_POLICY_BINDINGS: Resource = registration(
    "mutatingadmissionpolicybindings",
    "MutatingAdmissionPolicyBinding",
);
pub const CONFIGMAPS: Resource = Resource {
    group: "",
    version: "v1",
    plural: "configmaps",
    kind: "ConfigMap",
    namespaced: true,
};
/// A cluster-scoped param kind, as a CRD of the host cluster would serve it.
pub const CLUSTER_PARAMS: Resource = Resource {
    group: "params.example.com",
    version: "v1",
    plural: "clusterparams",
    kind: "ClusterParam",
    namespaced: false,
};
/// Served by `fake_kube_namespaces.rs`; listed in discovery.
pub const NAMESPACES: Resource = Resource {
    group: "",
    version: "v1",
    plural: "namespaces",
    kind: "Namespace",
    namespaced: false,
};

const DEFAULTS: [Resource; 8] = [
    MUTATING_WEBHOOKS,
    VALIDATING_WEBHOOKS,
    VALIDATING_POLICIES,
    VALIDATING_POLICY_BINDINGS,
    MUTATING_POLICIES,
    MUTATING_POLICY_BINDINGS,
    CONFIGMAPS,
    CLUSTER_PARAMS,
];

impl Resource {
    pub fn api_version(&self) -> String {
        match self.group {
            "" => self.version.to_string(),
            group => format!("{group}/{}", self.version),
        }
    }

    /// `/api/v1` or `/apis/<group>/<version>`.
    pub fn prefix(&self) -> String {
        match self.group {
            "" => format!("/api/{}", self.version),
            group => format!("/apis/{group}/{}", self.version),
        }
    }

    /// The collection's path, in `namespace` for a namespaced kind.
    pub fn path(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) => format!("{}/namespaces/{ns}/{}", self.prefix(), self.plural),
            None => format!("{}/{}", self.prefix(), self.plural),
        }
    }

    /// The entry of an APIResourceList.
    pub(super) fn discovery(&self) -> Value {
        json!({"name": self.plural, "singularName": self.kind.to_lowercase(),
            "namespaced": self.namespaced, "kind": self.kind,
            "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]})
    }
}

#[derive(Default)]
struct State {
    /// (namespace or "", name) → object, as last written.
    objects: BTreeMap<(String, String), Value>,
    revision: u64,
    /// Watch event lines with their revision.
    history: Vec<(u64, String)>,
    lists: usize,
    gets: usize,
    watches: usize,
}

/// One kind's objects.
pub struct Collection {
    pub resource: Resource,
    state: Mutex<State>,
    events: broadcast::Sender<(u64, String)>,
    /// While true, lists wait.
    held: watch::Sender<bool>,
    /// Bumped to end every open watch.
    drops: watch::Sender<u64>,
}

impl Collection {
    fn new(resource: Resource) -> Self {
        Collection {
            resource,
            state: Mutex::new(State {
                revision: 2000,
                ..State::default()
            }),
            events: broadcast::channel(256).0,
            held: watch::channel(false).0,
            drops: watch::channel(0).0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    /// Writes `object` (`Some`: add or modify, with server-set metadata) or deletes the
    /// object `namespace/name`.
    fn write(&self, namespace: Option<&str>, name: &str, object: Option<Value>) {
        let key = (namespace.unwrap_or_default().to_string(), name.to_string());
        let mut state = self.lock();
        state.revision += 1;
        let rv = state.revision;
        let previous = state.objects.get(&key).cloned();
        let (event, shown) = match (previous, object) {
            (None, Some(o)) => ("ADDED", self.stamp(o, &key, rv, None)),
            (Some(old), Some(o)) => ("MODIFIED", self.stamp(o, &key, rv, Some(&old))),
            (Some(mut old), None) => {
                old["metadata"]["resourceVersion"] = json!(rv.to_string());
                ("DELETED", old)
            }
            (None, None) => return,
        };
        match event {
            "DELETED" => state.objects.remove(&key),
            _ => state.objects.insert(key, shown.clone()),
        };
        let line = format!("{}\n", json!({"type": event, "object": shown}));
        state.history.push((rv, line.clone()));
        let _ = self.events.send((rv, line));
    }

    /// The object as kube-apiserver serves it: kind, apiVersion and server metadata set;
    /// `generation` bumped when anything beside metadata changed since `old`.
    fn stamp(
        &self,
        mut object: Value,
        key: &(String, String),
        rv: u64,
        old: Option<&Value>,
    ) -> Value {
        let (namespace, name) = key;
        object["kind"] = json!(self.resource.kind);
        object["apiVersion"] = json!(self.resource.api_version());
        let content = |o: &Value| {
            let mut o = o.clone();
            o.as_object_mut().map(|m| m.remove("metadata"));
            o
        };
        let generation = match old {
            None => 1,
            Some(old) => {
                let was = old["metadata"]["generation"].as_i64().unwrap_or(1);
                was + i64::from(content(old) != content(&object))
            }
        };
        let metadata = &mut object["metadata"];
        metadata["name"] = json!(name);
        if !namespace.is_empty() {
            metadata["namespace"] = json!(namespace);
        }
        let uid = format!(
            "uid-{}-{namespace}-{name}",
            self.resource.kind.to_lowercase()
        );
        metadata["uid"] = json!(uid);
        metadata["resourceVersion"] = json!(rv.to_string());
        metadata["generation"] = json!(generation);
        metadata["creationTimestamp"] = json!("2025-01-01T00:00:00Z");
        object
    }
}

/// Every collection of the fake, by resource.
pub struct Collections {
    all: Mutex<Vec<Arc<Collection>>>,
}

impl Default for Collections {
    fn default() -> Self {
        let all = DEFAULTS.map(|r| Arc::new(Collection::new(r))).to_vec();
        Collections {
            all: Mutex::new(all),
        }
    }
}

impl Collections {
    pub fn get(&self, resource: &Resource) -> Arc<Collection> {
        self.find(|c| c == resource)
            .unwrap_or_else(|| panic!("the fake does not serve {resource:?}"))
    }

    fn find(&self, wanted: impl Fn(&Resource) -> bool) -> Option<Arc<Collection>> {
        let all = self.all.lock().unwrap();
        all.iter().find(|c| wanted(&c.resource)).cloned()
    }

    fn by_kind(&self, api_version: &str, kind: &str) -> Arc<Collection> {
        self.find(|r| r.api_version() == api_version && r.kind == kind)
            .unwrap_or_else(|| panic!("the fake serves no {api_version} {kind}"))
    }

    pub(super) fn resources(&self) -> Vec<Resource> {
        let all = self.all.lock().unwrap();
        let mut resources: Vec<Resource> = all.iter().map(|c| c.resource).collect();
        resources.push(NAMESPACES);
        resources
    }
}

impl FakeKube {
    pub(super) fn collections(&self) -> &Collections {
        &self.shared.collections
    }

    /// Serves another kind too (a param kind, say); discovery lists it.
    pub fn serve_resource(&self, resource: Resource) {
        let collections = self.collections();
        if collections.find(|r| *r == resource).is_none() {
            let added = Arc::new(Collection::new(resource));
            collections.all.lock().unwrap().push(added);
        }
    }

    /// Creates or replaces an object of any served kind, found by its `apiVersion` and `kind`,
    /// named by `metadata.name` (and `metadata.namespace` for a namespaced kind). Watchers see
    /// ADDED or MODIFIED.
    pub fn put_object(&self, object: Value) {
        let api_version = object["apiVersion"].as_str().expect("apiVersion");
        let kind = object["kind"].as_str().expect("kind");
        let collection = self.collections().by_kind(api_version, kind);
        let name = object["metadata"]["name"]
            .as_str()
            .expect("name")
            .to_string();
        let namespace = object["metadata"]["namespace"].as_str().map(str::to_string);
        assert_eq!(
            namespace.is_some(),
            collection.resource.namespaced,
            "{kind} {name}: namespace {namespace:?}"
        );
        collection.write(namespace.as_deref(), &name, Some(object));
    }

    /// Deletes an object; watchers see DELETED.
    pub fn delete_object(&self, resource: &Resource, namespace: Option<&str>, name: &str) {
        self.collections()
            .get(resource)
            .write(namespace, name, None);
    }

    /// The object as served now.
    pub fn object(
        &self,
        resource: &Resource,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<Value> {
        let key = (namespace.unwrap_or_default().to_string(), name.to_string());
        self.collections()
            .get(resource)
            .lock()
            .objects
            .get(&key)
            .cloned()
    }

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

/// What a request path names.
enum Target {
    /// `/api`, `/apis`, `/apis/<g>`, `/api/v1`, `/apis/<g>/<v>`.
    Discovery(Response<Body>),
    Collection(Arc<Collection>, Option<String>),
    Object(Arc<Collection>, Option<String>, String),
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
    match target(collections, path)? {
        Target::Discovery(resp) => Some(resp),
        Target::Object(c, ns, name) => Some(get(&c, ns.as_deref(), &name)),
        Target::Collection(c, ns) => Some(match params.get("watch") {
            Some("true" | "1") => watch_from(&c, ns, &params),
            _ => list(&c, ns.as_deref(), &params).await,
        }),
    }
}

fn target(collections: &Collections, path: &str) -> Option<Target> {
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
        [plural, name] => Some(Target::Object(find(plural, false)?, None, name.to_string())),
        _ => None,
    }
}

/// The query's parameters, percent-decoded.
struct Params(Vec<(String, String)>);

impl Params {
    fn parse(query: &str) -> Params {
        let pairs = query.split('&').filter(|p| !p.is_empty()).map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        });
        Params(pairs.collect())
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether `object` is in `namespace` and passes the label and field selectors.
    fn selects(&self, namespace: Option<&str>, object: &Value) -> bool {
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

fn get(collection: &Collection, namespace: Option<&str>, name: &str) -> Response<Body> {
    let mut state = collection.lock();
    state.gets += 1;
    let key = (namespace.unwrap_or_default().to_string(), name.to_string());
    match state.objects.get(&key) {
        Some(object) => reply(StatusCode::OK, object),
        None => {
            let (plural, group) = (collection.resource.plural, collection.resource.group);
            let kind = match group {
                "" => plural.to_string(),
                g => format!("{plural}.{g}"),
            };
            let mut details = json!({"name": name, "kind": plural});
            if !group.is_empty() {
                details["group"] = json!(group);
            }
            let body = json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": format!("{kind} \"{name}\" not found"),
                "reason": "NotFound", "details": details, "code": 404});
            reply(StatusCode::NOT_FOUND, &body)
        }
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
        "metadata": {"resourceVersion": state.revision.to_string()}, "items": items});
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
            true => state.revision,
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
    let keep = move |line: &str| {
        let event: Value = serde_json::from_str(line).unwrap();
        event["type"] == "BOOKMARK" || selection.selects(namespace.as_deref(), &event["object"])
    };
    let mut drops = collection.drops.subscribe();
    let dropped = async move {
        let _ = drops.changed().await;
    };
    watch_stream(past, live, from, keep, dropped)
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
