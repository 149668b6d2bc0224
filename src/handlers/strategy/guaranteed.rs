//! The one write loop for existing objects, kube's `GuaranteedUpdate`: read, let the caller
//! derive the next state from the current object, refuse it when oversized, then
//! compare-and-swap; on a conflict the store's current value (which the conflict carries)
//! is handed to the caller again, so nothing is re-read.
//!
//! The first read may come from the watch cache without waiting for it to catch up (kube's
//! `cachedExistingObject`), except in a dry run, which has no compare-and-swap and so
//! reads consistently: a stale object fails the compare-and-swap, and whenever the
//! caller refuses it, finds nothing to change, makes it too large or finds nothing at all,
//! the object is read again consistently before that answer is given (kube's
//! `origStateIsCurrent`).
//!
//! Update, patch, `/status`, `/scale`, delete (finalizers and deletionTimestamp) and
//! deletecollection all write through [`Attempts`]; create has no current object
//! and writes through [`create`], which applies the same size limit.

use serde_json::Value;

use crate::error::ApiError;
use crate::handlers::AppState;
use crate::handlers::context::{Target, conflict};
use crate::storage::{KeyValue, StorageError};

/// How often the loop runs before answering 409; kube loops without bound, but a key that
/// changes 16 times during one request is better answered with a conflict.
const MAX_ATTEMPTS: usize = 16;

/// What the caller decided for the current object.
pub enum Next {
    /// Store this object in place of the current one (skipped when its bytes are unchanged).
    Put(Value),
    /// Remove the object; the answer shows this value.
    Delete(Value),
    /// Write nothing; the answer shows the current object.
    Keep,
}

/// The object to answer with (the stored, unchanged, dry-run or deleted one) and what the
/// caller's last try returned.
pub struct Written<T> {
    pub object: Value,
    pub extra: T,
}

/// The attempts of one write, driven by the caller (kube's `GuaranteedUpdate`, with
/// `tryUpdate` written inline by the caller):
///
/// ```text
/// let mut attempts = Attempts::begin(state, ctx, name, dry_run).await?;
/// let written = loop {
///     let outcome = try_update(attempts.current()).await;
///     if let Some(written) = attempts.conclude(outcome).await? { break written; }
/// };
/// ```
///
/// The caller's attempt checks every precondition itself (resourceVersion, uid) and runs
/// the admission chain (kube's update transformers and `updateValidation`, a delete's
/// `deleteValidation`); it is given the fresh object after each conflict, as kube's
/// tryUpdate is, and a refusal judged on a cached object is judged again on the current
/// one, as every refusal is.
pub struct Attempts<'a> {
    state: &'a AppState,
    ctx: &'a Target,
    name: &'a str,
    dry_run: bool,
    key: String,
    kv: KeyValue,
    /// The object `kv` holds, decoded.
    current: Value,
    /// Whether `kv` was read consistently (a backend's value), not from the cache.
    is_current: bool,
    made: usize,
}

