//! Delegated authorization end to end: every request of a front-proxied user becomes one
//! SubjectAccessReview carrying exactly the user and the request's attributes; answers
//! are cached per TTL; refusals are kube's 403; `system:masters` skips the review.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use std::time::Duration;

use fake_kube::Decision;
use fake_kube::delegated::Delegated;
use serde_json::{Value, json};

const CRONTABS: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn crontab(name: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"cronSpec": "* * * * */5", "image": "img", "replicas": 1}})
}

/// Creates `x` as the admin (no review) and returns it.
async fn seed(d: &Delegated) -> Value {
    let resp = d
        .admin()
        .post(d.server.url(CRONTABS))
        .json(&crontab("x"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    resp.json().await.unwrap()
}

/// The front proxy's request for `verb` on `subresource` of `x`, as user bob.
fn request(
    d: &Delegated,
    seeded: &Value,
    verb: &str,
    subresource: &str,
) -> reqwest::RequestBuilder {
    let c = d.proxy();
    let one = format!("{CRONTABS}/x");
    let sub = format!("{one}/{subresource}");
    let merge = |c: reqwest::RequestBuilder, body: Value| {
        c.header("content-type", "application/merge-patch+json")
            .body(body.to_string())
    };
    let rv = seeded["metadata"]["resourceVersion"].clone();
    let req = match (verb, subresource) {
        ("get", "") => c.get(d.server.url(&one)),
        ("list", _) => c.get(d.server.url(CRONTABS)),
        ("watch", _) => c.get(
            d.server
                .url(&format!("{CRONTABS}?watch=1&timeoutSeconds=1")),
        ),
        ("create", _) => c.post(d.server.url(CRONTABS)).json(&crontab("y")),
        ("update", "") => c.put(d.server.url(&one)).json(seeded),
        ("patch", "") => merge(
            c.patch(d.server.url(&one)),
            json!({"spec": {"image": "new"}}),
        ),
        ("delete", _) => c.delete(d.server.url(&one)),
        ("deletecollection", _) => c.delete(d.server.url(CRONTABS)),
        ("get", _) => c.get(d.server.url(&sub)),
        ("update", "status") => {
            let mut obj = seeded.clone();
            obj["status"] = json!({"replicas": 1});
            c.put(d.server.url(&sub)).json(&obj)
        }
        ("update", "scale") => c.put(d.server.url(&sub)).json(&json!({
            "apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {"name": "x", "namespace": "default", "resourceVersion": rv},
            "spec": {"replicas": 3}})),
        ("patch", "status") => merge(
            c.patch(d.server.url(&sub)),
            json!({"status": {"replicas": 1}}),
        ),
        ("patch", "scale") => merge(
            c.patch(d.server.url(&sub)),
            json!({"spec": {"replicas": 2}}),
        ),
        other => panic!("no request for {other:?}"),
    };
    req.header("X-Remote-User", "bob")
        .header("X-Remote-Group", "dev")
        .header("X-Remote-Extra-Reason", "e2e")
}

/// The one review the request caused must be exactly the user plus the attributes.
async fn check(verb: &str, subresource: &str) {
    let d = Delegated::start(&[]);
    let seeded = seed(&d).await;
    let resp = request(&d, &seeded, verb, subresource)
        .send()
        .await
        .unwrap();
    let code = resp.status().as_u16();
    let body = resp.text().await.unwrap();
    assert!(
        (200..300).contains(&code),
        "{verb} {subresource}: {code} {body}"
    );
    let mut attributes = json!({"namespace": "default", "verb": verb,
        "group": "stable.example.com", "version": "v1", "resource": "crontabs"});
    if !subresource.is_empty() {
        attributes["subresource"] = json!(subresource);
    }
    if !matches!(verb, "list" | "watch" | "create" | "deletecollection") {
        attributes["name"] = json!("x");
    }
    let want = json!({"user": "bob", "groups": ["dev", "system:authenticated"],
        "extra": {"reason": ["e2e"]}, "resourceAttributes": attributes});
    assert_eq!(d.fake.access_reviews(), vec![want], "{verb} {subresource}");
}

#[tokio::test]
async fn sar_get_carries_request_attributes() {
    check("get", "").await;
}

#[tokio::test]
async fn sar_list_carries_request_attributes() {
    check("list", "").await;
}

#[tokio::test]
async fn sar_watch_carries_request_attributes() {
    check("watch", "").await;
}

#[tokio::test]
async fn sar_create_carries_request_attributes() {
    check("create", "").await;
}

#[tokio::test]
async fn sar_update_carries_request_attributes() {
    check("update", "").await;
}

#[tokio::test]
async fn sar_patch_carries_request_attributes() {
    check("patch", "").await;
}

#[tokio::test]
async fn sar_delete_carries_request_attributes() {
    check("delete", "").await;
}

#[tokio::test]
async fn sar_deletecollection_carries_request_attributes() {
    check("deletecollection", "").await;
}

#[tokio::test]
async fn sar_get_status_carries_subresource() {
    check("get", "status").await;
}

#[tokio::test]
async fn sar_update_status_carries_subresource() {
    check("update", "status").await;
}

#[tokio::test]
async fn sar_patch_status_carries_subresource() {
    check("patch", "status").await;
}

#[tokio::test]
async fn sar_get_scale_carries_subresource() {
    check("get", "scale").await;
}

#[tokio::test]
async fn sar_update_scale_carries_subresource() {
    check("update", "scale").await;
}

#[tokio::test]
async fn sar_patch_scale_carries_subresource() {
    check("patch", "scale").await;
}

async fn list_as(d: &Delegated, user: &str) -> u16 {
    let req = d
        .proxy()
        .get(d.server.url(CRONTABS))
        .header("X-Remote-User", user);
    req.send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn sar_denied_is_kube_forbidden_status() {
    let d = Delegated::start(&[]);
    d.fake
        .set_policy(|_| Decision::deny("no RBAC policy matched"));
    let resp = d
        .proxy()
        .get(d.server.url(CRONTABS))
        .header("X-Remote-User", "bob")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        body,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "crontabs.stable.example.com is forbidden: User \"bob\" cannot list resource \"crontabs\" in API group \"stable.example.com\" in the namespace \"default\": no RBAC policy matched",
            "reason": "Forbidden", "details": {"group": "stable.example.com", "kind": "crontabs"},
            "code": 403})
    );
}

