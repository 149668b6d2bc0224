//! Lists and watches over HTTPS: selectors, pagination at one revision, watch events,
//! resume by resourceVersion, bookmarks, timeouts, single-object watches and Tables.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::time::Duration;

use common::Server;
use futures::StreamExt;
use serde_json::{Value, json};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";

async fn get(c: &reqwest::Client, url: String) -> (u16, Value) {
    let resp = c.get(url).send().await.expect("request");
    let code = resp.status().as_u16();
    (code, resp.json::<Value>().await.unwrap_or(Value::Null))
}

async fn create(server: &Server, c: &reqwest::Client, name: &str, labels: Value) -> Value {
    let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name, "labels": labels}, "spec": {"cronSpec": "1 * * * *", "replicas": 1}});
    let resp = c.post(server.url(CT)).json(&body).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 201);
    resp.json().await.unwrap()
}

use common::item_names as names;

/// Reads watch events until `count` arrived or the time is up.
async fn events(resp: reqwest::Response, count: usize) -> Vec<Value> {
    let mut stream = resp.bytes_stream();
    let mut buf = Vec::new();
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while out.len() < count {
        let chunk = match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(Some(Ok(c))) => c,
            _ => break,
        };
        buf.extend_from_slice(&chunk);
        while let Some(pos) = buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buf.drain(..=pos).collect();
            out.push(serde_json::from_slice(&line).unwrap());
        }
    }
    out
}

#[tokio::test]
async fn list_label_and_field_selectors_filter() {
    let server = Server::start();
    let c = server.client();
    create(&server, &c, "a", json!({"env": "prod", "tier": "web"})).await;
    create(&server, &c, "b", json!({"env": "dev"})).await;
    create(&server, &c, "c", json!({})).await;
    let cases = [
        ("labelSelector=env%3Dprod", vec!["a"]),
        ("labelSelector=env%3D%3Dprod", vec!["a"]),
        ("labelSelector=env!%3Dprod", vec!["b", "c"]),
        ("labelSelector=env%20in%20(prod,dev)", vec!["a", "b"]),
        ("labelSelector=env%20notin%20(prod)", vec!["b", "c"]),
        ("labelSelector=tier", vec!["a"]),
        ("labelSelector=!env", vec!["c"]),
        ("fieldSelector=metadata.name%3Db", vec!["b"]),
        ("fieldSelector=metadata.namespace!%3Ddefault", vec![]),
    ];
    for (query, want) in cases {
        let (code, list) = get(&c, server.url(&format!("{CT}?{query}"))).await;
        assert_eq!(code, 200, "{query}: {list}");
        assert_eq!(names(&list), want, "{query}");
    }
    let (code, body) = get(
        &c,
        server.url(&format!("{CT}?fieldSelector=spec.image%3Dx")),
    )
    .await;
    assert_eq!(code, 400);
    assert_eq!(body["message"], "field label not supported: spec.image");
    let (code, body) = get(&c, server.url(&format!("{CT}?labelSelector=a%20in%20"))).await;
    assert_eq!(code, 400, "{body}");
    // Across namespaces.
    let (_, all) = get(&c, server.url("/apis/stable.example.com/v1/crontabs")).await;
    assert_eq!(names(&all), ["a", "b", "c"]);
    assert_eq!(all["kind"], "CronTabList");
}

