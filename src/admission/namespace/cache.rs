//! The namespace cache the informer fills: each namespace's phase, and whether the
//! first list has arrived (kube's informer `HasSynced`, which stays true once set).

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::Duration;

use tokio::sync::watch;

use super::decision::{Phase, Seen};

/// Namespace name → phase, shared by the informer (writer) and requests (readers).
pub struct Cache {
    phases: RwLock<HashMap<String, Phase>>,
    synced: watch::Sender<bool>,
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            phases: RwLock::default(),
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
        let phases = self.phases.read().unwrap_or_else(|e| e.into_inner());
        match phases.get(namespace) {
            Some(phase) => Seen::Present(*phase),
            None => Seen::Absent,
        }
    }

    /// Waits up to `within` for the first list; whether it has arrived.
    pub async fn wait_synced(&self, within: Duration) -> bool {
        let mut synced = self.synced.subscribe();
        let arrived = tokio::time::timeout(within, synced.wait_for(|s| *s)).await;
        matches!(arrived, Ok(Ok(_)))
    }

    /// A full list: the cache becomes exactly it, and is synced from now on.
    pub fn replace(&self, listed: HashMap<String, Phase>) {
        *self.phases.write().unwrap_or_else(|e| e.into_inner()) = listed;
        self.synced.send_replace(true);
    }

    /// An added or modified namespace.
    pub fn upsert(&self, name: String, phase: Phase) {
        let mut phases = self.phases.write().unwrap_or_else(|e| e.into_inner());
        phases.insert(name, phase);
    }

    /// A deleted namespace.
    pub fn remove(&self, name: &str) {
        let mut phases = self.phases.write().unwrap_or_else(|e| e.into_inner());
        phases.remove(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cache_unsynced_until_first_list_then_follows_events() {
        let cache = Cache::default();
        cache.upsert("early".into(), Phase::Active);
        assert_eq!(cache.seen("early"), Seen::Unsynced);
        assert!(!cache.wait_synced(Duration::from_millis(10)).await);
        cache.replace(HashMap::from([("a".to_string(), Phase::Active)]));
        assert!(cache.wait_synced(Duration::from_millis(10)).await);
        assert_eq!(cache.seen("early"), Seen::Absent, "the list replaces");
        assert_eq!(cache.seen("a"), Seen::Present(Phase::Active));
        cache.upsert("a".into(), Phase::Terminating);
        assert_eq!(cache.seen("a"), Seen::Present(Phase::Terminating));
        cache.remove("a");
        assert_eq!(cache.seen("a"), Seen::Absent);
    }
}
