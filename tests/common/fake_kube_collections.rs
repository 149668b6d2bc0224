//! The fake kube-apiserver's collections of any kind: for each [`Resource`] served
//! (cluster-scoped or namespaced, core `/api/v1` or `/apis/<g>/<v>`) the objects, their
//! revision and watch history, and the helpers tests use on them. Tests put and delete objects
//! (watchers see ADDED, MODIFIED, DELETED; `generation` is bumped when anything beside metadata
//! changes); every write, theirs or a client's (`fake_kube_writes.rs`), takes the next value
//! of the fake's one resourceVersion counter. Served by default: the webhook configurations,
//! the four admission policy kinds, ConfigMaps (but `kube-system`'s, which `fake_kube.rs`
//! serves itself), [`CLUSTER_PARAMS`], a cluster-scoped param kind, and the host kinds of
//! `fake_kube_host.rs`. `fake_kube_queries.rs` answers the `GET`s (list, get, watch) and
//! `fake_kube_discovery.rs` lists them all with the namespaces, so a client's REST mapper
//! resolves a paramKind.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::{broadcast, watch};

use super::FakeKube;

/// A kind the fake serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resource {
    pub group: &'static str,
    pub version: &'static str,
    /// The plural resource name of the paths.
    pub plural: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
    /// Whether it has the `/status` subresource (writes to the object keep the old status,
    /// writes to `/status` keep everything else).
    pub status: bool,
}

