//! Bounded slots whose longest-standing evictable holder can be asked to leave: TLS
//! handshakes in progress and idle connections. A flood of cheap peers (half-open TCP,
//! idle TLS) then displaces its own oldest members instead of locking everyone else out.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// How long a newcomer waits for an evicted holder to leave before evicting another.
const EVICTION_WAIT: std::time::Duration = std::time::Duration::from_secs(2);
/// How often a newcomer looks for a holder that became evictable.
const OFFER_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// A fixed number of slots, and the holders that agreed to give theirs up on request,
/// oldest offer first.
pub struct Slots {
    size: u32,
    permits: Arc<Semaphore>,
    evictable: Mutex<BTreeMap<u64, Arc<Notify>>>,
    next_offer: AtomicU64,
}

/// A holder's standing offer to leave; withdrawn when dropped.
pub struct Offer {
    slots: Arc<Slots>,
    id: u64,
    notify: Arc<Notify>,
}

impl Offer {
    /// Resolves once the holder has been asked to leave.
    pub async fn evicted(&self) {
        self.notify.notified().await;
    }
}

impl Drop for Offer {
    fn drop(&mut self) {
        self.slots.offers().remove(&self.id);
    }
}

impl Slots {
    pub fn new(size: u32) -> Arc<Slots> {
        Arc::new(Slots {
            size,
            permits: Arc::new(Semaphore::new(size as usize)),
            evictable: Mutex::new(BTreeMap::new()),
            next_offer: AtomicU64::new(0),
        })
    }

    fn offers(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<Notify>>> {
        // The map stays consistent whatever panicked while holding it.
        self.evictable
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A free slot, or — when none is free — the slot of the oldest evictable holder once
    /// it has left (holders that are not evictable are waited for). The caller bounds the
    /// wait.
    pub async fn take(&self) -> Option<OwnedSemaphorePermit> {
        loop {
            if let Ok(permit) = self.permits.clone().try_acquire_owned() {
                return Some(permit);
            }
            // An evicted holder may need its close grace to leave; with nobody evictable
            // yet, a holder may become so at any moment (its request done), so ask again.
            let wait = if self.evict_oldest() {
                EVICTION_WAIT
            } else {
                OFFER_POLL
            };
            tokio::select! {
                permit = self.permits.clone().acquire_owned() => return permit.ok(),
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// Asks the holder whose offer is oldest to leave; false when nobody offered.
    pub fn evict_oldest(&self) -> bool {
        let oldest = self.offers().pop_first();
        match oldest {
            Some((_, notify)) => {
                // notify_one keeps the wake-up for a holder not waiting yet.
                notify.notify_one();
                true
            }
            None => false,
        }
    }

    /// Makes the caller evictable until the returned offer is dropped.
    pub fn offer(self: &Arc<Self>) -> Offer {
        let id = self.next_offer.fetch_add(1, Ordering::Relaxed);
        let notify = Arc::new(Notify::new());
        self.offers().insert(id, notify.clone());
        Offer {
            slots: self.clone(),
            id,
            notify,
        }
    }

    /// Slots currently held.
    pub fn in_use(&self) -> usize {
        (self.size as usize).saturating_sub(self.permits.available_permits())
    }

    /// Resolves when every slot is free again.
    pub async fn all_free(&self) {
        if let Ok(all) = self.permits.acquire_many(self.size).await {
            drop(all);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn take_when_full_evicts_oldest_offer() {
        let slots = Slots::new(2);
        let first = slots.take().await.unwrap();
        let second = slots.take().await.unwrap();
        let first_offer = slots.offer();
        let _second_offer = slots.offer();
        let holder = tokio::spawn(async move {
            first_offer.evicted().await;
            drop(first);
        });
        let third = tokio::time::timeout(Duration::from_secs(5), slots.take())
            .await
            .expect("the oldest offer left");
        assert!(third.is_some());
        holder.await.unwrap();
        assert_eq!(slots.in_use(), 2);
        drop(second);
    }

    #[tokio::test]
    async fn evict_oldest_withdrawn_offer_is_skipped() {
        let slots = Slots::new(1);
        let withdrawn = slots.offer();
        drop(withdrawn);
        assert!(!slots.evict_oldest(), "a dropped offer cannot be evicted");
        let kept = slots.offer();
        assert!(slots.evict_oldest());
        tokio::time::timeout(Duration::from_secs(5), kept.evicted())
            .await
            .expect("the wake-up is kept for a holder not yet waiting");
    }

    #[tokio::test]
    async fn all_free_waits_for_every_holder() {
        let slots = Slots::new(3);
        let held = slots.take().await.unwrap();
        let waiter = {
            let slots = slots.clone();
            tokio::spawn(async move { slots.all_free().await })
        };
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        drop(held);
        tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("all free after the last holder left")
            .unwrap();
    }
}
