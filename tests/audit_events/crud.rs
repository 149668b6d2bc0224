//! The events of each verb at each level: RequestReceived with the request's metadata,
//! ResponseComplete with the object reference completed from the request object, the
//! response status, the authorization annotations, and the objects the level asks for.

use serde_json::{Value, json};

use crate::common::Server;
use crate::{
    CRONTABS, admin, allowed, audit_flags, check_common, crontab, dev_admin, events_of, new_id,
};

/// One request's expected events.
struct Expect<'a> {
    uri: String,
    verb: &'a str,
    /// The object reference at RequestReceived (from the path), and at ResponseComplete.
    path_ref: Value,
    done_ref: Value,
    code: u16,
    request_object: Option<Value>,
    response_object: Value,
}

fn reference(name: &str, sub: &str, extra: &[(&str, &str)]) -> Value {
    let mut r = json!({"resource": "crontabs", "namespace": "default",
        "apiGroup": "stable.example.com", "apiVersion": "v1"});
    if !name.is_empty() {
        r["name"] = json!(name);
    }
    if !sub.is_empty() {
        r["subresource"] = json!(sub);
    }
    for (k, v) in extra {
        r[*k] = json!(v);
    }
    r
}

async fn send(
    level: &str,
    log: &std::path::Path,
    req: reqwest::RequestBuilder,
    expect: impl FnOnce(&Value) -> Expect<'static>,
) -> Value {
    let id = new_id("crud");
    let resp = req.header("Audit-ID", &id).send().await.unwrap();
    assert_eq!(resp.headers()["audit-id"], id.as_str());
    let code = resp.status().as_u16();
    let body: Value = resp.json().await.unwrap();
    let want = expect(&body);
    assert_eq!(code, want.code, "{body}");
    let events = events_of(log, &id, 2).await;
    assert_eq!(events.len(), 2, "{events:?}");
    check_common(&events, level, &id, &want.uri, want.verb, &dev_admin());
    let (received, done) = (&events[0], &events[1]);
    assert_eq!(received["stage"], "RequestReceived");
    assert_eq!(
        received["stageTimestamp"],
        received["requestReceivedTimestamp"]
    );
    assert_eq!(received["objectRef"], want.path_ref, "{received}");
    for absent in [
        "responseStatus",
        "requestObject",
        "responseObject",
        "annotations",
        "impersonatedUser",
    ] {
        assert!(received.get(absent).is_none(), "{absent} in {received}");
    }
    assert_eq!(done["stage"], "ResponseComplete");
    assert_eq!(done["objectRef"], want.done_ref, "{done}");
    assert_eq!(
        done["responseStatus"],
        response_status(&body, want.code),
        "{done}"
    );
    assert_eq!(done["annotations"], allowed(), "{done}");
    assert!(done.get("impersonatedUser").is_none());
    let with_request = matches!(level, "Request" | "RequestResponse");
    match (&want.request_object, with_request) {
        (Some(object), true) => assert_eq!(&done["requestObject"], object, "{done}"),
        _ => assert!(done.get("requestObject").is_none(), "{done}"),
    }
    match level {
        "RequestResponse" => assert_eq!(done["responseObject"], want.response_object),
        _ => assert!(done.get("responseObject").is_none(), "{done}"),
    }
    body
}

/// The response status of an answer: a Status answer's fields (kube's
/// `LogResponseObject`), else only the code.
fn response_status(body: &Value, code: u16) -> Value {
    if body["kind"] != "Status" {
        return json!({"metadata": {}, "code": code});
    }
    let mut status = json!({"metadata": {}});
    for field in ["status", "message", "reason", "details"] {
        if let Some(v) = body.get(field) {
            status[field] = v.clone();
        }
    }
    // The code written is set over the Status's (which a success Status may leave out).
    status["code"] = json!(code);
    status
}

