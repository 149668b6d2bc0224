//! Impersonation end to end: `Impersonate-*` headers are checked with one
//! SubjectAccessReview per thing asked (verb `impersonate`), then the request is
//! authorized and served as the impersonated user; refusals are kube's 403 and a group
//! without a user is kube's plain-text 500.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use common::item_names;
use fake_kube::Decision;
use fake_kube::delegated::Delegated;
use serde_json::{Value, json};

const CRONTABS: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

/// `mine` created by the admin (no review).
async fn seed(d: &Delegated) {
    let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "mine", "namespace": "default"},
        "spec": {"cronSpec": "* * * * */5", "image": "img", "replicas": 1}});
    let resp = d
        .admin()
        .post(d.server.url(CRONTABS))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
}

/// Bob may impersonate anything; only alice may list crontabs.
fn bob_impersonates_alice_lists(spec: &Value) -> Decision {
    let attrs = &spec["resourceAttributes"];
    match (spec["user"].as_str(), attrs["verb"].as_str()) {
        (Some("bob"), Some("impersonate")) => Decision::allow(""),
        (Some("alice"), Some("list")) => Decision::allow(""),
        _ => Decision::no_opinion("not allowed"),
    }
}

fn bob_list(d: &Delegated) -> reqwest::RequestBuilder {
    d.proxy()
        .get(d.server.url(CRONTABS))
        .header("X-Remote-User", "bob")
        .header("X-Remote-Group", "dev")
}

#[tokio::test]
async fn impersonate_user_allowed_runs_as_impersonated_user() {
    let d = Delegated::start(&[]);
    seed(&d).await;
    d.fake.set_policy(bob_impersonates_alice_lists);
    let refused = bob_list(&d).send().await.unwrap();
    assert_eq!(refused.status(), 403, "bob himself may not list");
    d.fake.clear_reviews();

    let resp = bob_list(&d)
        .header("Impersonate-User", "alice")
        .header("Impersonate-Group", "team")
        .header("Impersonate-Extra-Scopes", "view")
        .header("Impersonate-Uid", "alice-uid")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(item_names(&resp.json().await.unwrap()), ["mine"]);
    let bob = |attrs: Value| json!({"user": "bob", "groups": ["dev", "system:authenticated"], "resourceAttributes": attrs});
    let want = vec![
        bob(json!({"verb": "impersonate", "resource": "users", "name": "alice"})),
        bob(json!({"verb": "impersonate", "resource": "groups", "name": "team"})),
        bob(
            json!({"verb": "impersonate", "group": "authentication.k8s.io", "version": "v1",
            "resource": "userextras", "subresource": "scopes", "name": "view"}),
        ),
        bob(
            json!({"verb": "impersonate", "group": "authentication.k8s.io", "version": "v1",
            "resource": "uids", "name": "alice-uid"}),
        ),
        json!({"user": "alice", "uid": "alice-uid", "groups": ["team", "system:authenticated"],
            "extra": {"scopes": ["view"]},
            "resourceAttributes": {"namespace": "default", "verb": "list",
                "group": "stable.example.com", "version": "v1", "resource": "crontabs"}}),
    ];
    assert_eq!(d.fake.access_reviews(), want);
}

#[tokio::test]
async fn impersonate_service_account_gets_its_groups() {
    let d = Delegated::start(&[]);
    seed(&d).await;
    d.fake.set_policy(|spec| match spec["user"].as_str() {
        Some("bob") | Some("system:serviceaccount:default:robot") => Decision::allow(""),
        _ => Decision::no_opinion(""),
    });
    let resp = bob_list(&d)
        .header("Impersonate-User", "system:serviceaccount:default:robot")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let reviews = d.fake.access_reviews();
    assert_eq!(
        reviews[0]["resourceAttributes"],
        json!({"namespace": "default", "verb": "impersonate", "resource": "serviceaccounts", "name": "robot"})
    );
    assert_eq!(reviews[1]["user"], "system:serviceaccount:default:robot");
    assert_eq!(
        reviews[1]["groups"],
        json!([
            "system:serviceaccounts",
            "system:serviceaccounts:default",
            "system:authenticated"
        ])
    );
}

#[tokio::test]
async fn impersonate_user_refused_is_kube_forbidden_status() {
    let d = Delegated::start(&[]);
    seed(&d).await;
    d.fake
        .set_policy(|spec| match spec["resourceAttributes"]["verb"].as_str() {
            Some("impersonate") => Decision::deny("no impersonation for you"),
            _ => Decision::allow(""),
        });
    let resp = bob_list(&d)
        .header("Impersonate-User", "alice")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        body,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "users \"alice\" is forbidden: User \"bob\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope: no impersonation for you",
            "reason": "Forbidden", "details": {"name": "alice", "kind": "users"}, "code": 403})
    );
    assert_eq!(
        d.fake.access_reviews().len(),
        1,
        "the list itself was never reviewed"
    );
}

#[tokio::test]
async fn impersonate_extra_refused_names_the_subresource() {
    let d = Delegated::start(&[]);
    d.fake.set_policy(
        |spec| match spec["resourceAttributes"]["resource"].as_str() {
            Some("userextras") => Decision::no_opinion(""),
            _ => Decision::allow(""),
        },
    );
    let resp = bob_list(&d)
        .header("Impersonate-User", "alice")
        .header("Impersonate-Extra-Scopes", "admin")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        body["message"],
        "userextras.authentication.k8s.io \"admin\" is forbidden: User \"bob\" cannot impersonate resource \"userextras/scopes\" in API group \"authentication.k8s.io\" at the cluster scope"
    );
    assert_eq!(
        body["details"],
        json!({"name": "admin", "group": "authentication.k8s.io", "kind": "userextras"})
    );
}

#[tokio::test]
async fn impersonate_group_without_user_is_plain_internal_error() {
    let d = Delegated::start(&[]);
    let resp = bob_list(&d)
        .header("Impersonate-Group", "system:masters")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 500);
    assert_eq!(resp.headers()["content-type"], "text/plain; charset=utf-8");
    assert_eq!(
        resp.text().await.unwrap(),
        format!(
            "Internal Server Error: \"{CRONTABS}\": requested [{{Group  system:masters    }}] without impersonating a user\n"
        )
    );
    assert!(d.fake.access_reviews().is_empty());
}
