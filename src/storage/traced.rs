//! Storage spans, with kube's names: the backend's as k8s.io/apiserver's etcd3 store
//! names them (`Get etcd3`, `List(recursive=true) etcd3`, `Create etcd3`,
//! `GuaranteedUpdate etcd3`, and `List(recursive=false) etcd3` for the current revision
//! the cache's consistent reads ask for; deletes are not traced, as kube's store does
//! not), on either backend; the watch cache's as kube's cacher names them (`cacher.Get`,
//! `cacher.GetList`, `cacher.Watch`; writes pass through untraced, as kube's cacher).
//! Wrapped only when a tracer is configured.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use super::{KeyValue, RangeRequest, RangeResult, Result, Revision, Store, WatchStream};
use crate::telemetry::{KeyValue as Attribute, Span};

/// kube's `type` of a stored custom object (etcd3's `getTypeName`).
const OBJECT_TYPE: &str = "*unstructured.Unstructured";

tokio::task_local! {
    /// The resource prefix (below `--etcd-prefix`) of the cache read in progress: kube's
    /// cacher lists it, one key, for the current revision (that span's `key`).
    static READING: String;
}

/// Which layer the spans are named after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// etcd or the embedded store.
    Backend,
    /// The watch cache.
    Cache,
}

/// A store whose calls are spans of the request that makes them.
pub struct Traced {
    inner: Arc<dyn Store>,
    layer: Layer,
    /// `--etcd-prefix`: kube's spans name keys below it.
    prefix: String,
}

impl Traced {
    pub fn wrap(inner: Arc<dyn Store>, layer: Layer, prefix: &str) -> Arc<dyn Store> {
        let prefix = prefix.trim_end_matches('/').to_string();
        Arc::new(Traced {
            inner,
            layer,
            prefix,
        })
    }

    /// The key as kube's spans show it (below the prefix).
    fn shown(&self, key: &str) -> String {
        key.strip_prefix(self.prefix.as_str())
            .unwrap_or(key)
            .to_string()
    }

    /// kube's `audit-id` and `key` attributes.
    fn keyed(&self, key: &str) -> Vec<Attribute> {
        vec![audit_id(), Attribute::new("key", self.shown(key))]
    }

    /// An etcd3 write's attributes: `audit-id`, `key`, `type`, `resource`, `group`.
    fn written(&self, key: &str) -> Vec<Attribute> {
        let shown = self.shown(key);
        let (group, resource) = group_resource(&shown);
        vec![
            audit_id(),
            Attribute::new("key", shown.clone()),
            Attribute::new("type", OBJECT_TYPE),
            Attribute::new("resource", resource.to_string()),
            Attribute::new("group", group.to_string()),
        ]
    }

    /// Runs `read`, a cache read of `key`, with its resource prefix known to the
    /// current-revision span below it.
    async fn reading<F: std::future::Future>(&self, key: &str, read: F) -> F::Output {
        let shown = self.shown(key);
        let (group, resource) = group_resource(&shown);
        READING.scope(format!("/{group}/{resource}"), read).await
    }
}

/// The request's `audit-id` attribute (empty off a request).
fn audit_id() -> Attribute {
    let id = crate::telemetry::server::Facts::current()
        .map(|f| f.audit_id)
        .unwrap_or_default();
    Attribute::new("audit-id", id)
}

/// The group and resource of a key below the prefix (`/<group>/<resource>/...`).
fn group_resource(shown: &str) -> (&str, &str) {
    let mut parts = shown.trim_start_matches('/').splitn(3, '/');
    let group = parts.next().unwrap_or_default();
    (group, parts.next().unwrap_or_default())
}

/// kube's `GroupResource.String()`: `<resource>.<group>`, or the resource of the core group.
fn group_resource_text(shown: &str) -> String {
    match group_resource(shown) {
        ("", resource) => resource.to_string(),
        (group, resource) => format!("{resource}.{group}"),
    }
}

impl Traced {
    /// The cacher's `Get` span (`resource-version` as asked, empty for none).
    fn cacher_get(&self, key: &str, resource_version: String) -> Span {
        Span::start("cacher.Get", || {
            let mut attributes = self.keyed(key);
            attributes.push(Attribute::new("resource-version", resource_version));
            attributes
        })
    }

    fn key_span(&self, backend: &'static str, cache: Option<&'static str>, key: &str) -> Span {
        let name = match self.layer {
            Layer::Backend => backend,
            Layer::Cache => match cache {
                Some(name) => name,
                None => return Span::none(),
            },
        };
        Span::start(name, || self.keyed(key))
    }
}

/// `<call> call succeeded`, or `… failed` with the error (kube's etcd3 events).
fn outcome<T>(span: &Span, result: &Result<T>, succeeded: &'static str, failed: &'static str) {
    match result {
        Ok(_) => span.event(succeeded),
        Err(e) => span.event_with(failed, || vec![Attribute::new("err", e.to_string())]),
    }
}

