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
    }
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
