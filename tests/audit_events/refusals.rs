//! Refused requests' events: 404, 409 and 422 with kube's Status as response status (and
//! object at RequestResponse), 403 by SubjectAccessReview with the authorization
//! annotations naming its reason, 401 as one ResponseStarted event without a user, and
//! impersonation (the impersonated user logged after RequestReceived; a refused one not).

use serde_json::{Value, json};

use crate::fake_kube::Decision;
use crate::fake_kube::delegated::Delegated;
use crate::{
    AGENT, CRONTABS, allowed, audit_flags, check_common, crontab, events_of, new_id, policy_at,
};

fn start() -> (Delegated, std::path::PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (flags, log) = audit_flags(dir.path(), &policy_at("RequestResponse"));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    (Delegated::start(&flags), log, dir)
}

/// A served Status as an event's responseStatus: kube copies status, message, reason,
/// details and code, with empty list metadata.
fn as_response_status(body: &Value) -> Value {
    let mut status = json!({"metadata": {}});
    for field in ["status", "message", "reason", "details", "code"] {
        if let Some(v) = body.get(field) {
            status[field] = v.clone();
        }
    }
    status
}

async fn send(req: reqwest::RequestBuilder, id: &str) -> (u16, Value) {
    let resp = req
        .header("Audit-ID", id)
        .header("User-Agent", AGENT)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["audit-id"], id);
    let code = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (code, body)
}

fn admin_user() -> Value {
    crate::dev_admin()
}

#[tokio::test]
async fn audit_error_statuses_recorded_as_kube_status() {
    let (d, log, _dir) = start();
    let c = d.admin();
    let url = |p: &str| d.server.url(&format!("{CRONTABS}{p}"));
    let mut invalid = crontab("bad");
    invalid["spec"]["replicas"] = json!("many");
    let created = send(c.post(url("")).json(&crontab("c1")), &new_id("seed")).await;
    assert_eq!(created.0, 201);
    #[rustfmt::skip]
    let cases = [
        (c.get(url("/missing")), "get", format!("{CRONTABS}/missing"), 404, "NotFound"),
        (c.post(url("")).json(&crontab("c1")), "create", CRONTABS.to_string(), 409, "AlreadyExists"),
        (c.post(url("")).json(&invalid), "create", CRONTABS.to_string(), 422, "Invalid"),
    ];
    for (req, verb, uri, code, reason) in cases {
        let id = new_id(reason);
        let (got, body) = send(req, &id).await;
        assert_eq!(
            (got, body["reason"].as_str()),
            (code, Some(reason)),
            "{body}"
        );
        let events = events_of(&log, &id, 2).await;
        check_common(&events, "RequestResponse", &id, &uri, verb, &admin_user());
        let done = &events[1];
        assert_eq!(done["stage"], "ResponseComplete");
        assert_eq!(done["responseStatus"], as_response_status(&body), "{done}");
        assert_eq!(done["responseObject"], body, "{done}");
        assert_eq!(done["annotations"], allowed());
    }
}

#[tokio::test]
async fn audit_forbidden_by_review_annotated_with_its_reason() {
    let (d, log, _dir) = start();
    d.fake.set_policy(|_| Decision::deny("bob may not"));
    let id = new_id("forbidden");
    let req = d
        .proxy()
        .get(d.server.url(CRONTABS))
        .header("X-Remote-User", "bob")
        .header("X-Remote-Group", "dev");
    let (code, body) = send(req, &id).await;
    assert_eq!(code, 403, "{body}");
    let events = events_of(&log, &id, 2).await;
    let bob = json!({"username": "bob", "groups": ["dev", "system:authenticated"]});
    check_common(&events, "RequestResponse", &id, CRONTABS, "list", &bob);
    let done = &events[1];
    assert_eq!(
        done["annotations"],
        json!({"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": "bob may not"})
    );
    assert_eq!(done["responseStatus"], as_response_status(&body));
    assert_eq!(done["responseStatus"]["reason"], "Forbidden");
    assert_eq!(done["responseObject"], body);
}

