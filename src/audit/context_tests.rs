use serde_json::json;

use super::*;
use crate::audit::policy::Policy;
use crate::audit::testing::Recording;
use crate::request::info;
use crate::request::query::Query;

fn config(level: Level, omit_stages: Vec<Stage>, omit_managed_fields: bool) -> RequestAuditConfig {
    RequestAuditConfig {
        level,
        omit_stages,
        omit_managed_fields,
    }
}

fn started(level: Level, omit: Vec<Stage>, omit_mf: bool) -> (Arc<Recording>, Context) {
    let backend = Arc::new(Recording::default());
    let auditor = Arc::new(Auditor::new(
        Arc::new(Policy::default()),
        backend.clone(),
        Default::default(),
    ));
    let info = info::parse(
        "POST",
        "/apis/g/v1/namespaces/ns/crontabs",
        &Query::default(),
    );
    let event = request::metadata_event(request::RequestMeta {
        audit_id: "id-1",
        uri: "/apis/g/v1/namespaces/ns/crontabs?x=1",
        info: &info,
        user: None,
        source_ips: vec!["10.0.0.1".into()],
        user_agent: "agent",
        received: jiff::Timestamp::UNIX_EPOCH,
    });
    (
        backend,
        Context::new(auditor, config(level, omit, omit_mf), event),
    )
}

fn object() -> Value {
    json!({"apiVersion": "g/v1", "kind": "CronTab",
           "metadata": {"name": "a", "uid": "u-1", "resourceVersion": "7",
                        "managedFields": [{"manager": "m"}]},
           "spec": {"b": 1, "a": 2}})
}

#[tokio::test]
async fn disabled_context_records_nothing_and_allocates_no_event() {
    let ctx = Context::disabled();
    assert_eq!(std::mem::size_of::<Context>(), std::mem::size_of::<usize>());
    ctx.annotate("k", "v");
    ctx.log_request_object(&object());
    ctx.log_response_object(&object());
    assert!(ctx.process_stage(Stage::RequestReceived).await);
    assert!(!ctx.enabled());
    assert_eq!(ctx.level(), Level::None);
    assert!(!ctx.has_response_status());
}

#[test]
fn level_none_context_is_disabled() {
    let (_, ctx) = started(Level::None, vec![], false);
    assert!(!ctx.enabled());
}

#[tokio::test]
async fn metadata_level_completes_reference_without_objects() {
    let (backend, ctx) = started(Level::Metadata, vec![], false);
    ctx.log_request_object(&object());
    ctx.log_response_object(&object());
    ctx.set_response_code(201);
    assert!(ctx.process_stage(Stage::ResponseComplete).await);
    let events = backend.events.lock().unwrap();
    let e = &events[0];
    assert_eq!(e.level, Level::Metadata);
    assert_eq!(e.stage, Stage::ResponseComplete);
    assert!(e.request_object.is_none() && e.response_object.is_none());
    let r = e.object_ref.as_ref().unwrap();
    assert_eq!(
        (r.name.as_str(), r.uid.as_str(), r.resource_version.as_str()),
        ("a", "u-1", "7")
    );
    assert_eq!(
        (r.namespace.as_str(), r.resource.as_str()),
        ("ns", "crontabs")
    );
    assert_eq!(
        e.response_status,
        Some(json!({"metadata": {}, "code": 201}))
    );
}

#[tokio::test]
async fn request_level_logs_request_object_sorted_not_response() {
    let (backend, ctx) = started(Level::Request, vec![], false);
    ctx.log_request_object(&object());
    ctx.log_response_object(&object());
    ctx.process_stage(Stage::ResponseComplete).await;
    let e = &backend.events.lock().unwrap()[0];
    assert_eq!(
        e.request_object.as_ref().unwrap().get(),
        r#"{"apiVersion":"g/v1","kind":"CronTab","metadata":{"managedFields":[{"manager":"m"}],"name":"a","resourceVersion":"7","uid":"u-1"},"spec":{"a":2,"b":1}}"#
    );
    assert!(e.response_object.is_none());
}

