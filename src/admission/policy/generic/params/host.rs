//! Param stores over the host cluster (kube's dynamic informer per param kind): the
//! kind looked up in the host's discovery for `paramKind.apiVersion`, then its objects
//! listed and watched through the one cluster client. Started when a policy names the
//! kind, stopped when none does. A name the store misses is asked of the host directly
//! (kube's `getParamDirectly`), so a param created just before the request is found.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Duration;

use kube::api::{Api, DynamicObject};
use kube::core::ApiResource;
use serde_json::Value;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::{ParamKindRef, ParamScope, ParamStore, Resolution};
use crate::admission::policy::generic::source::ParamSources;
use crate::admission::webhook::matching::Gvk;
use crate::cluster::informer::{Reflector, Sink};
use crate::selector::label::LabelSelector;

/// kube's bound on the direct GET of a param the informer misses.
const DIRECT_GET_TIMEOUT: Duration = Duration::from_secs(1);

/// The objects of one param kind as the host serves them.
pub struct HostStore {
    gvk: Gvk,
    /// The kind's resource once discovered: what a direct GET asks.
    direct: OnceLock<(kube::Client, ApiResource)>,
    resolution: Mutex<Resolution>,
    /// By (namespace, name).
    objects: RwLock<BTreeMap<(String, String), Arc<Value>>>,
    synced: watch::Sender<bool>,
    /// Turns true once resolved as unknown or listed.
    ready: watch::Sender<bool>,
}

impl HostStore {
    pub fn new(gvk: Gvk) -> Self {
        HostStore {
            gvk,
            direct: OnceLock::new(),
            resolution: Mutex::new(Resolution::Pending),
            objects: RwLock::default(),
            synced: watch::channel(false).0,
            ready: watch::channel(false).0,
        }
    }
}

fn key(object: &DynamicObject) -> (String, String) {
    let namespace = object.metadata.namespace.clone().unwrap_or_default();
    (namespace, object.metadata.name.clone().unwrap_or_default())
}

/// The groups of client-go's scheme (`k8s.io/client-go/kubernetes/scheme`): kube reads
/// their kinds through typed informers, every other kind through a dynamic one.
const TYPED_GROUPS: &[&str] = &[
    "",
    "admissionregistration.k8s.io",
    "apps",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
    "events.k8s.io",
    "extensions",
    "flowcontrol.apiserver.k8s.io",
    "internal.apiserver.k8s.io",
    "networking.k8s.io",
    "node.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "resource.k8s.io",
    "scheduling.k8s.io",
    "storage.k8s.io",
    "storagemigration.k8s.io",
];

/// An object of `gvk` as kube's informer holds it, so as CEL sees it in `params`: a
/// typed object (a kind of client-go's scheme) without apiVersion and kind (its decoder
/// and `convertParamToInformerRepresentation` clear them); an unstructured one with
/// them, set from the list's when an item has neither (apimachinery's `decodeToList`).
pub fn informer_form(gvk: &Gvk, mut value: Value) -> Value {
    let Some(map) = value.as_object_mut() else {
        return value;
    };
    if TYPED_GROUPS.contains(&gvk.group.as_str()) {
        map.remove("apiVersion");
        map.remove("kind");
        return value;
    }
    let empty = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().is_empty();
    if empty(map.get("apiVersion")) && empty(map.get("kind")) {
        let api_version = match gvk.group.as_str() {
            "" => gvk.version.clone(),
            group => format!("{group}/{}", gvk.version),
        };
        map.insert("apiVersion".into(), Value::String(api_version));
        map.insert("kind".into(), Value::String(gvk.kind.clone()));
    }
    value
}

/// apimachinery's `knownReasons`: with none of them, a 404 is also NotFound.
const KNOWN_REASONS: &[&str] = &[
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "AlreadyExists",
    "Conflict",
    "Gone",
    "Invalid",
    "ServerTimeout",
    "StoreReadError",
    "Timeout",
    "TooManyRequests",
    "BadRequest",
    "MethodNotAllowed",
    "NotAcceptable",
    "RequestEntityTooLarge",
    "UnsupportedMediaType",
    "InternalError",
    "Expired",
    "ServiceUnavailable",
];