#[tokio::test]
async fn list_pages_share_one_revision() {
    let server = Server::start();
    let c = server.client();
    for n in ["p1", "p2", "p3", "p4", "p5"] {
        create(&server, &c, n, json!({})).await;
    }
    let (_, first) = get(&c, server.url(&format!("{CT}?limit=2"))).await;
    assert_eq!(names(&first), ["p1", "p2"]);
    let rv = first["metadata"]["resourceVersion"].clone();
    // A write between pages is not visible in later pages.
    create(&server, &c, "p0", json!({})).await;
    c.delete(server.url(&format!("{CT}/p4")))
        .send()
        .await
        .unwrap();
    let mut all = names(&first);
    let mut token = first["metadata"]["continue"].as_str().unwrap().to_string();
    loop {
        let (code, page) = get(&c, server.url(&format!("{CT}?limit=2&continue={token}"))).await;
        assert_eq!(code, 200, "{page}");
        assert_eq!(page["metadata"]["resourceVersion"], rv);
        all.extend(names(&page));
        // The last page carries an empty continue, as kube's custom resource lists do.
        match page["metadata"]["continue"].as_str() {
            Some("") => break,
            Some(t) => token = t.to_string(),
            None => panic!("continue missing: {page}"),
        }
    }
    assert_eq!(all, ["p1", "p2", "p3", "p4", "p5"]);
    let (code, body) = get(&c, server.url(&format!("{CT}?limit=2&continue=garbage"))).await;
    assert_eq!(code, 400, "{body}");
}

#[tokio::test]
async fn watch_streams_events_and_resumes_from_resource_version() {
    let server = Server::start();
    let c = server.client();
    let created = create(&server, &c, "w", json!({"app": "x"})).await;
    let rv = created["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let live = c
        .get(server.url(&format!("{CT}?watch=1&resourceVersion={rv}")))
        .send()
        .await
        .unwrap();
    c.patch(server.url(&format!("{CT}/w")))
        .header("content-type", "application/merge-patch+json")
        .body(r#"{"spec":{"replicas":3}}"#)
        .send()
        .await
        .unwrap();
    c.delete(server.url(&format!("{CT}/w")))
        .send()
        .await
        .unwrap();
    let got = events(live, 2).await;
    let types: Vec<&str> = got.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["MODIFIED", "DELETED"]);
    assert_eq!(got[0]["object"]["spec"]["replicas"], 3);
    // Resuming from the creation revision replays the same two events.
    let replay = c
        .get(server.url(&format!("{CT}?watch=1&resourceVersion={rv}")))
        .send()
        .await
        .unwrap();
    let again = events(replay, 2).await;
    assert_eq!(again, got);
    // Without a resourceVersion the current state comes first as ADDED.
    create(&server, &c, "v", json!({})).await;
    let fresh = c
        .get(server.url(&format!("{CT}?watch=1")))
        .send()
        .await
        .unwrap();
    let first = events(fresh, 1).await;
    assert_eq!(first[0]["type"], "ADDED");
    assert_eq!(first[0]["object"]["metadata"]["name"], "v");
}

#[tokio::test]
async fn watch_single_object_selector_transitions_and_timeout() {
    let server = Server::start();
    let c = server.client();
    let a = create(&server, &c, "a", json!({"app": "x"})).await;
    create(&server, &c, "b", json!({"app": "x"})).await;
    let rv = a["metadata"]["resourceVersion"].as_str().unwrap();
    let one = c
        .get(server.url(&format!(
            "{CT}?watch=1&resourceVersion={rv}&fieldSelector=metadata.name%3Db&timeoutSeconds=2"
        )))
        .send()
        .await
        .unwrap();
    let got = events(one, 5).await;
    assert_eq!(got.len(), 1, "only b, then the watch times out: {got:?}");
    assert_eq!(got[0]["object"]["metadata"]["name"], "b");
    // Label changes that leave the selector arrive as DELETED.
    let sel = c
        .get(server.url(&format!(
            "{CT}?watch=1&resourceVersion={rv}&labelSelector=app%3Dx&timeoutSeconds=3"
        )))
        .send()
        .await
        .unwrap();
    c.patch(server.url(&format!("{CT}/a")))
        .header("content-type", "application/merge-patch+json")
        .body(r#"{"metadata":{"labels":{"app":"y"}}}"#)
        .send()
        .await
        .unwrap();
    let got = events(sel, 2).await;
    let types: Vec<&str> = got.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["ADDED", "DELETED"], "{got:?}");
}

#[tokio::test]
async fn watch_bookmarks_when_allowed() {
    let server = Server::start_with(&["--watch-bookmark-interval", "200ms"]);
    let c = server.client();
    let created = create(&server, &c, "a", json!({})).await;
    let rv = created["metadata"]["resourceVersion"].as_str().unwrap();
    let resp = c
        .get(server.url(&format!(
            "{CT}?watch=1&resourceVersion={rv}&allowWatchBookmarks=true"
        )))
        .send()
        .await
        .unwrap();
    let got = events(resp, 1).await;
    assert_eq!(got[0]["type"], "BOOKMARK", "{got:?}");
    assert_eq!(got[0]["object"]["kind"], "CronTab");
    assert!(
        got[0]["object"]["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .parse::<i64>()
            .unwrap()
            >= rv.parse::<i64>().unwrap()
    );
}

#[tokio::test]
async fn table_output_uses_printer_columns_and_include_object() {
    let server = Server::start();
    let c = server.client();
    create(&server, &c, "t", json!({})).await;
    let resp = c
        .get(server.url(CT))
        .header("accept", TABLE)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["content-type"], "application/json");
    let table: Value = resp.json().await.unwrap();
    assert_eq!(table["kind"], "Table");
    let cols: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(cols, ["Name", "Spec", "Replicas", "Age"]);
    assert_eq!(table["rows"][0]["cells"][0], "t");
    assert_eq!(table["rows"][0]["cells"][1], "1 * * * *");
    assert_eq!(table["rows"][0]["cells"][2], 1);
    assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    for (include, want) in [("None", Value::Null), ("Object", json!("CronTab"))] {
        let resp = c
            .get(server.url(&format!("{CT}/t?includeObject={include}")))
            .header("accept", TABLE)
            .send()
            .await
            .unwrap();
        let table: Value = resp.json().await.unwrap();
        assert_eq!(
            table["rows"][0]["object"]["kind"].clone(),
            if want.is_null() { Value::Null } else { want },
            "{include}"
        );
    }
    let resp = c
        .get(server.url(CT))
        .header("accept", "application/vnd.kubernetes.protobuf")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 406);
}

