//! A bounded time-to-live cache for the answers of the cluster's TokenReview and
//! SubjectAccessReview, so a burst of requests by one user costs one review per TTL.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Entries kept at most; upstream's webhook caches hold 1024 to 10000.
pub const DEFAULT_CAPACITY: usize = 4096;

/// Values expire `ttl` after they were inserted; the clock is passed in so tests can
/// move it.
pub struct TtlCache<K, V> {
    entries: Mutex<HashMap<K, (Instant, V)>>,
    capacity: usize,
}

impl<K: Eq + Hash, V: Clone> TtlCache<K, V> {
    pub fn new(capacity: usize) -> Self {
        TtlCache {
            entries: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
        }
    }

    /// The value if present and not expired at `now`.
    pub fn get(&self, key: &K, now: Instant) -> Option<V> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        match entries.get(key) {
            Some((expires, value)) if *expires > now => Some(value.clone()),
            Some(_) => {
                entries.remove(key);
                None
            }
            None => None,
        }
    }

    /// Stores `value` until `now + ttl`; a zero TTL stores nothing.
    pub fn insert(&self, key: K, value: V, ttl: Duration, now: Instant) {
        if ttl.is_zero() {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= self.capacity && !entries.contains_key(&key) {
            entries.retain(|_, (expires, _)| *expires > now);
            if entries.len() >= self.capacity {
                // Still full of live entries: forget the one closest to expiry.
                let oldest = entries
                    .iter()
                    .min_by_key(|(_, (expires, _))| *expires)
                    .map(|(_, (expires, _))| *expires);
                if let Some(oldest) = oldest {
                    entries.retain(|_, (expires, _)| *expires != oldest);
                }
            }
        }
        entries.insert(key, (now + ttl, value));
    }

    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_before_and_after_ttl_expires() {
        let cache = TtlCache::new(8);
        let t0 = Instant::now();
        cache.insert("k", 1, Duration::from_secs(10), t0);
        let cases = [
            ("just inserted", t0, Some(1)),
            ("before ttl", t0 + Duration::from_secs(9), Some(1)),
            ("at ttl", t0 + Duration::from_secs(10), None),
            ("after ttl", t0 + Duration::from_secs(11), None),
        ];
        for (name, at, want) in cases {
            assert_eq!(cache.get(&"k", at), want, "{name}");
        }
    }

    #[test]
    fn insert_zero_ttl_stores_nothing() {
        let cache = TtlCache::new(8);
        cache.insert("k", 1, Duration::ZERO, Instant::now());
        assert!(cache.is_empty());
    }

    #[test]
    fn insert_over_capacity_evicts_expired_then_oldest() {
        let cache = TtlCache::new(2);
        let t0 = Instant::now();
        cache.insert("a", 1, Duration::from_secs(1), t0);
        cache.insert("b", 2, Duration::from_secs(5), t0);
        cache.insert("c", 3, Duration::from_secs(5), t0 + Duration::from_secs(2));
        assert_eq!(cache.get(&"a", t0), None, "expired entry evicted");
        cache.insert("d", 4, Duration::from_secs(9), t0 + Duration::from_secs(2));
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get(&"b", t0), None, "closest to expiry evicted");
        assert_eq!(cache.get(&"d", t0), Some(4));
    }
}