#[tokio::test]
async fn sar_allowed_decision_cached_for_authorized_ttl() {
    let d = Delegated::start(&[
        "--authorization-webhook-cache-authorized-ttl=2s",
        "--authorization-webhook-cache-unauthorized-ttl=1h",
    ]);
    let started = std::time::Instant::now();
    assert_eq!(list_as(&d, "bob").await, 200);
    assert_eq!(list_as(&d, "bob").await, 200);
    assert_eq!(
        d.fake.access_reviews().len(),
        1,
        "second request answered from the cache"
    );
    let d = &d;
    let cached_for =
        common::eventually(Duration::from_secs(30), "a second review", || async move {
            assert_eq!(list_as(d, "bob").await, 200);
            (d.fake.access_reviews().len() == 2).then(|| started.elapsed())
        })
        .await;
    assert!(
        cached_for >= Duration::from_secs(2),
        "reviewed again only after the TTL, not after {cached_for:?}"
    );
}

#[tokio::test]
async fn sar_denied_decision_cached_for_unauthorized_ttl() {
    let d = Delegated::start(&[
        "--authorization-webhook-cache-authorized-ttl=1h",
        "--authorization-webhook-cache-unauthorized-ttl=3s",
    ]);
    d.fake.set_policy(|_| Decision::no_opinion(""));
    let started = std::time::Instant::now();
    assert_eq!(list_as(&d, "eve").await, 403);
    let d = &d;
    let cached_for =
        common::eventually(Duration::from_secs(30), "a second review", || async move {
            assert_eq!(list_as(d, "eve").await, 403);
            (d.fake.access_reviews().len() == 2).then(|| started.elapsed())
        })
        .await;
    assert!(
        cached_for >= Duration::from_secs(3),
        "denial cached for the whole TTL, not only {cached_for:?}"
    );
}

#[tokio::test]
async fn system_masters_skip_subject_access_review() {
    let d = Delegated::start(&[]);
    d.fake.set_policy(|_| Decision::deny("nobody may"));
    let admin = d.admin().get(d.server.url(CRONTABS)).send().await.unwrap();
    assert_eq!(admin.status(), 200, "dev admin certificate");
    let proxied = d
        .proxy()
        .get(d.server.url(CRONTABS))
        .header("X-Remote-User", "root")
        .header("X-Remote-Group", "system:masters")
        .send()
        .await
        .unwrap();
    assert_eq!(proxied.status(), 200, "front-proxied system:masters");
    assert!(d.fake.access_reviews().is_empty());
}

#[tokio::test]
async fn sar_unreachable_cluster_is_internal_error() {
    let dead = tempfile::tempdir().unwrap();
    let fake = fake_kube::FakeKube::start();
    let text = std::fs::read_to_string(fake.kubeconfig()).unwrap();
    let port = fake.addr.port().to_string();
    drop(fake);
    let kubeconfig = dead.path().join("kubeconfig");
    std::fs::write(&kubeconfig, text.replace(&port, "1")).unwrap();
    let server =
        common::Server::start_with(&["--authorization-kubeconfig", kubeconfig.to_str().unwrap()]);
    let resp = server
        .anonymous()
        .get(server.url(CRONTABS))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 500);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["reason"], "InternalError");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("Internal error occurred: subjectaccessreview: "),
        "{body}"
    );
}