/// apimachinery's `IsNotFound` of a Status.
pub fn is_not_found(reason: &str, code: u16) -> bool {
    reason == "NotFound" || (code == 404 && !KNOWN_REASONS.contains(&reason))
}

/// What a direct GET answered, as `CollectParams` takes it: the object, not found
/// (NotFound: the binding's `parameterNotFoundAction` decides), or the error's text.
fn direct_answer(
    gvk: &Gvk,
    answer: Result<Result<DynamicObject, kube::Error>, tokio::time::error::Elapsed>,
) -> Result<Option<Arc<Value>>, String> {
    match answer {
        Err(_) => Err("context deadline exceeded".to_string()),
        Ok(Ok(object)) => Ok(Some(json(gvk, object))),
        Ok(Err(kube::Error::Api(status))) if is_not_found(&status.reason, status.code) => Ok(None),
        Ok(Err(kube::Error::Api(status))) => Err(status.message),
        Ok(Err(error)) => Err(error.to_string()),
    }
}

fn json(gvk: &Gvk, object: DynamicObject) -> Arc<Value> {
    let value = serde_json::to_value(object).unwrap_or(Value::Null);
    Arc::new(informer_form(gvk, value))
}

impl HostStore {
    fn resolve(&self, resolution: Resolution) {
        *self.resolution.lock().unwrap_or_else(|e| e.into_inner()) = resolution;
        if resolution == Resolution::Unknown {
            self.ready.send_replace(true);
        }
    }

