//! The live catalog, in process (the real server over real TLS on 127.0.0.1:0, driven
//! through `server::run::run_with`'s handle): a definition served at runtime is in
//! discovery, OpenAPI v2/v3 and `kubectl explain`, its objects are written, read and
//! watched through the watch cache, a changed schema validates with the new rules, a
//! stopped one is not routed (its watches end). The restore path: tests/restore.rs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/live.rs"]
mod live;

use futures::StreamExt;
use live::{Live, NAME, WIDGETS, WITHIN, send, widgets_crd};
use serde_json::{Value, json};

fn widget(name: &str, color: &str) -> Value {
    json!({"apiVersion": "host.example.com/v1", "kind": "Widget",
        "metadata": {"name": name}, "spec": {"color": color}})
}

/// Whether `/apis/host.example.com/v1` lists widgets, and `/apis` the group.
async fn discovered(live: &Live) -> bool {
    let (_, groups) = live.get("/apis").await;
    let in_groups = groups["groups"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["name"] == "host.example.com");
    let (code, resources) = live.get("/apis/host.example.com/v1").await;
    let in_resources = code == 200
        && resources["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "widgets" && r["kind"] == "Widget");
    assert_eq!(in_groups, in_resources, "{groups} / {resources}");
    in_groups
}

fn stored_objects_line(metrics: &str) -> Option<String> {
    metrics
        .lines()
        .find(|l| l.starts_with("crd_apiserver_stored_objects{") && l.contains(NAME))
        .map(str::to_string)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_catalog_definition_served_at_runtime_discovered_cached_revalidated_stopped() {
    let live = Live::start(&[]).await;
    let client = live.client();
    assert_eq!(live.get(WIDGETS).await.0, 404);
    assert!(!discovered(&live).await);

    live.definitions.serve(&[widgets_crd(10)]).unwrap();

    // Discovery, OpenAPI v2 and v3, kubectl explain.
    assert!(discovered(&live).await);
    let (_, v2) = live.get("/openapi/v2").await;
    let definition = &v2["definitions"]["com.example.host.v1.Widget"];
    assert_eq!(
        definition["properties"]["spec"]["properties"]["color"]["maxLength"],
        json!(10),
        "{definition}"
    );
    let (_, v3) = live.get("/openapi/v3").await;
    assert!(
        v3["paths"].get("apis/host.example.com/v1").is_some(),
        "{v3}"
    );
    let (code, v3gv) = live.get("/openapi/v3/apis/host.example.com/v1").await;
    assert_eq!(code, 200);
    assert!(
        v3gv["components"]["schemas"]
            .get("com.example.host.v1.Widget")
            .is_some()
    );
    let explained = live
        .kubectl(&[
            "explain",
            "widgets.spec",
            "--api-version=host.example.com/v1",
        ])
        .await;
    let text = String::from_utf8_lossy(&explained.stdout);
    assert!(
        explained.status.success() && text.contains("The widget's paint colour."),
        "{text}{}",
        String::from_utf8_lossy(&explained.stderr)
    );

    // A watch opened before the create sees it; the cache counts it.
    let watch = client
        .get(live.url(&format!("{WIDGETS}?watch=1")))
        .send()
        .await
        .unwrap();
    assert_eq!(watch.status().as_u16(), 200);
    let mut events = watch.bytes_stream();
    let (code, created) = send(client.post(live.url(WIDGETS)).json(&widget("a", "purple"))).await;
    assert_eq!(code, 201, "{created}");
    let first = tokio::time::timeout(WITHIN, events.next()).await.unwrap();
    let event: Value = serde_json::from_slice(&first.unwrap().unwrap()).unwrap();
    assert_eq!(
        (&event["type"], &event["object"]["metadata"]["name"]),
        (&json!("ADDED"), &json!("a"))
    );
    let (code, got) = live.get(&format!("{WIDGETS}/a")).await;
    assert_eq!((code, &got["spec"]["color"]), (200, &json!("purple")));
    common::eventually(WITHIN, "the cache's count of widgets", || async {
        let line = stored_objects_line(&live.metrics().await)?;
        line.ends_with(" 1").then_some(())
    })
    .await;
    let (code, stored) = live.get(&format!("/storedversions/{NAME}")).await;
    assert_eq!(
        (code, &stored["objects"], &stored["storageVersion"]),
        (200, &json!({"v1": 1}), &json!("v1")),
        "{stored}"
    );

    // A changed definition: the new schema's rules apply to the next write.
    live.definitions.serve(&[widgets_crd(3)]).unwrap();
    let (code, refused) = send(client.post(live.url(WIDGETS)).json(&widget("b", "purple"))).await;
    assert_eq!(code, 422, "{refused}");
    assert_eq!(
        refused["details"]["causes"][0]["field"], "spec.color",
        "{refused}"
    );
    let (code, _) = send(client.post(live.url(WIDGETS)).json(&widget("c", "red"))).await;
    assert_eq!(code, 201);
    let (_, v2) = live.get("/openapi/v2").await;
    assert_eq!(
        v2["definitions"]["com.example.host.v1.Widget"]["properties"]["spec"]["properties"]["color"]
            ["maxLength"],
        json!(3)
    );

    // Stopped: not routed, not discovered, its watch ends, its cache series go.
    live.definitions.stop_serving(&[NAME.to_string()]).unwrap();
    assert_eq!(live.get(WIDGETS).await.0, 404);
    assert_eq!(live.get(&format!("{WIDGETS}/a")).await.0, 404);
    assert!(!discovered(&live).await);
    let (_, v2) = live.get("/openapi/v2").await;
    assert!(
        v2["definitions"]
            .get("com.example.host.v1.Widget")
            .is_none()
    );
    let ended = tokio::time::timeout(WITHIN, async {
        while let Some(chunk) = events.next().await {
            if chunk.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the widgets watch did not end");
    assert_eq!(stored_objects_line(&live.metrics().await), None);
    // The examples are still served.
    let (code, _) = live
        .get("/apis/stable.example.com/v1/namespaces/default/crontabs")
        .await;
    assert_eq!(code, 200);
}