#[tokio::test]
async fn sar_list_with_selectors_carries_selector_requirements() {
    let d = Delegated::start(&[]);
    let url = d.server.url(&format!(
        "{CRONTABS}?labelSelector=app%3Dweb,tier%20notin%20(a,b),!gone&fieldSelector=metadata.name!%3Dx"
    ));
    let resp = d
        .proxy()
        .get(url)
        .header("X-Remote-User", "bob")
        .header("X-Remote-Group", "dev")
        .header("X-Remote-Extra-Reason", "e2e")
        .send()
        .await
        .unwrap();
    assert!(resp.status().is_success(), "{}", resp.status());
    let want = json!({"user": "bob", "groups": ["dev", "system:authenticated"],
    "extra": {"reason": ["e2e"]}, "resourceAttributes": {
        "namespace": "default", "verb": "list", "group": "stable.example.com",
        "version": "v1", "resource": "crontabs",
        "fieldSelector": {"requirements": [{"key": "metadata.name", "operator": "NotIn", "values": ["x"]}]},
        "labelSelector": {"requirements": [
            {"key": "app", "operator": "In", "values": ["web"]},
            {"key": "gone", "operator": "DoesNotExist"},
            {"key": "tier", "operator": "NotIn", "values": ["a", "b"]},
        ]},
    }});
    assert_eq!(d.fake.access_reviews(), vec![want]);
}

/// alice's server-side apply of `name`, as the front proxy sends it.
fn apply_as_alice(d: &Delegated, name: &str) -> reqwest::RequestBuilder {
    let mut body = crontab(name);
    body["spec"]["image"] = json!("applied");
    d.proxy()
        .patch(
            d.server
                .url(&format!("{CRONTABS}/{name}?fieldManager=alice")),
        )
        .header("content-type", "application/apply-patch+yaml")
        .header("X-Remote-User", "alice")
        .body(body.to_string())
}

/// Only `verbs` are allowed to alice.
fn allow_alice(d: &Delegated, verbs: &'static [&'static str]) {
    d.fake.set_policy(move |review| {
        let verb = review["resourceAttributes"]["verb"].as_str().unwrap_or("");
        match verbs.contains(&verb) {
            true => Decision::allow(""),
            false => Decision::deny(&format!("alice may not {verb}")),
        }
    });
}

fn verbs_reviewed(d: &Delegated) -> Vec<(String, String)> {
    d.fake
        .access_reviews()
        .iter()
        .map(|r| {
            let a = &r["resourceAttributes"];
            (
                a["verb"].as_str().unwrap().to_string(),
                a["name"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn apply_creating_without_create_permission_forbidden_and_nothing_stored() {
    let d = Delegated::start(&[]);
    allow_alice(&d, &["patch", "get"]);
    let resp = apply_as_alice(&d, "fresh").send().await.unwrap();
    assert_eq!(resp.status(), 403);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        body,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "crontabs.stable.example.com \"fresh\" is forbidden: User \"alice\" cannot create resource \"crontabs\" in API group \"stable.example.com\" in the namespace \"default\": alice may not create",
            "reason": "Forbidden", "details": {"name": "fresh", "group": "stable.example.com", "kind": "crontabs"},
            "code": 403})
    );
    assert_eq!(
        verbs_reviewed(&d),
        vec![
            ("patch".into(), "fresh".into()),
            ("create".into(), "fresh".into())
        ],
        "the patch, then the create it would have been"
    );
    let stored = d
        .admin()
        .get(d.server.url(&format!("{CRONTABS}/fresh")))
        .send()
        .await
        .unwrap();
    assert_eq!(stored.status(), 404, "nothing was created");
    // A dry run is authorized the same way.
    let dry = d
        .proxy()
        .patch(
            d.server
                .url(&format!("{CRONTABS}/fresh?fieldManager=alice&dryRun=All")),
        )
        .header("content-type", "application/apply-patch+yaml")
        .header("X-Remote-User", "alice")
        .body(crontab("fresh").to_string());
    assert_eq!(dry.send().await.unwrap().status(), 403);
}

#[tokio::test]
async fn apply_creating_with_create_permission_created_and_update_needs_no_create() {
    // No caching of allowed answers: every authorization is a review the fake sees.
    let d = Delegated::start(&["--authorization-webhook-cache-authorized-ttl=0s"]);
    allow_alice(&d, &["patch", "create"]);
    let resp = apply_as_alice(&d, "fresh").send().await.unwrap();
    assert_eq!(resp.status(), 201);
    let created: Value = resp.json().await.unwrap();
    assert_eq!(created["spec"]["image"], "applied");
    assert_eq!(
        verbs_reviewed(&d),
        vec![
            ("patch".into(), "fresh".into()),
            ("create".into(), "fresh".into())
        ]
    );
    // Applying to the object that now exists is an update: no create review, and a
    // user without `create` may do it.
    allow_alice(&d, &["patch"]);
    d.fake.clear_reviews();
    let resp = apply_as_alice(&d, "fresh").send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(verbs_reviewed(&d), vec![("patch".into(), "fresh".into())]);
    let stored = common::json_of(d.admin().get(d.server.url(&format!("{CRONTABS}/fresh")))).await;
    assert_eq!(stored["spec"]["image"], "applied");
}
