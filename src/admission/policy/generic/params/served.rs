//! Params from the resources this server serves (issue 31 point 3): a `paramKind` one
//! of our custom resources is read from our own store (the watch cache answers from
//! memory), without a round trip through the host; every other kind goes to the host's
//! stores. Objects are exactly as we serve them in the paramKind's version.
//!
//! The kind is looked up in the catalog at every read, so a store follows the catalog
//! it is given (a kind no longer served resolves as unknown).

use std::sync::Arc;

use serde_json::Value;

use super::{ParamKindRef, ParamScope, ParamStore, Resolution};
use crate::admission::policy::generic::source::ParamSources;
use crate::admission::webhook::matching::Gvk;
use crate::crd::catalog::{Catalog, ServedResource, ServedVersion};
use crate::selector::label::LabelSelector;
use crate::storage::key::KeyLayout;
use crate::storage::{KeyValue, RangeRequest, Store};

/// The served catalog now.
pub type CatalogNow = Arc<dyn Fn() -> Arc<Catalog> + Send + Sync>;

/// Our storage as params are read from it.
#[derive(Clone)]
pub struct OwnStorage {
    pub catalog: CatalogNow,
    pub store: Arc<dyn Store>,
    pub keys: KeyLayout,
}

/// The resource serving `gvk` in `catalog`, and its version `gvk.version`.
pub fn served_kind(catalog: &Catalog, gvk: &Gvk) -> Option<(Arc<ServedResource>, usize)> {
    catalog.resources().iter().find_map(|r| {
        let same = r.group == gvk.group && r.kind == gvk.kind;
        let version = r.versions.iter().position(|v| *v.name == *gvk.version);
        version.filter(|_| same).map(|v| (r.clone(), v))
    })
}

/// The objects of one of our kinds.
pub struct ServedStore {
    gvk: Gvk,
    storage: OwnStorage,
}

/// Whether `object`'s labels are selected.
fn selected(selector: &LabelSelector, object: &Value) -> bool {
    let empty = serde_json::Map::new();
    let labels = object
        .pointer("/metadata/labels")
        .and_then(Value::as_object);
    selector.matches(labels.unwrap_or(&empty))
}

fn decode(
    resource: &ServedResource,
    version: &ServedVersion,
    kv: &KeyValue,
) -> Result<Arc<Value>, String> {
    let object = crate::crd::served::decode(resource, version, &kv.value, kv.mod_revision);
    object
        .map(Arc::new)
        .map_err(|e| format!("decoding {}: {e}", kv.key))
}

impl ServedStore {
    pub fn new(gvk: Gvk, storage: OwnStorage) -> ServedStore {
        ServedStore { gvk, storage }
    }

    fn served(&self) -> Option<(Arc<ServedResource>, usize)> {
        served_kind(&(self.storage.catalog)(), &self.gvk)
    }

    /// The namespace of a key: none for a cluster-scoped kind.
    fn scoped<'a>(resource: &ServedResource, namespace: &'a str) -> Option<&'a str> {
        (resource.namespaced && !namespace.is_empty()).then_some(namespace)
    }
}

#[async_trait::async_trait]
impl ParamStore for ServedStore {
    fn resolution(&self) -> Resolution {
        match self.served() {
            None => Resolution::Unknown,
            Some((r, _)) if r.namespaced => Resolution::Known(ParamScope::Namespaced),
            Some(_) => Resolution::Known(ParamScope::Cluster),
        }
    }
    /// Reads go to the store: there is no first list to wait for.
    fn synced(&self) -> bool {
        true
    }
    fn wait_ready(
        &self,
        _within: std::time::Duration,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        Box::pin(async {})
    }
    /// From the watch cache (`resourceVersion=0`); on a miss, a consistent read, as kube
    /// asks the API directly when its informer misses a name.
    async fn get(&self, namespace: &str, name: &str) -> Result<Option<Arc<Value>>, String> {
        let Some((resource, version)) = self.served() else {
            return Ok(None);
        };
        let (r, store) = (&resource, &self.storage.store);
        let namespace = Self::scoped(r, namespace);
        let key = (self.storage.keys).object_key(&r.group, &r.plural, namespace, name);
        let cached = store.get_not_older_than(&key, 0).await;
        let found = match cached.map_err(|e| e.to_string())? {
            Some(kv) => Some(kv),
            None => store.get(&key).await.map_err(|e| e.to_string())?,
        };
        found
            .map(|kv| decode(r, &r.versions[version], &kv))
            .transpose()
    }
    async fn list(
        &self,
        namespace: &str,
        selector: &LabelSelector,
    ) -> Result<Vec<Arc<Value>>, String> {
        let Some((resource, version)) = self.served() else {
            return Ok(Vec::new());
        };
        let r = &resource;
        let namespace = Self::scoped(r, namespace);
        let prefix = (self.storage.keys).collection_prefix(&r.group, &r.plural, namespace);
        let request = RangeRequest {
            prefix,
            not_older_than: Some(0),
            ..RangeRequest::default()
        };
        let listed = self.storage.store.range(request).await;
        let mut params = Vec::new();
        for kv in listed.map_err(|e| e.to_string())?.kvs {
            let object = decode(r, &r.versions[version], &kv)?;
            if selected(selector, &object) {
                params.push(object);
            }
        }
        Ok(params)
    }
}

/// Param stores: our own kinds from our storage, the others from the host.
pub struct ServedParams {
    pub storage: OwnStorage,
    pub host: Arc<dyn ParamSources>,
}

impl ParamSources for ServedParams {
    fn ensure(&self, kind: &ParamKindRef) -> Arc<dyn ParamStore> {
        match served_kind(&(self.storage.catalog)(), &kind.gvk) {
            Some(_) => Arc::new(ServedStore::new(kind.gvk.clone(), self.storage.clone())),
            None => self.host.ensure(kind),
        }
    }

    /// The host's stores of kinds no policy names, or that we serve, stop; ours cost
    /// nothing idle.
    fn retain(&self, used: &[Gvk]) {
        let catalog = (self.storage.catalog)();
        let host: Vec<Gvk> = used
            .iter()
            .filter(|gvk| served_kind(&catalog, gvk).is_none())
            .cloned()
            .collect();
        self.host.retain(&host);
    }
}

#[cfg(test)]
mod tests;