impl<'a> Attempts<'a> {
    /// Reads the object to change: from the watch cache when it has it, else (and always
    /// on a dry run, which has no compare-and-swap to find a stale object out, as kube's
    /// dry-run storage reads) consistently; 404 when absent.
    pub async fn begin(
        state: &'a AppState,
        ctx: &'a Target,
        name: &'a str,
        dry_run: bool,
    ) -> Result<Attempts<'a>, ApiError> {
        let key = ctx.key(state, name);
        let cached = match dry_run {
            true => None,
            false => state
                .store
                .get_not_older_than(&key, 0)
                .await
                .map_err(|e| ctx.storage_error(name, e))?,
        };
        // Values read straight from a backend are current; cached ones may not be.
        let (kv, is_current) = match cached {
            Some(kv) => {
                let shared = kv.memo.is_shared();
                (kv, !shared)
            }
            None => (current(state, ctx, &key, name).await?, true),
        };
        let current = ctx.decode_served(&kv).await?;
        Ok(Attempts {
            state,
            ctx,
            name,
            dry_run,
            key,
            kv,
            current,
            is_current,
            made: 0,
        })
    }

    /// The object this attempt changes.
    pub fn current(&self) -> &Value {
        &self.current
    }

    /// Concludes one attempt with the caller's `outcome` on [`Attempts::current`]: the
    /// written object, or `None` when the caller must try again on the new current
    /// object (a conflict, or a refusal or no-op judged on a cached object); 409 after
    /// [`MAX_ATTEMPTS`].
    pub async fn conclude<T>(
        &mut self,
        outcome: Result<(Next, T), ApiError>,
    ) -> Result<Option<Written<T>>, ApiError> {
        let (state, ctx, name) = (self.state, self.ctx, self.name);
        self.made += 1;
        // The bytes a put would store (converted to the storage version first), encoded
        // once for the checks and the write.
        let (encoded, stored) = match &outcome {
            Ok((Next::Put(new), _)) => {
                let (bytes, stored) = ctx.stored_form(new).await?;
                (Some(bytes), stored)
            }
            _ => (None, None),
        };
        // A refusal (the size limit's too) or a no-op judged on a cached object is judged
        // again on the current one.
        let settled = !self.is_current
            && match &outcome {
                Err(_) | Ok((Next::Keep, _)) => true,
                Ok((Next::Put(_), _)) => encoded
                    .as_ref()
                    .is_some_and(|b| *b == self.kv.value || check_size(state, b.len()).is_err()),
                Ok((Next::Delete(_), _)) => false,
            };
        if settled {
            let kv = current(state, ctx, &self.key, name).await?;
            if kv.mod_revision != self.kv.mod_revision {
                return self.again(kv).await.map(|()| None);
            }
            // The cached object was the current one after all: its outcome stands
            // (kube's `cachedRev == origState.rev`), without calling the caller again.
            self.is_current = true;
        }
        let (next, extra) = outcome?;
        let written = |object| Some(Written { object, extra });
        let failed = match next {
            Next::Put(new) => {
                let (bytes, stored) = match encoded {
                    Some(bytes) => (bytes, stored),
                    None => ctx.stored_form(&new).await?,
                };
                // Compared with the stored bytes, as kube's storage does: writing back an
                // object whose defaults were only applied on read persists them, and an
                // object stored at another version is written (a migration), and so is
                // one read with an encryption key writes no longer use (kube's `stale`).
                if self.unchanged(&bytes) && !self.stale_below_cache().await {
                    return Ok(written(std::mem::take(&mut self.current)));
                }
                check_size(state, bytes.len())?;
                if self.dry_run {
                    return Ok(written(ctx.answer(new, stored, 0).await?));
                }
                match state
                    .store
                    .update(&self.key, bytes, self.kv.mod_revision)
                    .await
                {
                    Ok(revision) => return Ok(written(ctx.answer(new, stored, revision).await?)),
                    Err(e) => e,
                }
            }
            Next::Keep => return Ok(written(std::mem::take(&mut self.current))),
            Next::Delete(object) => {
                if self.dry_run {
                    return Ok(written(object));
                }
                match state.store.delete(&self.key, self.kv.mod_revision).await {
                    Ok(_) => return Ok(written(object)),
                    Err(e) => e,
                }
            }
        };
        let kv = fresh_after(ctx, name, failed)?;
        self.again(kv).await.map(|()| None)
    }

    /// Whether storing `bytes` would change nothing: the same bytes, not stale.
    fn unchanged(&self, bytes: &[u8]) -> bool {
        !self.kv.stale && bytes == self.kv.value
    }

    /// kube judges a no-op on a value read from etcd, whose staleness is current. The
    /// watch cache keeps the staleness a value had when the cache read it, and a KMS
    /// plugin's key ID can change since: with encryption, a no-op is confirmed below the
    /// cache (a value changed meanwhile is written too, and its compare-and-swap fails).
    async fn stale_below_cache(&self) -> bool {
        let (true, Some(cache)) = (self.state.encrypted, &self.state.cache) else {
            return false;
        };
        match cache.uncached().get(&self.key).await {
            Ok(Some(kv)) => kv.stale || kv.mod_revision != self.kv.mod_revision,
            _ => false,
        }
    }

    /// Another attempt on `kv`, read consistently; 409 when the attempts are used up.
    async fn again(&mut self, kv: KeyValue) -> Result<(), ApiError> {
        if self.made >= MAX_ATTEMPTS {
            return Err(conflict(&self.ctx.group_resource(), self.name));
        }
        self.current = self.ctx.decode_served(&kv).await?;
        self.kv = kv;
        self.is_current = true;
        Ok(())
    }
}

/// The key's current value, read consistently; 404 when absent.
async fn current(
    state: &AppState,
    ctx: &Target,
    key: &str,
    name: &str,
) -> Result<KeyValue, ApiError> {
    state
        .store
        .get(key)
        .await
        .map_err(|e| ctx.storage_error(name, e))?
        .ok_or_else(|| ctx.not_found(name))
}

/// The current value a failed compare-and-swap carries, or the error to answer.
fn fresh_after(ctx: &Target, name: &str, err: StorageError) -> Result<KeyValue, ApiError> {
    match err {
        StorageError::Conflict { current, .. } => Ok(*current),
        e => Err(ctx.storage_error(name, e)),
    }
}

/// Writes a new object (in the storage version), refused when its stored form is over
/// the size limit; a dry run still answers AlreadyExists for a taken name. Returns the
/// object as stored, in the request's version.
pub async fn create(
    state: &AppState,
    ctx: &Target,
    name: &str,
    object: Value,
    dry_run: bool,
) -> Result<Value, ApiError> {
    let (bytes, stored) = ctx.stored_form(&object).await?;
    check_size(state, bytes.len())?;
    let key = ctx.key(state, name);
    let revision = if dry_run {
        taken(state, ctx, &key, name).await?;
        0
    } else {
        state
            .store
            .create(&key, bytes)
            .await
            .map_err(|e| ctx.storage_error(name, e))?
    };
    ctx.answer(object, stored, revision).await
}

/// A dry-run create's AlreadyExists for a taken name.
async fn taken(state: &AppState, ctx: &Target, key: &str, name: &str) -> Result<(), ApiError> {
    let existing = state
        .store
        .get(key)
        .await
        .map_err(|e| ctx.storage_error(name, e))?;
    match existing {
        Some(_) => Err(ApiError::AlreadyExists {
            resource: ctx.group_resource(),
            name: name.to_string(),
        }),
        None => Ok(()),
    }
}

/// `--max-object-size`: etcd refuses requests over 1.5 MiB, so kube can store nothing
/// larger; both stores refuse it here, before anything is written.
pub(crate) fn check_size(state: &AppState, size: usize) -> Result<(), ApiError> {
    let limit = state.max_object_size;
    if size > limit {
        return Err(ApiError::RequestEntityTooLarge(format!(
            "Request entity too large: the object would be stored as {size} bytes, over the limit of {limit} bytes"
        )));
    }
    Ok(())
}
