//! Memo: the forms derived from one stored value (an object's served bytes per version,
//! its converted bytes, a watch event's line), computed once and shared by every reader
//! of the cached value — kube's `cachingObject`, which serializes a watch event once for
//! all its watchers.
//!
//! The storage layer only carries the memo; what is memoised and under which key is the
//! handlers' business (keys name the version and the form). Forms made by a network call
//! (a conversion webhook) are filled asynchronously ([`fill`]): never under the memo's
//! lock.

mod fill;
#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;

/// One kept form: made, or being made by an asynchronous fill whose end (success or
/// not) releases the lock its waiters queue on.
#[derive(Clone)]
enum Form {
    Made(Bytes, u32),
    Making(Arc<tokio::sync::Mutex<()>>),
}

/// The forms kept for one value, by key. Keys are shared (a version's name, a watch's
/// line key): no allocation per value for them.
type Kept = Vec<(Arc<str>, Form)>;
type Forms = Mutex<Kept>;

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
        let forms = self.lock()?;
        made(&forms, key).map(|(bytes, _)| bytes)
    }

    /// [`Memo::get_or_try_insert`] of a form that carries a number (say, an offset into
    /// the bytes). A form being filled asynchronously under the same key is made here
    /// too, and not kept (sync and async forms use different keys).
    pub fn get_or_try_insert_tagged<E>(
        &self,
        key: &Arc<str>,
        make: impl FnOnce() -> Result<(Bytes, u32), E>,
    ) -> Result<(Bytes, u32), E> {
        let Some(mut forms) = self.lock() else {
            return make();
        };
        match find(&forms, key) {
            Some(Form::Made(bytes, tag)) => return Ok((bytes, tag)),
            Some(Form::Making(_)) => {
                drop(forms);
                return make();
            }
            None => {}
        }
        let (bytes, tag) = make()?;
        // Most values keep one or two forms: no room for four.
        forms.reserve_exact(1);
        forms.push((key.clone(), Form::Made(bytes.clone(), tag)));
        Ok((bytes, tag))
    }

    /// How many forms are made and kept (tests and memory accounting).
    pub fn len(&self) -> usize {
        self.lock().map_or(0, |forms| {
            forms
                .iter()
                .filter(|(_, form)| matches!(form, Form::Made(..)))
                .count()
        })
    }

    /// True when no form is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The forms, locked (briefly: nothing is awaited under this lock).
    fn lock(&self) -> Option<std::sync::MutexGuard<'_, Kept>> {
        let cell = self.0.as_ref()?;
        Some(cell.lock().unwrap_or_else(PoisonError::into_inner))
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

/// The form kept under `key`, made or being made.
fn find(forms: &[(Arc<str>, Form)], key: &str) -> Option<Form> {
    forms
        .iter()
        .find(|(k, _)| &**k == key)
        .map(|(_, form)| form.clone())
}

/// The form made under `key`, with its number.
fn made(forms: &[(Arc<str>, Form)], key: &str) -> Option<(Bytes, u32)> {
    match find(forms, key)? {
        Form::Made(bytes, tag) => Some((bytes, tag)),
        Form::Making(_) => None,
    }
}
