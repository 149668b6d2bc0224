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
//! deletecollection all write through [`guaranteed_update`]; create has no current object
//! and writes through [`create`], which applies the same size limit.

use serde_json::Value;

use crate::admission::Attributes;
use crate::error::ApiError;
use crate::handlers::AppState;
use crate::handlers::context::{Target, conflict};
use crate::storage::{KeyValue, Revision, StorageError};

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

/// Runs `try_update` on the current object until its result is stored (or is a no-op, a
/// dry run, or an error). `try_update` checks every precondition itself (resourceVersion,
/// uid): it is given the fresh object after each conflict, as kube's tryUpdate is.
///
/// A write that is admitted (`admission`: an update, a patch, `/status`, `/scale`) runs
/// the admission chain on each attempt, once the object was found: its mutating phase
/// before `try_update` validates, its validating phase on `try_update`'s outcome.
pub async fn guaranteed_update<T>(
    state: &AppState,
    ctx: &Target,
    name: &str,
    dry_run: bool,
    admission: Option<&Attributes<'_>>,
    mut try_update: impl FnMut(&Value) -> Result<(Next, T), ApiError>,
) -> Result<Written<T>, ApiError> {
    let key = ctx.key(state, name);
    // A dry run has no compare-and-swap to find a stale object out, so it reads
    // consistently, as kube's dry-run storage does.
    let cached = match dry_run {
        true => None,
        false => state
            .store
            .get_not_older_than(&key, 0)
            .await
            .map_err(|e| ctx.storage_error(name, e))?,
    };
    // Values read straight from a backend are current; cached ones may not be.
    let mut is_current = cached.as_ref().is_some_and(|kv| !kv.memo.is_shared());
    let mut kv = match cached {
        Some(kv) => kv,
        None => {
            is_current = true;
            current(state, ctx, &key, name).await?
        }
    };
    for _ in 0..MAX_ATTEMPTS {
        let current_object = ctx.decode(&kv)?;
        let outcome = admitted(state, admission, || try_update(&current_object)).await;
        // The bytes a put would store, encoded once for the checks and the write.
        let encoded = match &outcome {
            Ok((Next::Put(new), _)) => Some(ctx.encode(new)?),
            _ => None,
        };
        // A refusal (the size limit's too) or a no-op judged on a cached object is judged
        // again on the current one.
        let settled = !is_current
            && match &outcome {
                Err(_) | Ok((Next::Keep, _)) => true,
                Ok((Next::Put(_), _)) => encoded
                    .as_ref()
                    .is_some_and(|b| *b == kv.value || check_size(state, b.len()).is_err()),
                Ok((Next::Delete(_), _)) => false,
            };
        if settled {
            kv = current(state, ctx, &key, name).await?;
            is_current = true;
            continue;
        }
        let (next, extra) = outcome?;
        let current = current_object;
        let written = |object| Written { object, extra };
        let result = match next {
            Next::Put(mut new) => {
                let bytes = match encoded {
                    Some(bytes) => bytes,
                    None => ctx.encode(&new)?,
                };
                // Compared with the stored bytes, as kube's storage does: writing back an
                // object whose defaults were only applied on read persists them.
                if bytes == kv.value {
                    return Ok(written(current));
                }
                check_size(state, bytes.len())?;
                if dry_run {
                    return Ok(written(new));
                }
                match state.store.update(&key, bytes, kv.mod_revision).await {
                    Ok(revision) => {
                        ctx.present(&mut new, revision);
                        return Ok(written(new));
                    }
                    Err(e) => e,
                }
            }
            Next::Keep => return Ok(written(current)),
            Next::Delete(object) => {
                if dry_run {
                    return Ok(written(object));
                }
                match state.store.delete(&key, kv.mod_revision).await {
                    Ok(_) => return Ok(written(object)),
                    Err(e) => e,
                }
            }
        };
        kv = fresh_after(ctx, name, result)?;
        is_current = true;
    }
    Err(conflict(&ctx.group_resource(), name))
}

/// One attempt's outcome: admission's mutating phase, `try_update`, then admission's
/// validating phase on what it decided (a refusal of either is the outcome, judged again
/// on the current object when this one came from the cache, as `try_update`'s are).
async fn admitted<T>(
    state: &AppState,
    admission: Option<&Attributes<'_>>,
    try_update: impl FnOnce() -> Result<(Next, T), ApiError>,
) -> Result<(Next, T), ApiError> {
    let Some(attributes) = admission else {
        return try_update();
    };
    state.admission.admit(attributes).await?;
    let decided = try_update()?;
    state.admission.validate(attributes).await?;
    Ok(decided)
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

/// Writes a new object, refused when its stored form is over the size limit; a dry run
/// still answers AlreadyExists for a taken name. Returns the write's revision (0 on a dry run).
pub async fn create(
    state: &AppState,
    ctx: &Target,
    name: &str,
    object: &Value,
    dry_run: bool,
) -> Result<Revision, ApiError> {
    let bytes = ctx.encode(object)?;
    check_size(state, bytes.len())?;
    let key = ctx.key(state, name);
    if !dry_run {
        return state
            .store
            .create(&key, bytes)
            .await
            .map_err(|e| ctx.storage_error(name, e));
    }
    let existing = state
        .store
        .get(&key)
        .await
        .map_err(|e| ctx.storage_error(name, e))?;
    match existing {
        Some(_) => Err(ApiError::AlreadyExists {
            resource: ctx.group_resource(),
            name: name.to_string(),
        }),
        None => Ok(0),
    }
}

/// `--max-object-size`: etcd refuses requests over 1.5 MiB, so kube can store nothing
/// larger; both stores refuse it here, before anything is written.
fn check_size(state: &AppState, size: usize) -> Result<(), ApiError> {
    let limit = state.max_object_size;
    if size > limit {
        return Err(ApiError::RequestEntityTooLarge(format!(
            "Request entity too large: the object would be stored as {size} bytes, over the limit of {limit} bytes"
        )));
    }
    Ok(())
}