#[tokio::test]
async fn selectable_fields_and_list_option_validation() {
    let server = Server::start();
    let c = server.client();
    for (name, color) in [("red-one", "red"), ("blue-one", "blue")] {
        let w = json!({"apiVersion": "example.org/v1", "kind": "Widget", "metadata": {"name": name}, "spec": {"size": 1, "color": color}});
        let resp = c
            .post(server.url("/apis/example.org/v1/widgets"))
            .json(&w)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 201);
    }
    let (code, list) = get(
        &c,
        server.url("/apis/example.org/v1/widgets?fieldSelector=spec.color%3Dred"),
    )
    .await;
    assert_eq!(code, 200, "{list}");
    assert_eq!(names(&list), ["red-one"]);
    // v1beta1 declares no selectable fields.
    let (code, _) = get(
        &c,
        server.url("/apis/example.org/v1beta1/widgets?fieldSelector=spec.color%3Dred"),
    )
    .await;
    assert_eq!(code, 400);
    let (code, body) = get(
        &c,
        server.url(&format!(
            "{CT}?resourceVersion=99999999&resourceVersionMatch=NotOlderThan"
        )),
    )
    .await;
    assert_eq!(code, 504, "{body}");
    assert_eq!(body["reason"], "Timeout");
    assert_eq!(
        body["details"]["causes"][0]["reason"],
        "ResourceVersionTooLarge"
    );
    assert_eq!(body["details"]["retryAfterSeconds"], 1);
    let (code, body) = get(&c, server.url(&format!("{CT}?resourceVersionMatch=Exact"))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"
    );
}

#[tokio::test]
async fn watch_send_initial_events_ends_with_marked_bookmark() {
    let server = Server::start();
    let c = server.client();
    create(&server, &c, "i", json!({})).await;
    let url = format!(
        "{CT}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
    );
    let resp = c.get(server.url(&url)).send().await.unwrap();
    let got = events(resp, 2).await;
    assert_eq!(got[0]["type"], "ADDED");
    assert_eq!(got[1]["type"], "BOOKMARK");
    assert_eq!(
        got[1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
        "true"
    );
}
