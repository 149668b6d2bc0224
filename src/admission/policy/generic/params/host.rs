//! Param stores over the host cluster (kube's dynamic informer per param kind): the
//! kind looked up in the host's discovery for `paramKind.apiVersion`, then its objects
//! listed and watched through the one cluster client. Started when a policy names the
//! kind, stopped when none does.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, RwLock};
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

/// The objects of one param kind as the host serves them.
pub struct HostStore {
    resolution: Mutex<Resolution>,
    /// By (namespace, name).
    objects: RwLock<BTreeMap<(String, String), Arc<Value>>>,
    synced: watch::Sender<bool>,
    /// Turns true once resolved as unknown or listed.
    ready: watch::Sender<bool>,
}

impl Default for HostStore {
    fn default() -> Self {
        HostStore {
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

/// The object as CEL sees `params`: its JSON without apiVersion and kind, as kube's
/// informers hold typed objects.
fn json(object: DynamicObject) -> Arc<Value> {
    let mut value = serde_json::to_value(object).unwrap_or(Value::Null);
    if let Some(map) = value.as_object_mut() {
        map.remove("apiVersion");
        map.remove("kind");
    }
    Arc::new(value)
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

    fn objects_mut(
        &self,
    ) -> std::sync::RwLockWriteGuard<'_, BTreeMap<(String, String), Arc<Value>>> {
        self.objects.write().unwrap_or_else(|e| e.into_inner())
    }
}

impl Sink<DynamicObject> for HostStore {
    fn replace(&self, listed: Vec<DynamicObject>) {
        *self.objects_mut() = listed.into_iter().map(|o| (key(&o), json(o))).collect();
        self.synced.send_replace(true);
        self.ready.send_replace(true);
    }
    fn upsert(&self, object: DynamicObject) {
        self.objects_mut().insert(key(&object), json(object));
    }
    fn remove(&self, object: DynamicObject) {
        self.objects_mut().remove(&key(&object));
    }
}

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
    fn get(&self, namespace: &str, name: &str) -> Result<Option<Arc<Value>>, String> {
        let key = (namespace.to_string(), name.to_string());
        Ok(self.objects().get(&key).cloned())
    }
    fn list(&self, namespace: &str, selector: &LabelSelector) -> Result<Vec<Arc<Value>>, String> {
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
        let store = Arc::new(HostStore::default());
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
