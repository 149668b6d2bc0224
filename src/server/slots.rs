//! Bounded slots whose longest-standing evictable holder can be asked to leave: TLS
//! handshakes in progress and connections carrying no stream that the server is still
//! serving. A flood of cheap peers (half-open TCP, idle TLS) then displaces its own
//! oldest members instead of locking everyone else out, and a newcomer that finds
//! nobody evictable waits (its caller bounds how long) or, past [`Slots::new`]'s
//! `max_waiting`, is refused at once.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// How long a newcomer waits for an evicted holder to leave before evicting another.
const EVICTION_WAIT: std::time::Duration = std::time::Duration::from_secs(2);
/// How often a newcomer looks for a holder that became evictable.
const OFFER_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// A holder that offered its slot, asked again when the slot is wanted: its state may
/// have changed since it offered (a stream that moved again).
pub trait Evictable: Send + Sync {
    fn evictable(&self) -> bool;
}

/// A holder that may always be asked to leave (a handshake in progress).
pub struct Always;

impl Evictable for Always {
    fn evictable(&self) -> bool {
        true
    }
}

/// What the pool answered a standing offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// The slot is wanted: leave.
    Leave,
    /// The holder was not evictable when asked; the offer is gone (offer again later).
    Declined,
}

struct Standing {
    holder: Arc<dyn Evictable>,
    notify: Notify,
    leave: AtomicBool,
}

/// A fixed number of slots, and the holders that agreed to give theirs up on request,
/// oldest offer first.
pub struct Slots {
    size: u32,
    permits: Arc<Semaphore>,
    waiting: Semaphore,
    evictable: Mutex<BTreeMap<u64, Arc<Standing>>>,
    next_offer: AtomicU64,
}

/// A holder's standing offer to leave; withdrawn when dropped.
pub struct Offer {
    slots: Arc<Slots>,
    id: u64,
    standing: Arc<Standing>,
}

impl Offer {
    /// Resolves once the pool has answered the offer.
    pub async fn answered(&self) -> Answer {
        self.standing.notify.notified().await;
        match self.standing.leave.load(Ordering::Acquire) {
            true => Answer::Leave,
            false => Answer::Declined,
        }
    }
}

impl Drop for Offer {
    fn drop(&mut self) {
        self.slots.offers().remove(&self.id);
    }
}

impl Slots {
    /// `size` slots; at most `max_waiting` newcomers wait for one at a time.
    pub fn new(size: u32, max_waiting: u32) -> Arc<Slots> {
        Arc::new(Slots {
            size,
            permits: Arc::new(Semaphore::new(size as usize)),
            waiting: Semaphore::new(max_waiting as usize),
            evictable: Mutex::new(BTreeMap::new()),
            next_offer: AtomicU64::new(0),
        })
    }

    fn offers(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<Standing>>> {
        // The map stays consistent whatever panicked while holding it.
        self.evictable
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A free slot, or — when none is free — the slot of the oldest evictable holder once
    /// it has left (holders that are not evictable are waited for). None when too many
    /// newcomers wait already. The caller bounds the wait.
    pub async fn take(&self) -> Option<OwnedSemaphorePermit> {
        if let Ok(permit) = self.permits.clone().try_acquire_owned() {
            return Some(permit);
        }
        let _waiting = self.waiting.try_acquire().ok()?;
        loop {
            if let Ok(permit) = self.permits.clone().try_acquire_owned() {
                return Some(permit);
            }
            // An evicted holder may need its close grace to leave; with nobody evictable
            // yet, a holder may become so at any moment (its stream done), so ask again.
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

    /// Asks the holder whose offer is oldest and who is still evictable to leave; the
    /// offers of holders no longer evictable are declined on the way. False when
    /// nobody could be asked.
    pub fn evict_oldest(&self) -> bool {
        let mut offers = self.offers();
        while let Some((_, standing)) = offers.pop_first() {
            let leave = standing.holder.evictable();
            standing.leave.store(leave, Ordering::Release);
            // notify_one keeps the wake-up for a holder not waiting yet.
            standing.notify.notify_one();
            if leave {
                return true;
            }
        }
        false
    }

    /// Makes `holder` evictable until the returned offer is dropped or answered.
    pub fn offer(self: &Arc<Self>, holder: Arc<dyn Evictable>) -> Offer {
        let id = self.next_offer.fetch_add(1, Ordering::Relaxed);
        let standing = Arc::new(Standing {
            holder,
            notify: Notify::new(),
            leave: AtomicBool::new(false),
        });
        self.offers().insert(id, standing.clone());
        Offer {
            slots: self.clone(),
            id,
            standing,
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
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use super::*;

    /// A holder whose evictability the test switches.
    struct Switch(AtomicBool);

    impl Evictable for Switch {
        fn evictable(&self) -> bool {
            self.0.load(Ordering::Relaxed)
        }
    }

    #[tokio::test]
    async fn take_when_full_evicts_oldest_offer() {
        let slots = Slots::new(2, 1);
        let first = slots.take().await.unwrap();
        let second = slots.take().await.unwrap();
        let first_offer = slots.offer(Arc::new(Always));
        let _second_offer = slots.offer(Arc::new(Always));
        let holder = tokio::spawn(async move {
            assert_eq!(first_offer.answered().await, Answer::Leave);
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
        let slots = Slots::new(1, 1);
        let withdrawn = slots.offer(Arc::new(Always));
        drop(withdrawn);
        assert!(!slots.evict_oldest(), "a dropped offer cannot be evicted");
        let kept = slots.offer(Arc::new(Always));
        assert!(slots.evict_oldest());
        let answer = tokio::time::timeout(Duration::from_secs(5), kept.answered())
            .await
            .expect("the wake-up is kept for a holder not yet waiting");
        assert_eq!(answer, Answer::Leave);
    }

    #[tokio::test]
    async fn evict_oldest_holder_no_longer_evictable_declined_next_asked() {
        let slots = Slots::new(1, 1);
        let moved_again = Arc::new(Switch(AtomicBool::new(false)));
        let older = slots.offer(moved_again.clone());
        let newer = slots.offer(Arc::new(Always));
        assert!(slots.evict_oldest());
        assert_eq!(older.answered().await, Answer::Declined);
        assert_eq!(newer.answered().await, Answer::Leave);
        // The declined offer is gone: nobody is left to ask.
        moved_again.0.store(true, Ordering::Relaxed);
        assert!(!slots.evict_oldest());
    }

    #[tokio::test(start_paused = true)]
    async fn take_past_max_waiting_refused_at_once() {
        let slots = Slots::new(1, 1);
        let _held = slots.take().await.unwrap();
        let waiter = {
            let slots = slots.clone();
            tokio::spawn(async move { slots.take().await.is_some() })
        };
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished(), "the first newcomer waits");
        let refused = tokio::time::timeout(Duration::from_millis(1), slots.take())
            .await
            .expect("the second newcomer is answered at once");
        assert!(refused.is_none());
        waiter.abort();
    }

    #[tokio::test]
    async fn all_free_waits_for_every_holder() {
        let slots = Slots::new(3, 1);
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
