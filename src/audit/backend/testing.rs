//! Events for the backends' tests.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::value::RawValue;

use crate::audit::event::{ObjectReference, UserInfo};
use crate::audit::{Event, Level, Stage};

/// A ResponseComplete event for a create of CronTab `name`, at `level` (with the request
/// and response objects from Request on).
pub fn event(name: &str, level: Level) -> Event {
    let object = format!(r#"{{"kind":"CronTab","metadata":{{"name":"{name}"}}}}"#);
    let raw = |text: &str| RawValue::from_string(text.to_string()).ok();
    Event {
        kind: "Event".into(),
        api_version: "audit.k8s.io/v1".into(),
        level,
        audit_id: format!("id-{name}"),
        stage: Stage::ResponseComplete,
        request_uri: "/apis/stable.example.com/v1/namespaces/default/crontabs".into(),
        verb: "create".into(),
        user: UserInfo {
            username: "alice".into(),
            groups: vec!["system:authenticated".into(), "dev".into()],
            ..UserInfo::default()
        },
        impersonated_user: None,
        source_ips: vec!["10.0.0.1".into()],
        user_agent: "kubectl/v1.36.0".into(),
        object_ref: Some(ObjectReference {
            resource: "crontabs".into(),
            namespace: "default".into(),
            name: name.into(),
            api_group: "stable.example.com".into(),
            api_version: "v1".into(),
            ..ObjectReference::default()
        }),
        response_status: Some(serde_json::json!({"metadata": {}, "code": 201})),
        request_object: (level >= Level::Request).then(|| raw(&object)).flatten(),
        response_object: (level >= Level::RequestResponse)
            .then(|| raw(&object))
            .flatten(),
        request_received_timestamp: "2026-12-07T13:47:16.120000Z".into(),
        stage_timestamp: "2026-12-07T13:47:16.125300Z".into(),
        annotations: BTreeMap::new(),
    }
}

/// `count` events named `prefix-0`…, shared as a backend receives them.
pub fn events(prefix: &str, count: usize, level: Level) -> Vec<Arc<Event>> {
    (0..count)
        .map(|i| Arc::new(event(&format!("{prefix}-{i}"), level)))
        .collect()
}

/// A clock starting at 2026-12-07T13:00:00.250Z, one second later at each reading.
pub fn ticking() -> super::log::rotate::Clock {
    let start: jiff::Timestamp = "2026-12-07T13:00:00.250Z".parse().unwrap_or_default();
    let ticks = std::sync::atomic::AtomicI64::new(0);
    Arc::new(move || {
        let n = ticks.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        start + jiff::SignedDuration::from_secs(n)
    })
}

/// A backend that records the batches it is given and answers `answer`.
pub struct Recorder {
    pub batches: std::sync::Mutex<Vec<Vec<Arc<Event>>>>,
    pub answer: bool,
    pub shut_down: std::sync::atomic::AtomicBool,
}

impl Recorder {
    pub fn new(answer: bool) -> Arc<Recorder> {
        Arc::new(Recorder {
            batches: Default::default(),
            answer,
            shut_down: Default::default(),
        })
    }

    /// The audit IDs of each batch received.
    pub fn ids(&self) -> Vec<Vec<String>> {
        let batches = self.batches.lock().map(|b| b.clone()).unwrap_or_default();
        batches
            .iter()
            .map(|batch| batch.iter().map(|e| e.audit_id.clone()).collect())
            .collect()
    }
}

impl super::Backend for Recorder {
    fn process_events<'a>(
        &'a self,
        events: &'a [Arc<Event>],
    ) -> futures::future::BoxFuture<'a, bool> {
        if let Ok(mut batches) = self.batches.lock() {
            batches.push(events.to_vec());
        }
        Box::pin(std::future::ready(self.answer))
    }

    fn shutdown(&self) -> futures::future::BoxFuture<'_, ()> {
        self.shut_down
            .store(true, std::sync::atomic::Ordering::SeqCst);
        Box::pin(std::future::ready(()))
    }
}
