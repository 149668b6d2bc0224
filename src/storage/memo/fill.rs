//! Asynchronous single-flight fills of a memo's forms: a form made by a network call (a
//! conversion webhook) is claimed under the memo's lock, made outside it, and kept when
//! made; concurrent readers of the same value and key wait for the claim's end instead
//! of making it again. A failed or abandoned fill keeps nothing: the next reader makes
//! the form itself. Inert memos keep nothing and every caller makes its own.

use std::future::Future;
use std::sync::{Arc, PoisonError};

use bytes::Bytes;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use super::{Form, Forms, Memo, find};

/// A memo's form under one key, as a fill finds it.
enum Look {
    Made(Bytes),
    /// Another caller is making it: wait for this lock, then look again.
    Wait(Arc<AsyncMutex<()>>),
    /// This caller makes it.
    Claimed(Claim),
}

/// The right to make one memo's form: kept with [`Claim::fill`]; dropped unfilled (an
/// error, a cancelled request), its place is given up and its waiters look again.
struct Claim {
    kept: Option<Kept>,
}

/// Where a claim on a shared memo keeps its form, and the lock its waiters queue on
/// (held until the claim ends).
struct Kept {
    forms: Arc<Forms>,
    key: Arc<str>,
    lock: Arc<AsyncMutex<()>>,
    _held: OwnedMutexGuard<()>,
}

impl Memo {
    /// The form under `key`, made by `make` the first time, outside the memo's lock.
    /// Concurrent callers of the same key wait for the first one's fill; a failure is not
    /// kept (a waiter then makes the form itself).
    pub async fn get_or_try_fill<E, Fut>(
        &self,
        key: &Arc<str>,
        make: impl FnOnce() -> Fut,
    ) -> Result<Bytes, E>
    where
        Fut: Future<Output = Result<Bytes, E>>,
    {
        loop {
            match look(self, key) {
                Look::Made(bytes) => return Ok(bytes),
                Look::Wait(lock) => drop(lock.lock().await),
                Look::Claimed(claim) => {
                    let bytes = make().await?;
                    claim.fill(&bytes);
                    return Ok(bytes);
                }
            }
        }
    }

    /// The forms under `key` of many values, those not made yet made by as few calls of
    /// `make` as possible: one for every form nobody else is making, then one for those
    /// whose other maker failed. `make` gets the indexes (into `memos`) of the forms to
    /// make and answers one form per index, in order; an answer short of forms is made
    /// again for the missing ones, so a caller must answer them all or fail.
    pub async fn fill_many<E, Fut>(
        memos: &[&Memo],
        key: &Arc<str>,
        mut make: impl FnMut(Vec<usize>) -> Fut,
    ) -> Result<Vec<Bytes>, E>
    where
        Fut: Future<Output = Result<Vec<Bytes>, E>>,
    {
        let mut got: Vec<Option<Bytes>> = vec![None; memos.len()];
        let mut pending: Vec<usize> = (0..memos.len()).collect();
        while !pending.is_empty() {
            let mut claims = Vec::new();
            let mut waits = Vec::new();
            for i in pending.drain(..) {
                match memos.get(i).map(|memo| look(memo, key)) {
                    Some(Look::Made(bytes)) => got[i] = Some(bytes),
                    Some(Look::Wait(lock)) => waits.push((i, lock)),
                    Some(Look::Claimed(claim)) => claims.push((i, claim)),
                    None => {}
                }
            }
            if !claims.is_empty() {
                let made = make(claims.iter().map(|(i, _)| *i).collect()).await?;
                let mut made = made.into_iter();
                for (i, claim) in claims {
                    match made.next() {
                        Some(bytes) => {
                            claim.fill(&bytes);
                            got[i] = Some(bytes);
                        }
                        None => pending.push(i),
                    }
                }
            }
            // Our own claims are settled before we wait for anyone else's: two batches
            // waiting for each other's forms cannot block each other.
            for (i, lock) in waits {
                drop(lock.lock().await);
                pending.push(i);
            }
        }
        Ok(got.into_iter().map(Option::unwrap_or_default).collect())
    }
}

/// How `key`'s form of `memo` stands; claims it when nobody has.
fn look(memo: &Memo, key: &Arc<str>) -> Look {
    let Some(cell) = &memo.0 else {
        return Look::Claimed(Claim { kept: None });
    };
    let mut forms = cell.lock().unwrap_or_else(PoisonError::into_inner);
    match find(&forms, key) {
        Some(Form::Made(bytes, _)) => Look::Made(bytes),
        Some(Form::Making(lock)) => Look::Wait(lock),
        None => {
            let lock = Arc::new(AsyncMutex::new(()));
            // A lock nobody else has seen is free.
            let Ok(held) = lock.clone().try_lock_owned() else {
                return Look::Claimed(Claim { kept: None });
            };
            forms.push((key.clone(), Form::Making(lock.clone())));
            Look::Claimed(Claim {
                kept: Some(Kept {
                    forms: cell.clone(),
                    key: key.clone(),
                    lock,
                    _held: held,
                }),
            })
        }
    }
}

impl Claim {
    /// Keeps the made form in place of the claim, then lets the waiters look again.
    fn fill(mut self, bytes: &Bytes) {
        if let Some(kept) = self.kept.take() {
            kept.settle(Some(Form::Made(bytes.clone(), 0)));
        }
    }
}

impl Drop for Claim {
    /// An unfilled claim (a failure, a cancelled fill) gives its place up.
    fn drop(&mut self) {
        if let Some(kept) = self.kept.take() {
            kept.settle(None);
        }
    }
}

impl Kept {
    /// Replaces the claim's place with `form` (or removes it); the held lock is released
    /// when `self` is dropped, after the place is settled.
    fn settle(self, form: Option<Form>) {
        let mut forms = self.forms.lock().unwrap_or_else(PoisonError::into_inner);
        let ours = forms.iter().position(|(k, f)| {
            *k == self.key && matches!(f, Form::Making(lock) if Arc::ptr_eq(lock, &self.lock))
        });
        match (ours, form) {
            (Some(at), Some(form)) => forms[at].1 = form,
            (Some(at), None) => {
                forms.swap_remove(at);
            }
            (None, _) => {}
        }
    }
}