    fn objects(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<(String, String), Arc<Value>>> {
        self.objects.read().unwrap_or_else(|e| e.into_inner())
    }

    /// kube's `getParamDirectly`: `name` asked of the host, bounded by
    /// [`DIRECT_GET_TIMEOUT`]; not found while the kind is not discovered.
    async fn get_directly(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<Option<Arc<Value>>, String> {
        let Some((client, resource)) = self.direct.get() else {
            return Ok(None);
        };
        let api: Api<DynamicObject> = match namespace {
            "" => Api::all_with(client.clone(), resource),
            namespace => Api::namespaced_with(client.clone(), namespace, resource),
        };
        let answer = tokio::time::timeout(DIRECT_GET_TIMEOUT, api.get(name)).await;
        direct_answer(&self.gvk, answer)
    }

    fn objects_mut(
        &self,
    ) -> std::sync::RwLockWriteGuard<'_, BTreeMap<(String, String), Arc<Value>>> {
        self.objects.write().unwrap_or_else(|e| e.into_inner())
    }
}

impl Sink<DynamicObject> for HostStore {
    fn replace(&self, listed: Vec<DynamicObject>) {
        let gvk = &self.gvk;
        *self.objects_mut() = listed
            .into_iter()
            .map(|o| (key(&o), json(gvk, o)))
            .collect();
        self.synced.send_replace(true);
        self.ready.send_replace(true);
    }
    fn upsert(&self, object: DynamicObject) {
        self.objects_mut()
            .insert(key(&object), json(&self.gvk, object));
    }
    fn remove(&self, object: DynamicObject) {
        self.objects_mut().remove(&key(&object));
    }
}

#[async_trait::async_trait]
impl ParamStore for HostStore {
    fn resolution(&self) -> Resolution {
        *self.resolution.lock().unwrap_or_else(|e| e.into_inner())
    }
    fn synced(&self) -> bool {
        *self.synced.borrow()
    }
    fn wait_ready(
        &self,
        within: Duration,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        let mut ready = self.ready.subscribe();
        Box::pin(async move {
            let _ = tokio::time::timeout(within, ready.wait_for(|r| *r)).await;
        })
    }
    async fn get(&self, namespace: &str, name: &str) -> Result<Option<Arc<Value>>, String> {
        let key = (namespace.to_string(), name.to_string());
        let cached = self.objects().get(&key).cloned();
        match cached {
            Some(object) => Ok(Some(object)),
            None => self.get_directly(namespace, name).await,
        }
    }
    async fn list(
        &self,
        namespace: &str,
        selector: &LabelSelector,
    ) -> Result<Vec<Arc<Value>>, String> {
        let empty = serde_json::Map::new();
        let selected = |o: &&Arc<Value>| {
            let labels = o.pointer("/metadata/labels").and_then(Value::as_object);
            selector.matches(labels.unwrap_or(&empty))
        };
        let objects = self.objects();
        let in_namespace = objects
            .iter()
            .filter(|((ns, _), _)| namespace.is_empty() || ns == namespace)
            .map(|(_, o)| o);
        Ok(in_namespace.filter(selected).cloned().collect())
    }
}

/// A param kind's store and the task that fills it.
type Running = (Arc<HostStore>, JoinHandle<()>);

/// The host's param stores, one per kind a policy names.
pub struct HostParams {
    client: kube::Client,
    running: Mutex<HashMap<Gvk, Running>>,
}

impl HostParams {
    pub fn new(client: kube::Client) -> Self {
        HostParams {
            client,
            running: Mutex::default(),
        }
    }
}

/// The kind's resource in the host's discovery: `None` when it is not served.
async fn discover(
    client: &kube::Client,
    gvk: &Gvk,
) -> Result<Option<(ApiResource, bool)>, kube::Error> {
    let api_version = match gvk.group.as_str() {
        "" => gvk.version.clone(),
        group => format!("{group}/{}", gvk.version),
    };
    let listed = match gvk.group.as_str() {
        "" => client.list_core_api_resources(&gvk.version).await,
        _ => client.list_api_group_resources(&api_version).await,
    };
    let resources = match listed {
        Ok(list) => list.resources,
        Err(kube::Error::Api(s)) if s.code == 404 => return Ok(None),
        Err(e) => return Err(e),
    };
    let found = resources
        .into_iter()
        .find(|r| r.kind == gvk.kind && !r.name.contains('/'));
    Ok(found.map(|r| {
        let resource = ApiResource {
            group: gvk.group.clone(),
            version: gvk.version.clone(),
            api_version,
            kind: gvk.kind.clone(),
            plural: r.name,
        };
        (resource, r.namespaced)
    }))
}

/// Looks the kind up (retrying failures), then follows its objects.
async fn follow(client: kube::Client, gvk: Gvk, store: Arc<HostStore>) {
    let mut backoff = Duration::from_secs(1);
    let (resource, namespaced) = loop {
        match discover(&client, &gvk).await {
            Ok(Some(found)) => break found,
            Ok(None) => return store.resolve(Resolution::Unknown),
            Err(error) => {
                tracing::warn!(kind = %gvk.kind, %error, "looking up a paramKind failed; retrying");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(30));
            }
        }
    };
    let scope = match namespaced {
        true => ParamScope::Namespaced,
        false => ParamScope::Cluster,
    };
    let _ = store.direct.set((client.clone(), resource.clone()));
    store.resolve(Resolution::Known(scope));
    tracing::info!(kind = %gvk.kind, group = %gvk.group, version = %gvk.version, "informer started for a paramKind");
    let api: Api<DynamicObject> = Api::all_with(client, &resource);
    Reflector::new(api, store, "policy params").run().await;
}

impl ParamSources for HostParams {
    fn ensure(&self, kind: &ParamKindRef) -> Arc<dyn ParamStore> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((store, _)) = running.get(&kind.gvk) {
            return store.clone();
        }
        let store = Arc::new(HostStore::new(kind.gvk.clone()));
        let task = follow(self.client.clone(), kind.gvk.clone(), store.clone());
        running.insert(kind.gvk.clone(), (store.clone(), tokio::spawn(task)));
        store
    }

    fn retain(&self, used: &[Gvk]) {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        running.retain(|gvk, (_, task)| {
            let keep = used.contains(gvk);
            if !keep {
                task.abort();
            }
            keep
        });
    }
}

#[cfg(test)]
mod tests;
