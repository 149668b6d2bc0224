#![allow(clippy::unwrap_used, clippy::panic)] // tests fail loudly

use std::sync::Arc;

use http::StatusCode;
use serde_json::Value;

use super::*;
use crate::audit::policy::{Policy, RequestAuditConfig};
use crate::audit::request::{RequestMeta, metadata_event};
use crate::audit::testing::Recording;
use crate::audit::{Auditor, Event};
use crate::error::ApiError;
use crate::request::info;
use crate::request::negotiate::Representation;
use crate::request::query::Query;

fn context(level: Level) -> (Arc<Recording>, Context) {
    let backend = Arc::new(Recording::default());
    let auditor = Arc::new(Auditor::new(
        Arc::new(Policy::default()),
        backend.clone(),
        Default::default(),
    ));
    let info = info::parse("GET", "/apis/g/v1/crontabs", &Query::default());
    let event = metadata_event(RequestMeta {
        audit_id: "a",
        uri: "/apis/g/v1/crontabs",
        info: &info,
        user: None,
        source_ips: vec![],
        user_agent: "",
        received: jiff::Timestamp::now(),
    });
    let config = RequestAuditConfig {
        level,
        omit_stages: vec![],
        omit_managed_fields: false,
    };
    (backend, Context::new(auditor, config, event))
}

fn last(backend: &Recording) -> Event {
    backend
        .events
        .lock()
        .unwrap()
        .last()
        .unwrap()
        .as_ref()
        .clone()
}

#[tokio::test]
async fn complete_object_reply_records_status_and_object_then_response_complete() {
    let (backend, audit) = context(Level::RequestResponse);
    let body = serde_json::json!({"kind": "CronTab", "metadata": {"name": "a"}});
    let reply = Reply::Object {
        code: StatusCode::CREATED,
        body,
        representation: Representation::Json,
        warnings: vec![],
    };
    let reply = complete(audit, reply, false).await;
    assert_eq!(reply.code(), 201);
    assert_eq!(backend.stages(), [Stage::ResponseComplete]);
    let e = last(&backend);
    assert_eq!(
        e.response_status,
        Some(serde_json::json!({"metadata": {}, "code": 201}))
    );
    assert_eq!(
        e.response_object.unwrap().get(),
        r#"{"kind":"CronTab","metadata":{"name":"a"}}"#
    );
}

#[tokio::test]
async fn complete_error_reply_records_kube_status() {
    let (backend, audit) = context(Level::Metadata);
    let error = ApiError::NotFound {
        resource: crate::error::GroupResource::new("g", "crontabs"),
        name: "a".into(),
    };
    complete(audit, Reply::Error(error), false).await;
    let status = last(&backend).response_status.unwrap();
    assert_eq!(status["code"], 404);
    assert_eq!(status["reason"], "NotFound");
    assert_eq!(status["status"], "Failure");
    assert_eq!(status["message"], r#"crontabs.g "a" not found"#);
    assert_eq!(status["metadata"], serde_json::json!({}));
}

#[tokio::test]
async fn complete_encoded_reply_at_request_response_logs_served_bytes() {
    let (backend, audit) = context(Level::RequestResponse);
    let served = Bytes::from_static(br#"{"kind":"CronTabList","items":[]}"#);
    let chunks: Vec<Result<Bytes, std::io::Error>> =
        vec![Ok(served.slice(..10)), Ok(served.slice(10..))];
    let reply = Reply::Encoded {
        body: Box::pin(futures::stream::iter(chunks)),
        len: served.len(),
        warnings: vec![],
    };
    let Reply::Encoded { body, len, .. } = complete(audit, reply, false).await else {
        panic!("not encoded");
    };
    assert_eq!(len, served.len());
    assert_eq!(collect(body, len).await.unwrap(), served);
    let e = last(&backend);
    assert_eq!(
        e.response_object.unwrap().get(),
        r#"{"kind":"CronTabList","items":[]}"#
    );
}

#[tokio::test]
async fn complete_watch_response_started_now_complete_when_stream_dropped() {
    let (backend, audit) = context(Level::Metadata);
    let (tx, rx) = futures::channel::mpsc::unbounded::<Result<Bytes, std::io::Error>>();
    let reply = Reply::Stream {
        content_type: "application/json",
        stream: Box::pin(rx),
        warnings: vec![],
    };
    let Reply::Stream { mut stream, .. } = complete(audit, reply, true).await else {
        panic!("not a stream");
    };
    assert_eq!(backend.stages(), [Stage::ResponseStarted]);
    tx.unbounded_send(Ok(Bytes::from_static(b"{}"))).unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap(), "{}");
    assert_eq!(backend.stages(), [Stage::ResponseStarted]);
    drop(stream);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while backend.stages().len() < 2 && std::time::Instant::now() < deadline {
        tokio::task::yield_now().await;
    }
    assert_eq!(
        backend.stages(),
        [Stage::ResponseStarted, Stage::ResponseComplete]
    );
    let status = last(&backend).response_status.unwrap();
    assert_eq!(status, serde_json::json!({"metadata": {}, "code": 200}));
}

#[tokio::test]
async fn guarded_panic_answers_kube_text_and_records_panic_stage() {
    let (backend, audit) = context(Level::Metadata);
    let outcome = guarded(async { panic!("boom") }).await;
    let message = outcome.err().unwrap();
    assert_eq!(message, "boom");
    let reply = panicked(&audit, &message).await;
    let Reply::Text { code, body } = reply else {
        panic!("not text");
    };
    assert_eq!(code, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(
        body,
        "This request caused apiserver to panic. Look in the logs for details.\n"
    );
    assert_eq!(backend.stages(), [Stage::Panic]);
    let status: Value = last(&backend).response_status.unwrap();
    assert_eq!(status["message"], "APIServer panic'd: boom");
    assert_eq!(status["reason"], "InternalError");
    assert_eq!(status["code"], 500);
    let fine = guarded(async { Reply::Error(ApiError::PathNotFound) }).await;
    assert!(matches!(fine, Ok(Reply::Error(ApiError::PathNotFound))));
}

#[tokio::test]
async fn failed_early_one_response_started_event_with_the_status() {
    for level in [Level::Metadata, Level::RequestResponse] {
        let (backend, audit) = context(level);
        let e = ApiError::Unauthorized;
        failed_early(audit, &e).await;
        assert_eq!(backend.stages(), [Stage::ResponseStarted]);
        let event = last(&backend);
        assert_eq!(
            event.response_status,
            Some(serde_json::json!({"metadata": {}, "status": "Failure",
                "message": "Unauthorized", "reason": "Unauthorized", "code": 401}))
        );
        let object = event.response_object.map(|o| o.get().to_owned());
        let want = (level == Level::RequestResponse).then(|| {
            r#"{"apiVersion":"v1","code":401,"kind":"Status","message":"Unauthorized","metadata":{},"reason":"Unauthorized","status":"Failure"}"#.to_owned()
        });
        assert_eq!(object, want);
    }
}
