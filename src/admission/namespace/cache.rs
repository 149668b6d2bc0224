//! The namespace cache the informer fills: each namespace's phase and labels, and
//! whether the first list has arrived (kube's informer `HasSynced`, which stays true
//! once set). NamespaceLifecycle reads phases; webhooks' `namespaceSelector`s read labels.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::sync::watch;

use super::decision::{Phase, Seen};

/// A namespace's labels, shared with the requests that read them.
pub type Labels = Arc<BTreeMap<String, String>>;

/// What the cache keeps of one namespace.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub phase: Phase,
    pub labels: Labels,
    /// The namespace as admission policies' `namespaceObject` sees it (kube's
    /// `CreateNamespaceObject`: spec, status and some metadata), as JSON.
    pub object: Arc<serde_json::Value>,
}

/// Namespace name → entry, shared by the informer (writer) and requests (readers).
pub struct Cache {
    entries: RwLock<HashMap<String, Entry>>,
    synced: watch::Sender<bool>,
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            entries: RwLock::default(),
            synced: watch::channel(false).0,
        }
    }
}

impl Cache {
    /// What the cache knows about `namespace`.
    pub fn seen(&self, namespace: &str) -> Seen {
        if !*self.synced.borrow() {
            return Seen::Unsynced;
        }
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        match entries.get(namespace) {
            Some(entry) => Seen::Present(entry.phase),
            None => Seen::Absent,
        }
    }

    /// The labels of `namespace` if the cache holds it.
    pub fn labels(&self, namespace: &str) -> Option<Labels> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries.get(namespace).map(|entry| entry.labels.clone())
    }

    /// The namespace object of `namespace` if the cache holds it.
    pub fn object(&self, namespace: &str) -> Option<Arc<serde_json::Value>> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries.get(namespace).map(|entry| entry.object.clone())
    }

    /// Whether the first list has arrived.
    pub fn synced(&self) -> bool {
        *self.synced.borrow()
    }

    /// Waits up to `within` for the first list; whether it has arrived.
    pub async fn wait_synced(&self, within: Duration) -> bool {
        let mut synced = self.synced.subscribe();
        let arrived = tokio::time::timeout(within, synced.wait_for(|s| *s)).await;
        matches!(arrived, Ok(Ok(_)))
    }

    /// A full list: the cache becomes exactly it, and is synced from now on.
    pub fn replace(&self, listed: HashMap<String, Entry>) {
        *self.entries.write().unwrap_or_else(|e| e.into_inner()) = listed;
        self.synced.send_replace(true);
    }

    /// An added or modified namespace.
    pub fn upsert(&self, name: String, entry: Entry) {
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        entries.insert(name, entry);
    }

    /// A deleted namespace.
    pub fn remove(&self, name: &str) {
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        entries.remove(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(phase: Phase, labels: &[(&str, &str)]) -> Entry {
        let labels = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Entry {
            phase,
            labels: Arc::new(labels),
            object: Arc::default(),
        }
    }

    #[tokio::test]
    async fn cache_unsynced_until_first_list_then_follows_events() {
        let cache = Cache::default();
        cache.upsert("early".into(), entry(Phase::Active, &[]));
        assert_eq!(cache.seen("early"), Seen::Unsynced);
        assert!(!cache.wait_synced(Duration::from_millis(10)).await);
        cache.replace(HashMap::from([(
            "a".to_string(),
            entry(Phase::Active, &[]),
        )]));
        assert!(cache.wait_synced(Duration::from_millis(10)).await);
        assert_eq!(cache.seen("early"), Seen::Absent, "the list replaces");
        assert_eq!(cache.seen("a"), Seen::Present(Phase::Active));
        cache.upsert("a".into(), entry(Phase::Terminating, &[]));
        assert_eq!(cache.seen("a"), Seen::Present(Phase::Terminating));
        cache.remove("a");
        assert_eq!(cache.seen("a"), Seen::Absent);
    }

    #[test]
    fn labels_follow_upserts_and_removals() {
        let cache = Cache::default();
        assert_eq!(cache.labels("a"), None);
        cache.replace(HashMap::from([(
            "a".to_string(),
            entry(Phase::Active, &[("env", "prod")]),
        )]));
        let prod = cache.labels("a").unwrap();
        assert_eq!(prod.get("env").map(String::as_str), Some("prod"));
        cache.upsert("a".into(), entry(Phase::Active, &[("env", "dev")]));
        let dev = cache.labels("a").unwrap();
        assert_eq!(dev.get("env").map(String::as_str), Some("dev"));
        assert_eq!(
            prod.get("env").map(String::as_str),
            Some("prod"),
            "readers keep their copy"
        );
        cache.remove("a");
        assert_eq!(cache.labels("a"), None);
    }
}