#[tokio::test]
async fn request_response_level_omits_managed_fields_when_asked() {
    let (backend, ctx) = started(Level::RequestResponse, vec![], true);
    ctx.log_request_object(&object());
    ctx.log_response_object(&json!({"kind": "CronTabList", "items": [object()]}));
    ctx.process_stage(Stage::ResponseComplete).await;
    let e = &backend.events.lock().unwrap()[0];
    let request: Value = serde_json::from_str(e.request_object.as_ref().unwrap().get()).unwrap();
    assert!(request["metadata"].get("managedFields").is_none());
    assert_eq!(request["metadata"]["name"], "a");
    let response: Value = serde_json::from_str(e.response_object.as_ref().unwrap().get()).unwrap();
    assert!(
        response["items"][0]["metadata"]
            .get("managedFields")
            .is_none()
    );
    assert_eq!(response["items"][0]["spec"]["a"], 2);
}

#[tokio::test]
async fn status_answer_fills_response_status_at_every_level() {
    let status = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "m", "reason": "NotFound", "details": {"name": "a"}, "code": 404});
    for level in [Level::Metadata, Level::Request, Level::RequestResponse] {
        let (backend, ctx) = started(level, vec![], false);
        ctx.log_response_object(&status);
        ctx.process_stage(Stage::ResponseComplete).await;
        let e = &backend.events.lock().unwrap()[0];
        assert_eq!(
            e.response_status,
            Some(json!({"metadata": {}, "status": "Failure", "message": "m",
                        "reason": "NotFound", "details": {"name": "a"}, "code": 404})),
            "{level:?}"
        );
        assert_eq!(e.response_object.is_some(), level == Level::RequestResponse);
    }
}

#[tokio::test]
async fn omitted_stage_is_not_sent_and_counts_as_processed() {
    let (backend, ctx) = started(Level::Metadata, vec![Stage::RequestReceived], false);
    assert!(ctx.process_stage(Stage::RequestReceived).await);
    assert!(ctx.process_stage(Stage::ResponseComplete).await);
    let events = backend.events.lock().unwrap();
    let stages: Vec<_> = events.iter().map(|e| e.stage).collect();
    assert_eq!(stages, [Stage::ResponseComplete]);
}

#[tokio::test]
async fn request_received_stage_timestamp_is_the_received_time() {
    let (backend, ctx) = started(Level::Metadata, vec![], false);
    ctx.process_stage(Stage::RequestReceived).await;
    ctx.process_stage(Stage::ResponseComplete).await;
    let events = backend.events.lock().unwrap();
    const EPOCH: &str = "1970-01-01T00:00:00.000000000Z";
    assert_eq!(events[0].stage_timestamp, EPOCH);
    assert_eq!(events[0].request_received_timestamp, EPOCH);
    assert_ne!(events[1].stage_timestamp, EPOCH);
    assert_eq!(events[1].stage_timestamp.len(), EPOCH.len());
}

#[tokio::test]
async fn refused_event_reported_as_not_processed() {
    let backend = Arc::new(Recording {
        refuse: true,
        ..Recording::default()
    });
    let auditor = Arc::new(Auditor::new(
        Arc::new(Policy::default()),
        backend,
        Default::default(),
    ));
    let info = info::parse("GET", "/healthz", &Query::default());
    let event = request::metadata_event(request::RequestMeta {
        audit_id: "x",
        uri: "/healthz",
        info: &info,
        user: None,
        source_ips: vec![],
        user_agent: "",
        received: jiff::Timestamp::UNIX_EPOCH,
    });
    let ctx = Context::new(auditor, config(Level::Metadata, vec![], false), event);
    assert!(!ctx.process_stage(Stage::RequestReceived).await);
}

#[tokio::test]
async fn annotations_keep_first_value_and_respect_levels() {
    let (backend, ctx) = started(Level::Metadata, vec![], false);
    ctx.annotate("k", "first");
    ctx.annotate("k", "second");
    ctx.annotate_at(Level::Request, "patch", "p");
    ctx.annotate_at(Level::Metadata, "meta", "m");
    ctx.log_request_patch(br#"{"a": 1}"#);
    ctx.process_stage(Stage::ResponseComplete).await;
    let e = &backend.events.lock().unwrap()[0];
    let got: Vec<_> = e
        .annotations
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(got, [("k", "first"), ("meta", "m")]);
    assert!(e.request_object.is_none());
}

#[tokio::test]
async fn request_level_logs_patch_compacted_in_its_order() {
    let (backend, ctx) = started(Level::Request, vec![], false);
    ctx.log_request_patch(b"{\"b\": \"x y\", \"a\": [1, 2]}\n");
    ctx.process_stage(Stage::ResponseComplete).await;
    let e = &backend.events.lock().unwrap()[0];
    assert_eq!(
        e.request_object.as_ref().unwrap().get(),
        r#"{"b":"x y","a":[1,2]}"#
    );
}
