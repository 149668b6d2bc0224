//! The decrypted DEK sources of one KMS v2 provider, keyed by their encrypted form
//! (kube's `simpleCache`: entries live [`CACHE_TTL`] after their last set, expired ones
//! still answer until collected). A miss asks the plugin once however many reads of the
//! same source arrive meanwhile (they wait for that one Decrypt).

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::OnceCell;
use tokio::time::Instant;

use super::dek::Dek;
use super::metrics::METRICS;

/// kube's `cacheTTL` of the DEK source cache.
pub const CACHE_TTL: Duration = Duration::from_secs(24 * 60 * 60);
/// Expired entries are looked for at most this often.
const GC_INTERVAL: Duration = Duration::from_secs(60);

type Cell = Arc<OnceCell<Arc<Dek>>>;

struct Entry {
    cell: Cell,
    expires: Instant,
}

#[derive(Default)]
struct Entries {
    map: HashMap<[u8; 32], Entry>,
    next_gc: Option<Instant>,
}

pub struct SeedCache {
    provider: String,
    entries: Mutex<Entries>,
}

impl SeedCache {
    pub fn new(provider: &str) -> SeedCache {
        SeedCache {
            provider: provider.to_owned(),
            entries: Mutex::new(Entries::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Caches `dek` under `key` for [`CACHE_TTL`] from now (the write DEK, before each
    /// write, as kube sets it).
    pub fn set(&self, key: [u8; 32], dek: &Arc<Dek>) {
        let now = Instant::now();
        let mut entries = self.lock();
        match entries.map.get_mut(&key) {
            Some(entry) if entry.cell.get().is_some() => entry.expires = now + CACHE_TTL,
            _ => {
                let cell = Arc::new(OnceCell::new_with(Some(dek.clone())));
                entries.map.insert(
                    key,
                    Entry {
                        cell,
                        expires: now + CACHE_TTL,
                    },
                );
                METRICS.cache_size(&self.provider, entries.map.len());
            }
        }
        collect(&mut entries, now, &self.provider);
    }

    /// The DEK of `key`, from the cache or else from `load` (run once for concurrent
    /// misses; a failure is not cached).
    pub async fn get_or_load<F, Fut>(&self, key: [u8; 32], load: F) -> Result<Arc<Dek>, String>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Dek, String>>,
    {
        let cell = {
            let mut entries = self.lock();
            let now = Instant::now();
            let entry = entries.map.entry(key).or_insert_with(|| Entry {
                cell: Arc::default(),
                expires: now + CACHE_TTL,
            });
            entry.cell.clone()
        };
        if let Some(dek) = cell.get() {
            return Ok(dek.clone());
        }
        let loaded = cell
            .get_or_try_init(|| async {
                METRICS.cache_miss();
                load().await.map(Arc::new)
            })
            .await
            .cloned();
        let mut entries = self.lock();
        match &loaded {
            Ok(_) => METRICS.cache_size(&self.provider, entries.map.len()),
            Err(_) => {
                if entries
                    .map
                    .get(&key)
                    .is_some_and(|e| Arc::ptr_eq(&e.cell, &cell) && e.cell.get().is_none())
                {
                    entries.map.remove(&key);
                }
            }
        }
        loaded
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }
}

/// Drops expired entries (at most once per [`GC_INTERVAL`]).
fn collect(entries: &mut Entries, now: Instant, provider: &str) {
    if entries.next_gc.is_some_and(|at| now < at) {
        return;
    }
    entries.next_gc = Some(now + GC_INTERVAL);
    let before = entries.map.len();
    entries
        .map
        .retain(|_, e| e.expires > now || e.cell.get().is_none());
    if entries.map.len() != before {
        METRICS.cache_size(provider, entries.map.len());
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn dek() -> Result<Dek, String> {
        Dek::seed(&[1; 32])
    }

    #[tokio::test(start_paused = true)]
    async fn seed_cache_failed_load_not_kept_next_read_retries_once() {
        let cache = SeedCache::new("t");
        let loads = AtomicUsize::new(0);
        let failed = cache
            .get_or_load([1; 32], || async { Err::<Dek, _>("down".to_owned()) })
            .await;
        assert_eq!(failed.err(), Some("down".to_owned()));
        assert_eq!(cache.len(), 0, "a failure is not cached");
        for _ in 0..3 {
            let got = cache
                .get_or_load([1; 32], || async {
                    loads.fetch_add(1, Ordering::SeqCst);
                    dek()
                })
                .await;
            assert!(got.is_ok());
        }
        assert_eq!(loads.load(Ordering::SeqCst), 1);
        assert_eq!(cache.len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn seed_cache_entries_expire_a_day_after_last_set() {
        let cache = SeedCache::new("t");
        let seed = Arc::new(dek().unwrap());
        cache.set([1; 32], &seed);
        tokio::time::advance(CACHE_TTL - GC_INTERVAL).await;
        cache.set([2; 32], &seed);
        assert_eq!(cache.len(), 2, "not expired yet");
        tokio::time::advance(GC_INTERVAL * 2).await;
        cache.set([2; 32], &seed);
        assert_eq!(cache.len(), 1, "the first expired and was collected");
    }
}