const fn registration(plural: &'static str, kind: &'static str) -> Resource {
    Resource {
        group: "admissionregistration.k8s.io",
        version: "v1",
        plural,
        kind,
        namespaced: false,
        status: false,
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
    status: false,
};
/// A cluster-scoped param kind, as a CRD of the host cluster would serve it.
pub const CLUSTER_PARAMS: Resource = Resource {
    group: "params.example.com",
    version: "v1",
    plural: "clusterparams",
    kind: "ClusterParam",
    namespaced: false,
    status: false,
};
/// Served by `fake_kube_namespaces.rs`; listed in discovery.
pub const NAMESPACES: Resource = Resource {
    group: "",
    version: "v1",
    plural: "namespaces",
    kind: "Namespace",
    namespaced: false,
    status: false,
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
pub(super) struct State {
    /// (namespace or "", name) → object, as last written.
    pub(super) objects: BTreeMap<(String, String), Value>,
    /// The resourceVersion of this collection's last write.
    pub(super) revision: u64,
    /// Watch event lines with their revision.
    pub(super) history: Vec<(u64, String)>,
    pub(super) lists: usize,
    pub(super) gets: usize,
    pub(super) watches: usize,
}

/// One kind's objects.
pub struct Collection {
    pub resource: Resource,
    state: Mutex<State>,
    /// The fake's one resourceVersion counter, shared by every collection (as etcd's revision).
    counter: Arc<AtomicU64>,
    pub(super) events: broadcast::Sender<(u64, String)>,
    /// While true, lists wait.
    pub(super) held: watch::Sender<bool>,
    /// Bumped to end every open watch.
    pub(super) drops: watch::Sender<u64>,
}

impl Collection {
    fn new(resource: Resource, counter: Arc<AtomicU64>) -> Self {
        Collection {
            resource,
            state: Mutex::new(State::default()),
            counter,
            events: broadcast::channel(256).0,
            held: watch::channel(false).0,
            drops: watch::channel(0).0,
        }
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    /// The fake's current resourceVersion (read under this collection's lock, every write of
    /// this collection up to it is in its objects).
    pub(super) fn revision(&self) -> u64 {
        self.counter.load(Ordering::SeqCst)
    }

    /// Writes `object` (`Some`: add or modify, with server-set metadata) or deletes the
    /// object `namespace/name`.
    fn write(&self, namespace: Option<&str>, name: &str, object: Option<Value>) {
        let key = (namespace.unwrap_or_default().to_string(), name.to_string());
        let mut state = self.lock();
        let previous = state.objects.get(&key).cloned();
        let stored = match (object, previous.is_some()) {
            (Some(o), _) => Some(self.stamp(o, &key, previous.as_ref())),
            (None, true) => None,
            (None, false) => return,
        };
        self.commit(&mut state, &key, stored);
    }

    /// Stores `object` at `key` (`None`: removes it) with the next resourceVersion, and sends
    /// watchers ADDED, MODIFIED or DELETED; returns the object as stored (or as deleted).
    pub(super) fn commit(
        &self,
        state: &mut State,
        key: &(String, String),
        object: Option<Value>,
    ) -> Value {
        let rv = self.counter.fetch_add(1, Ordering::SeqCst) + 1;
        state.revision = rv;
        let previous = state.objects.remove(key);
        let (event, mut shown) = match (previous.clone(), object) {
            (None, Some(o)) => ("ADDED", o),
            (Some(_), Some(o)) => ("MODIFIED", o),
            (Some(old), None) => ("DELETED", old),
            (None, None) => return Value::Null,
        };
        shown["metadata"]["resourceVersion"] = json!(rv.to_string());
        if event != "DELETED" {
            state.objects.insert(key.clone(), shown.clone());
        }
        // `previous` (the object before a MODIFIED) lets a selecting watch turn the event
        // into ADDED or DELETED; `fake_kube_queries.rs` removes it before sending.
        let mut event = json!({"type": event, "object": shown});
        if let (Some(previous), "MODIFIED") = (previous, event["type"].as_str().unwrap_or_default())
        {
            event["previous"] = previous;
        }
        let line = format!("{event}\n");
        state.history.push((rv, line.clone()));
        let _ = self.events.send((rv, line));
        shown
    }

    /// The object as kube-apiserver serves it: kind, apiVersion and server metadata set;
    /// `generation` bumped when anything beside metadata changed since `old`; the uid kept
    /// (a new object's from the test, or derived from its name).
    fn stamp(&self, mut object: Value, key: &(String, String), old: Option<&Value>) -> Value {
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
        let derived = format!(
            "uid-{}-{namespace}-{name}",
            self.resource.kind.to_lowercase()
        );
        let uid = match (old, object["metadata"]["uid"].as_str()) {
            (Some(old), _) => old["metadata"]["uid"].clone(),
            (None, Some(given)) => json!(given),
            (None, None) => json!(derived),
        };
        let metadata = &mut object["metadata"];
        metadata["name"] = json!(name);
        if !namespace.is_empty() {
            metadata["namespace"] = json!(namespace);
        }
        metadata["uid"] = uid;
        metadata["generation"] = json!(generation);
        if metadata["creationTimestamp"].as_str().is_none() {
            metadata["creationTimestamp"] = json!("2025-01-01T00:00:00Z");
        }
        object
    }
}

/// Every collection of the fake, by resource.
pub struct Collections {
    all: Mutex<Vec<Arc<Collection>>>,
    counter: Arc<AtomicU64>,
}

impl Default for Collections {
    fn default() -> Self {
        let counter = Arc::new(AtomicU64::new(2000));
        let all = DEFAULTS
            .iter()
            .chain(super::host::HOST_RESOURCES.iter())
            .map(|r| Arc::new(Collection::new(*r, counter.clone())))
            .collect();
        Collections {
            all: Mutex::new(all),
            counter,
        }
    }
}

impl Collections {
    pub fn get(&self, resource: &Resource) -> Arc<Collection> {
        self.find(|c| c == resource)
            .unwrap_or_else(|| panic!("the fake does not serve {resource:?}"))
    }

    pub(super) fn find(&self, wanted: impl Fn(&Resource) -> bool) -> Option<Arc<Collection>> {
        let all = self.all.lock().unwrap();
        all.iter().find(|c| wanted(&c.resource)).cloned()
    }

    fn by_kind(&self, api_version: &str, kind: &str) -> Arc<Collection> {
        self.find(|r| r.api_version() == api_version && r.kind == kind)
            .unwrap_or_else(|| panic!("the fake serves no {api_version} {kind}"))
    }

    /// Serves `resource` unless a kind of the same group, version and plural is served.
    pub(super) fn add(&self, resource: Resource) {
        let mut all = self.all.lock().unwrap();
        let same = |r: &Resource| {
            (r.group, r.version, r.plural) == (resource.group, resource.version, resource.plural)
        };
        if !all.iter().any(|c| same(&c.resource)) {
            all.push(Arc::new(Collection::new(resource, self.counter.clone())));
        }
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
        self.collections().add(resource);
    }

    /// Creates or replaces an object of any served kind, found by its `apiVersion` and `kind`,
    /// named by `metadata.name` (and `metadata.namespace` for a namespaced kind). Watchers see
    /// ADDED or MODIFIED. (A CRD's kinds are served by [`FakeKube::put_crd`].)
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
}
