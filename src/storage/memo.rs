//! Memo: the forms derived from one stored value (an object's served bytes per version,
//! a watch event's line), computed once and shared by every reader of the cached value —
//! kube's `cachingObject`, which serializes a watch event once for all its watchers.
//!
//! The storage layer only carries the memo; what is memoised and under which key is the
//! handlers' business (keys name the version and the form).

use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;

/// The forms kept for one value, by key, each with a number its maker attached. Keys are
/// shared (a version's name, a watch's line key): no allocation per value for them.
type Forms = Mutex<Vec<(Arc<str>, Bytes, u32)>>;

/// One value's memoised forms; inert (nothing kept) unless made with [`Memo::shared`].
#[derive(Clone, Default)]
pub struct Memo(Option<Arc<Forms>>);

impl Memo {
    /// A memo that keeps what is computed (the watch cache's values).
    pub fn shared() -> Memo {
        Memo(Some(Arc::default()))
    }

    /// Whether forms computed for this value are kept.
    pub fn is_shared(&self) -> bool {
        self.0.is_some()
    }

    /// The form under `key`, made by `make` the first time. Concurrent callers of the same
    /// key wait for the first one instead of making it again; a failure is not kept.
    pub fn get_or_try_insert<E>(
        &self,
        key: &Arc<str>,
        make: impl FnOnce() -> Result<Bytes, E>,
    ) -> Result<Bytes, E> {
        self.get_or_try_insert_tagged(key, || make().map(|bytes| (bytes, 0)))
            .map(|(bytes, _)| bytes)
    }

    /// The form under `key`, if it was made.
    pub fn get(&self, key: &str) -> Option<Bytes> {
        let forms = self
            .0
            .as_ref()?
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        find(&forms, key).map(|(bytes, _)| bytes)
    }

    /// [`Memo::get_or_try_insert`] of a form that carries a number (say, an offset into
    /// the bytes).
    pub fn get_or_try_insert_tagged<E>(
        &self,
        key: &Arc<str>,
        make: impl FnOnce() -> Result<(Bytes, u32), E>,
    ) -> Result<(Bytes, u32), E> {
        let Some(cell) = &self.0 else {
            return make();
        };
        let mut forms = cell.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = find(&forms, key) {
            return Ok(found);
        }
        let (bytes, tag) = make()?;
        // Most values keep one or two forms: no room for four.
        forms.reserve_exact(1);
        forms.push((key.clone(), bytes.clone(), tag));
        Ok((bytes, tag))
    }

    /// How many forms are kept (tests and memory accounting).
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |cell| {
            cell.lock().unwrap_or_else(PoisonError::into_inner).len()
        })
    }

    /// True when no form is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Memos never make two values differ: equality is about the stored data.
impl PartialEq for Memo {
    fn eq(&self, _: &Memo) -> bool {
        true
    }
}

impl Eq for Memo {}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Memo({})", self.len())
    }
}

/// The form kept under `key`, with its number.
fn find(forms: &[(Arc<str>, Bytes, u32)], key: &str) -> Option<(Bytes, u32)> {
    forms
        .iter()
        .find(|(k, _, _)| &**k == key)
        .map(|(_, bytes, tag)| (bytes.clone(), *tag))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_or_try_insert_shared_makes_once() {
        let memo = Memo::shared();
        let mut made = 0;
        for _ in 0..3 {
            let got = memo.get_or_try_insert::<()>(&"v1".into(), || {
                made += 1;
                Ok(Bytes::from_static(b"x"))
            });
            assert_eq!(got, Ok(Bytes::from_static(b"x")));
        }
        assert_eq!(made, 1);
        assert_eq!(memo.len(), 1);
    }

    #[test]
    fn get_or_try_insert_inert_makes_every_time() {
        let memo = Memo::default();
        let mut made = 0;
        for _ in 0..2 {
            let _ = memo.get_or_try_insert::<()>(&"v1".into(), || {
                made += 1;
                Ok(Bytes::new())
            });
        }
        assert_eq!(made, 2);
        assert!(memo.is_empty());
    }

    #[test]
    fn get_or_try_insert_failure_is_not_kept() {
        let memo = Memo::shared();
        assert_eq!(memo.get_or_try_insert(&"k".into(), || Err("no")), Err("no"));
        assert_eq!(
            memo.get_or_try_insert::<&str>(&"k".into(), || Ok(Bytes::from_static(b"y"))),
            Ok(Bytes::from_static(b"y"))
        );
    }
}