#[tokio::test]
async fn audit_unauthenticated_one_response_started_event() {
    let (d, log, _dir) = start();
    let stranger = crd_apiserver::server::pki::new_authority("not-the-front-proxy-ca").unwrap();
    let client = d.client_from(&stranger, "front-proxy-client", &[]);
    let id = new_id("unauthorized");
    let req = client
        .get(d.server.url(CRONTABS))
        .header("X-Remote-User", "admin");
    let (code, body) = send(req, &id).await;
    assert_eq!(code, 401);
    // A later request's events mark that no more of the first one's are coming.
    let marker = new_id("marker");
    send(d.admin().get(d.server.url("/healthz")), &marker).await;
    events_of(&log, &marker, 2).await;
    let events = events_of(&log, &id, 1).await;
    assert_eq!(events.len(), 1, "{events:?}");
    check_common(
        &events,
        "RequestResponse",
        &id,
        CRONTABS,
        "list",
        &json!({}),
    );
    let e = &events[0];
    assert_eq!(e["stage"], "ResponseStarted");
    let unauthorized = json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "message": "Unauthorized", "reason": "Unauthorized", "code": 401});
    assert_eq!(e["responseStatus"], as_response_status(&unauthorized));
    assert_eq!(e["responseObject"], unauthorized);
    assert_eq!(body, unauthorized);
    assert_eq!(
        e["objectRef"],
        json!({"resource": "crontabs", "namespace": "default", "apiGroup": "stable.example.com", "apiVersion": "v1"})
    );
    assert!(e.get("annotations").is_none(), "{e}");
}

#[tokio::test]
async fn audit_impersonated_user_logged_after_request_received() {
    let (d, log, _dir) = start();
    d.fake.set_policy(|spec| {
        match (
            spec["user"].as_str(),
            spec["resourceAttributes"]["verb"].as_str(),
        ) {
            (Some("bob"), Some("impersonate")) => Decision::allow(""),
            (Some("alice"), Some("list")) => Decision::allow("alice may list"),
            (Some("bob"), _) => Decision::deny("not bob himself"),
            _ => Decision::no_opinion(""),
        }
    });
    let bob = json!({"username": "bob", "groups": ["dev", "system:authenticated"]});
    let list = || {
        d.proxy()
            .get(d.server.url(CRONTABS))
            .header("X-Remote-User", "bob")
            .header("X-Remote-Group", "dev")
    };
    let id = new_id("impersonated");
    let req = list()
        .header("Impersonate-User", "alice")
        .header("Impersonate-Group", "team")
        .header("Impersonate-Extra-Scopes", "view")
        .header("Impersonate-Uid", "alice-uid");
    let (code, _) = send(req, &id).await;
    assert_eq!(code, 200);
    let events = events_of(&log, &id, 2).await;
    check_common(&events, "RequestResponse", &id, CRONTABS, "list", &bob);
    assert!(events[0].get("impersonatedUser").is_none(), "{}", events[0]);
    assert_eq!(
        events[1]["impersonatedUser"],
        json!({"username": "alice", "uid": "alice-uid", "groups": ["team", "system:authenticated"],
            "extra": {"scopes": ["view"]}})
    );
    // The review's reason for allowing the impersonated user's request.
    assert_eq!(
        events[1]["annotations"],
        json!({"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "alice may list"})
    );

    // Refused impersonation: a 403 before authorization, no impersonated user.
    d.fake
        .set_policy(|_| Decision::deny("no impersonation for you"));
    let id = new_id("refused");
    let (code, body) = send(list().header("Impersonate-User", "carol"), &id).await;
    assert_eq!(code, 403);
    let events = events_of(&log, &id, 2).await;
    check_common(&events, "RequestResponse", &id, CRONTABS, "list", &bob);
    let done = &events[1];
    assert!(done.get("impersonatedUser").is_none(), "{done}");
    assert!(done.get("annotations").is_none(), "{done}");
    assert_eq!(done["responseStatus"], as_response_status(&body));
}
