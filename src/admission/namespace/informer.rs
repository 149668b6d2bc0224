//! The namespace informer: the cluster's reflector ([`crate::cluster::informer`])
//! delivering Namespaces into the [`Cache`] (each one's phase and labels).

use std::collections::HashMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::Namespace;
use kube::api::Api;

use super::cache::{Cache, Entry};
use super::decision::Phase;
use crate::cluster::informer::{Reflector, Sink};

/// The list+watch loop of the namespace informer.
pub fn informer(api: Api<Namespace>, cache: Arc<Cache>) -> Reflector<Namespace, Cache> {
    Reflector::new(api, cache, "namespaces")
}

/// What the cache keeps of a namespace.
pub fn entry(ns: &Namespace) -> Entry {
    let phase = ns.status.as_ref().and_then(|s| s.phase.as_deref());
    Entry {
        phase: Phase::of(phase),
        labels: Arc::new(ns.metadata.labels.clone().unwrap_or_default()),
        object: Arc::new(namespace_object(ns)),
    }
}

/// kube's `CreateNamespaceObject`: the namespace with only these metadata fields (no
/// managedFields, ownerReferences or self link), its spec and status.
pub fn namespace_object(ns: &Namespace) -> serde_json::Value {
    let m = &ns.metadata;
    let metadata = k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
        name: m.name.clone(),
        generate_name: m.generate_name.clone(),
        namespace: m.namespace.clone(),
        uid: m.uid.clone(),
        resource_version: m.resource_version.clone(),
        generation: m.generation,
        creation_timestamp: m.creation_timestamp.clone(),
        deletion_timestamp: m.deletion_timestamp.clone(),
        deletion_grace_period_seconds: m.deletion_grace_period_seconds,
        labels: m.labels.clone(),
        annotations: m.annotations.clone(),
        finalizers: m.finalizers.clone(),
        ..Default::default()
    };
    let trimmed = Namespace {
        metadata,
        spec: ns.spec.clone(),
        status: ns.status.clone(),
    };
    serde_json::to_value(trimmed).unwrap_or_default()
}

impl Sink<Namespace> for Cache {
    fn replace(&self, listed: Vec<Namespace>) {
        let entries: HashMap<String, Entry> = listed
            .iter()
            .filter_map(|ns| Some((ns.metadata.name.clone()?, entry(ns))))
            .collect();
        Cache::replace(self, entries);
    }

    fn upsert(&self, ns: Namespace) {
        if let Some(name) = ns.metadata.name.clone() {
            Cache::upsert(self, name, entry(&ns));
        }
    }

    fn remove(&self, ns: Namespace) {
        if let Some(name) = &ns.metadata.name {
            Cache::remove(self, name);
        }
    }
}