/// create, get, list, update, merge patch, apply, status update, scale, delete (with
/// DeleteOptions) at `level`, each request's two events checked field by field.
async fn every_verb_at(level: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (flags, log) = audit_flags(dir.path(), &crate::policy_at(level));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let server = Server::start_with(&flags);
    let c = admin(&server);
    let url = |p: &str| server.url(&format!("{CRONTABS}{p}"));

    let sent = crontab("c1");
    let created = send(level, &log, c.post(url("")).json(&sent), |body| Expect {
        uri: CRONTABS.into(),
        verb: "create",
        path_ref: reference("", "", &[]),
        done_ref: reference("c1", "", &[]),
        code: 201,
        request_object: Some(sent.clone()),
        response_object: body.clone(),
    })
    .await;
    let uid = created["metadata"]["uid"].as_str().unwrap().to_owned();

    send(level, &log, c.get(url("/c1")), |body| Expect {
        uri: format!("{CRONTABS}/c1"),
        verb: "get",
        path_ref: reference("c1", "", &[]),
        done_ref: reference("c1", "", &[]),
        code: 200,
        request_object: None,
        response_object: body.clone(),
    })
    .await;

    send(level, &log, c.get(url("?limit=5")), |body| Expect {
        uri: format!("{CRONTABS}?limit=5"),
        verb: "list",
        path_ref: reference("", "", &[]),
        done_ref: reference("", "", &[]),
        code: 200,
        request_object: None,
        response_object: body.clone(),
    })
    .await;

    let mut changed = created.clone();
    changed["spec"]["image"] = json!("img2");
    let rv = created["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    let updated = send(level, &log, c.put(url("/c1")).json(&changed), |body| {
        Expect {
            uri: format!("{CRONTABS}/c1"),
            verb: "update",
            path_ref: reference("c1", "", &[]),
            done_ref: reference("c1", "", &[("uid", &uid), ("resourceVersion", &rv)]),
            code: 200,
            request_object: Some(changed.clone()),
            response_object: body.clone(),
        }
    })
    .await;
    assert_eq!(updated["spec"]["image"], "img2");

    let patch = "{\"spec\": {\"replicas\": 3}}";
    let patched = c
        .patch(url("/c1"))
        .header("content-type", "application/merge-patch+json")
        .body(patch);
    send(level, &log, patched, |body| Expect {
        uri: format!("{CRONTABS}/c1"),
        verb: "patch",
        path_ref: reference("c1", "", &[]),
        done_ref: reference("c1", "", &[]),
        code: 200,
        request_object: Some(json!({"spec": {"replicas": 3}})),
        response_object: body.clone(),
    })
    .await;

    let apply = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: c2\nspec:\n  image: applied\n";
    let applied = c
        .patch(url("/c2?fieldManager=audit-test"))
        .header("content-type", "application/apply-patch+yaml")
        .body(apply);
    send(level, &log, applied, |body| Expect {
        uri: format!("{CRONTABS}/c2?fieldManager=audit-test"),
        verb: "patch",
        path_ref: reference("c2", "", &[]),
        done_ref: reference("c2", "", &[]),
        code: 201,
        request_object: Some(
            json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": "c2"}, "spec": {"image": "applied"}}),
        ),
        response_object: body.clone(),
    })
    .await;

    let current: Value = c
        .get(url("/c1"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut with_status = current.clone();
    with_status["status"] = json!({"replicas": 3});
    let rv = current["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    send(
        level,
        &log,
        c.put(url("/c1/status")).json(&with_status),
        |body| Expect {
            uri: format!("{CRONTABS}/c1/status"),
            verb: "update",
            path_ref: reference("c1", "status", &[]),
            done_ref: reference("c1", "status", &[("uid", &uid), ("resourceVersion", &rv)]),
            code: 200,
            request_object: Some(with_status.clone()),
            response_object: body.clone(),
        },
    )
    .await;

    let scale = send(level, &log, c.get(url("/c1/scale")), |body| Expect {
        uri: format!("{CRONTABS}/c1/scale"),
        verb: "get",
        path_ref: reference("c1", "scale", &[]),
        done_ref: reference("c1", "scale", &[]),
        code: 200,
        request_object: None,
        response_object: body.clone(),
    })
    .await;
    assert_eq!(scale["kind"], "Scale");

    send(level, &log, c.delete(url("/c1")), |body| Expect {
        uri: format!("{CRONTABS}/c1"),
        verb: "delete",
        path_ref: reference("c1", "", &[]),
        done_ref: reference("c1", "", &[]),
        code: 200,
        request_object: None,
        response_object: body.clone(),
    })
    .await;

    let options = json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1",
        "propagationPolicy": "Background"});
    send(level, &log, c.delete(url("/c2")).json(&options), |body| {
        Expect {
            uri: format!("{CRONTABS}/c2"),
            verb: "delete",
            path_ref: reference("c2", "", &[]),
            done_ref: reference("c2", "", &[]),
            code: 200,
            request_object: Some(options.clone()),
            response_object: body.clone(),
        }
    })
    .await;
}

#[tokio::test]
async fn audit_metadata_level_every_verb_events_without_objects() {
    every_verb_at("Metadata").await;
}

#[tokio::test]
async fn audit_request_level_every_verb_events_with_request_objects() {
    every_verb_at("Request").await;
}

#[tokio::test]
async fn audit_request_response_level_every_verb_events_with_both_objects() {
    every_verb_at("RequestResponse").await;
}

#[tokio::test]
async fn audit_level_none_writes_no_event_but_returns_audit_id() {
    let dir = tempfile::tempdir().unwrap();
    let policy = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources:\n  - group: stable.example.com\n    resources: [crontabs]\n- level: Metadata\n";
    let (flags, log) = audit_flags(dir.path(), policy);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let server = Server::start_with(&flags);
    let c = admin(&server);
    let resp = c.get(server.url(CRONTABS)).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let id = resp.headers()["audit-id"].to_str().unwrap().to_owned();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
    // A second request's events mark that the first one's would have been written.
    let marker = new_id("marker");
    let _ = c
        .get(server.url("/healthz"))
        .header("Audit-ID", &marker)
        .send()
        .await;
    let marked = events_of(&log, &marker, 2).await;
    assert_eq!(marked[0]["level"], "Metadata");
    assert!(
        crate::logged(&log)
            .iter()
            .all(|e| e["auditID"] != id.as_str())
    );
}
