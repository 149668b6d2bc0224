//! The store wrapper of encryption at rest, below the watch cache: every value of a
//! configured resource is encrypted on its way to the backend (create, update) and
//! decrypted on its way back (get, range, watch events with their previous values, a
//! conflict's current value, a delete's last value), the storage key as authenticated
//! data, as kube's etcd3 store does. Keys of other resources pass through untouched.
//! A value no provider reads is a [`StorageError::Internal`] (kube's 500 text).

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use tokio::sync::Notify;

use super::prefix::Providers;
use crate::storage::{
    Event, KeyValue, RangeRequest, RangeResult, Result, Revision, StorageError, Store, WatchStream,
};

/// A store whose configured resources are encrypted at rest.
pub struct EncryptingStore {
    inner: Arc<dyn Store>,
    resources: Arc<Resources>,
}

impl EncryptingStore {
    /// `inner` with the resources under each prefix encrypted by their providers.
    pub fn new(
        inner: Arc<dyn Store>,
        resources: impl IntoIterator<Item = (String, Providers)>,
    ) -> EncryptingStore {
        let resources = resources.into_iter().collect();
        EncryptingStore {
            inner,
            resources: Arc::new(Resources(resources)),
        }
    }

    async fn encrypt(&self, key: &str, value: Vec<u8>) -> Result<Vec<u8>> {
        match self.resources.providers(key) {
            Some(providers) => providers
                .write(&value, key.as_bytes())
                .await
                .map_err(|e| StorageError::Internal(e.to_string())),
            None => Ok(value),
        }
    }

    async fn error(&self, err: StorageError) -> StorageError {
        match err {
            StorageError::Conflict { key, current } => match self.resources.kv(*current).await {
                Ok(current) => StorageError::Conflict {
                    key,
                    current: Box::new(current),
                },
                Err(e) => e,
            },
            other => other,
        }
    }

    fn watch_stream(&self, stream: WatchStream) -> WatchStream {
        let resources = self.resources.clone();
        Box::pin(stream.then(move |item| {
            let resources = resources.clone();
            async move {
                match item? {
                    Event::Put { kv, prev_value } => {
                        let prev_value = match prev_value {
                            Some(prev) => Some(resources.value(&kv.key, prev).await?.0),
                            None => None,
                        };
                        let kv = resources.kv(kv).await?;
                        Ok(Event::Put { kv, prev_value })
                    }
                    Event::Delete { kv } => Ok(Event::Delete {
                        kv: resources.kv(kv).await?,
                    }),
                    progress @ Event::Progress { .. } => Ok(progress),
                }
            }
        }))
    }
}

/// Each configured resource's storage prefix (ending in `/`) and providers; shared with
/// the watch streams.
struct Resources(BTreeMap<String, Providers>);

impl Resources {
    /// The providers of the resource `key` belongs to.
    fn providers(&self, key: &str) -> Option<&Providers> {
        let (prefix, providers) = self
            .0
            .range::<str, _>((Bound::Unbounded, Bound::Included(key)))
            .next_back()?;
        key.starts_with(prefix.as_str()).then_some(providers)
    }

    /// The plaintext of `value` stored at `key`, and whether it is stale.
    async fn value(&self, key: &str, value: Bytes) -> Result<(Bytes, bool)> {
        let Some(providers) = self.providers(key) else {
            return Ok((value, false));
        };
        let decrypted = providers
            .read(&value, key.as_bytes())
            .await
            .map_err(|e| StorageError::Internal(e.to_string()))?;
        Ok((Bytes::from(decrypted.data), decrypted.stale))
    }

    /// `kv` with its value decrypted and its staleness.
    async fn kv(&self, mut kv: KeyValue) -> Result<KeyValue> {
        let (value, stale) = self.value(&kv.key, std::mem::take(&mut kv.value)).await?;
        kv.value = value;
        kv.stale = stale;
        Ok(kv)
    }
}

#[async_trait::async_trait]
impl Store for EncryptingStore {
    async fn get(&self, key: &str) -> Result<Option<KeyValue>> {
        match self.inner.get(key).await? {
            Some(kv) => self.resources.kv(kv).await.map(Some),
            None => Ok(None),
        }
    }

    async fn get_not_older_than(
        &self,
        key: &str,
        not_older_than: Revision,
    ) -> Result<Option<KeyValue>> {
        match self.inner.get_not_older_than(key, not_older_than).await? {
            Some(kv) => self.resources.kv(kv).await.map(Some),
            None => Ok(None),
        }
    }

    async fn range(&self, req: RangeRequest) -> Result<RangeResult> {
        let mut result = self.inner.range(req).await?;
        let mut kvs = Vec::with_capacity(result.kvs.len());
        for kv in result.kvs {
            let key = kv.key.clone();
            // kube's list: "unable to transform key %q: %w".
            let kv = self.resources.kv(kv).await.map_err(|e| {
                StorageError::Internal(format!(
                    "unable to transform key {}: {e}",
                    crate::gofmt::quote(&key)
                ))
            })?;
            kvs.push(kv);
        }
        result.kvs = kvs;
        Ok(result)
    }

    async fn create(&self, key: &str, value: Vec<u8>) -> Result<Revision> {
        let value = self.encrypt(key, value).await?;
        self.inner.create(key, value).await
    }

    async fn update(&self, key: &str, value: Vec<u8>, expected: Revision) -> Result<Revision> {
        let value = self.encrypt(key, value).await?;
        match self.inner.update(key, value, expected).await {
            Ok(revision) => Ok(revision),
            Err(e) => Err(self.error(e).await),
        }
    }

    async fn delete(&self, key: &str, expected: Revision) -> Result<KeyValue> {
        match self.inner.delete(key, expected).await {
            Ok(kv) => self.resources.kv(kv).await,
            Err(e) => Err(self.error(e).await),
        }
    }

    async fn watch(
        &self,
        prefix: &str,
        after: Revision,
        progress_every: Duration,
    ) -> Result<WatchStream> {
        let stream = self.inner.watch(prefix, after, progress_every).await?;
        Ok(self.watch_stream(stream))
    }

    async fn watch_with_progress(
        &self,
        prefix: &str,
        after: Revision,
        progress_every: Duration,
        progress: Arc<Notify>,
    ) -> Result<WatchStream> {
        let stream = self
            .inner
            .watch_with_progress(prefix, after, progress_every, progress)
            .await?;
        Ok(self.watch_stream(stream))
    }

    fn progress_on_request(&self) -> bool {
        self.inner.progress_on_request()
    }

    async fn current_revision(&self) -> Result<Revision> {
        self.inner.current_revision().await
    }

    async fn compact(&self, revision: Revision) -> Result<()> {
        self.inner.compact(revision).await
    }

    async fn compacted_revision(&self) -> Result<Revision> {
        self.inner.compacted_revision().await
    }

    async fn check(&self) -> Result<()> {
        self.inner.check().await
    }
}
