//! Discovery and health documents as kubectl and the aggregator read them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use common::Server;
use serde_json::{Value, json};

async fn get(c: &reqwest::Client, url: String, accept: &str) -> (u16, String) {
    let resp = c.get(url).header("accept", accept).send().await.unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

#[tokio::test]
async fn discovery_documents_describe_served_resources() {
    let server = Server::start();
    let c = server.client();
    let (_, body) = get(&c, server.url("/apis"), "application/json").await;
    let groups: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(groups["kind"], "APIGroupList");
    let widgets = groups["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "example.org")
        .unwrap();
    assert_eq!(
        widgets["preferredVersion"],
        json!({"groupVersion": "example.org/v1", "version": "v1"})
    );
    assert_eq!(widgets["versions"][1]["version"], "v1beta1");

    let (code, body) = get(
        &c,
        server.url("/apis/stable.example.com/v1"),
        "application/json",
    )
    .await;
    assert_eq!(code, 200);
    let list: Value = serde_json::from_str(&body).unwrap();
    let names: Vec<&str> = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["crontabs", "crontabs/status", "crontabs/scale"]);
    let main = &list["resources"][0];
    assert_eq!(main["singularName"], "crontab");
    assert_eq!(main["shortNames"], json!(["ct"]));
    assert_eq!(main["categories"], json!(["all"]));
    assert_eq!(main["verbs"].as_array().unwrap().len(), 8);
    assert_eq!(list["resources"][2]["group"], "autoscaling");

    let accept =
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    let resp = c
        .get(server.url("/apis"))
        .header("accept", accept)
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.headers()["content-type"],
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    );
    let agg: Value = resp.json().await.unwrap();
    assert_eq!(agg["kind"], "APIGroupDiscoveryList");
    let stable = agg["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["metadata"]["name"] == "stable.example.com")
        .unwrap();
    let res = &stable["versions"][0]["resources"][0];
    assert_eq!(res["resource"], "crontabs");
    assert_eq!(res["scope"], "Namespaced");
    assert_eq!(res["subresources"][1]["subresource"], "scale");
}

#[tokio::test]
async fn health_endpoints_report_checks() {
    let server = Server::start();
    let c = server.anonymous();
    for path in ["/healthz", "/livez", "/readyz"] {
        let (code, body) = get(&c, server.url(path), "*/*").await;
        assert_eq!((code, body.as_str()), (200, "ok"), "{path}");
    }
    let (_, body) = get(&c, server.url("/readyz?verbose"), "*/*").await;
    assert_eq!(
        body,
        "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]watch-cache ok\n[+]shutdown ok\nreadyz check passed\n"
    );
    // Single checks are not among the always-allowed paths (exact match, as kube's).
    let (code, _) = get(&c, server.url("/readyz/etcd"), "*/*").await;
    assert_eq!(code, 403);
    let admin = server.client();
    let (code, _) = get(&admin, server.url("/readyz/etcd"), "*/*").await;
    assert_eq!(code, 200);
    let (code, _) = get(&admin, server.url("/readyz/nosuch"), "*/*").await;
    assert_eq!(code, 404);
    let (code, body) = get(&server.client(), server.url("/version"), "application/json").await;
    assert_eq!(code, 200);
    assert!(body.contains("\"major\":\"1\""), "{body}");
}