#[async_trait]
impl Store for Traced {
    async fn get(&self, key: &str) -> Result<Option<KeyValue>> {
        if self.layer == Layer::Cache {
            let span = self.cacher_get(key, String::new());
            span.event("About to Get from underlying storage");
            return span.scope(self.reading(key, self.inner.get(key))).await;
        }
        let span = self.key_span("Get etcd3", None, key);
        let got = span.scope(self.inner.get(key)).await;
        outcome(&span, &got, "Get call succeeded", "Get call failed");
        got
    }

    async fn get_not_older_than(
        &self,
        key: &str,
        not_older_than: Revision,
    ) -> Result<Option<KeyValue>> {
        let span = match self.layer {
            Layer::Cache => self.cacher_get(key, not_older_than.to_string()),
            Layer::Backend => self.key_span("Get etcd3", None, key),
        };
        let got = span
            .scope(self.reading(key, self.inner.get_not_older_than(key, not_older_than)))
            .await;
        if self.layer == Layer::Backend {
            outcome(&span, &got, "Get call succeeded", "Get call failed");
        }
        got
    }

    async fn range(&self, req: RangeRequest) -> Result<RangeResult> {
        let span = match self.layer {
            Layer::Backend => Span::start("List(recursive=true) etcd3", || {
                vec![
                    audit_id(),
                    Attribute::new("key", self.shown(&req.prefix)),
                    Attribute::new("resourceVersion", req.revision.to_string()),
                    Attribute::new("resourceVersionMatch", ""),
                    Attribute::new("limit", i64::try_from(req.limit).unwrap_or(i64::MAX)),
                    Attribute::new("continue", req.start_key.clone().unwrap_or_default()),
                ]
            }),
            Layer::Cache => Span::start("cacher.GetList", || {
                let shown = self.shown(&req.prefix);
                vec![
                    audit_id(),
                    Attribute::new("type", group_resource_text(&shown)),
                ]
            }),
        };
        let prefix = req.prefix.clone();
        let listed = match self.layer {
            Layer::Cache => {
                span.scope(self.reading(&prefix, self.inner.range(req)))
                    .await
            }
            Layer::Backend => span.scope(self.inner.range(req)).await,
        };
        if let (Ok(result), Layer::Cache) = (&listed, self.layer) {
            span.event_with("Listed items from cache", || {
                vec![Attribute::new(
                    "count",
                    i64::try_from(result.kvs.len()).unwrap_or(i64::MAX),
                )]
            });
        }
        listed
    }

    async fn create(&self, key: &str, value: Vec<u8>) -> Result<Revision> {
        let span = self.write_span("Create etcd3", key);
        let created = span.scope(self.inner.create(key, value)).await;
        outcome(&span, &created, "Txn call succeeded", "Txn call failed");
        created
    }

    async fn update(&self, key: &str, value: Vec<u8>, expected: Revision) -> Result<Revision> {
        let span = self.write_span("GuaranteedUpdate etcd3", key);
        let updated = span.scope(self.inner.update(key, value, expected)).await;
        outcome(&span, &updated, "Txn call completed", "Txn call failed");
        updated
    }

    async fn delete(&self, key: &str, expected: Revision) -> Result<KeyValue> {
        self.inner.delete(key, expected).await
    }

    async fn watch(
        &self,
        prefix: &str,
        after: Revision,
        progress_every: Duration,
    ) -> Result<WatchStream> {
        let _span = self.watch_span(prefix);
        self.inner.watch(prefix, after, progress_every).await
    }

    async fn watch_with_progress(
        &self,
        prefix: &str,
        after: Revision,
        progress_every: Duration,
        progress: Arc<tokio::sync::Notify>,
    ) -> Result<WatchStream> {
        let _span = self.watch_span(prefix);
        self.inner
            .watch_with_progress(prefix, after, progress_every, progress)
            .await
    }

    fn progress_on_request(&self) -> bool {
        self.inner.progress_on_request()
    }

    async fn current_revision(&self) -> Result<Revision> {
        // kube's cacher reads etcd's current revision with a one-key list.
        let span = match self.layer {
            Layer::Backend => Span::start("List(recursive=false) etcd3", || {
                let key = READING.try_with(String::clone).unwrap_or_default();
                vec![
                    audit_id(),
                    Attribute::new("key", key),
                    Attribute::new("resourceVersion", ""),
                    Attribute::new("resourceVersionMatch", ""),
                    Attribute::new("limit", 1_i64),
                    Attribute::new("continue", ""),
                ]
            }),
            Layer::Cache => Span::none(),
        };
        span.scope(self.inner.current_revision()).await
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

impl Traced {
    /// An etcd3 write's span (the cache's writes pass through untraced).
    fn write_span(&self, name: &'static str, key: &str) -> Span {
        match self.layer {
            Layer::Backend => Span::start(name, || self.written(key)),
            Layer::Cache => Span::none(),
        }
    }

    /// kube's `cacher.Watch` span: the watch's start, not its life.
    fn watch_span(&self, prefix: &str) -> Span {
        match self.layer {
            Layer::Cache => Span::start("cacher.Watch", || {
                vec![Attribute::new("key", prefix.to_string())]
            }),
            Layer::Backend => Span::none(),
        }
    }
}
