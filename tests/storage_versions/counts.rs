//! The stored-version counts: at start-up (from the cache's list), after creates,
//! deletes and rewrites at another version, on `/storedversions` and on `/metrics`.

use super::*;

#[tokio::test]
async fn stored_versions_startup_writes_deletes_counted() {
    let server = Server::start();
    create_at(&server, "v1", &names("c", 3)).await;
    wait_counts(&server, &[("v1", 3)]).await;
    let c = server.client();
    let url = server.url(&format!("{}/c00", collection("v1")));
    assert_eq!(c.delete(url).send().await.unwrap().status().as_u16(), 200);
    wait_counts(&server, &[("v1", 2)]).await;
    assert_eq!(
        stored(&server).await,
        json!({"resource": RESOURCE, "storageVersion": "v1", "storedVersions": ["v1"],
               "objects": {"v1": 2}})
    );
    // Every resource, a resource with no object too.
    let all: Value = c
        .get(server.url("/storedversions"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let entries = all["resources"].as_array().unwrap();
    let widgets = entries
        .iter()
        .find(|e| e["resource"] == "widgets.example.org")
        .unwrap();
    assert_eq!(widgets["objects"], json!({}));
    assert_eq!(widgets["storedVersions"], json!([]));

    // Counted again from the store's objects when the server starts.
    let server = server.restart();
    wait_counts(&server, &[("v1", 2)]).await;
}

#[tokio::test]
async fn stored_versions_strangers_methods_unknown_refused() {
    let server = Server::start();
    let url = server.url("/storedversions");
    // Without a cluster only always-allow paths pass: a non-resource path like /metrics.
    let resp = server.anonymous().get(&url).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 403);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["reason"], "Forbidden");
    let resp = server.client().post(&url).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 405);
    let unknown = server.url("/storedversions/nothings.example.com");
    let resp = server.client().get(unknown).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 404);
    assert_eq!(resp.text().await.unwrap(), "404 page not found\n");
}

#[tokio::test]
async fn stored_versions_without_watch_cache_unavailable() {
    let server = Server::start_with(&["--default-watch-cache-size", "0"]);
    let resp = server
        .client()
        .get(server.url("/storedversions"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 503);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        body["message"],
        "stored versions are counted by the watch cache, which --default-watch-cache-size=0 turned off"
    );
}

#[tokio::test]
async fn stored_versions_storage_change_counts_old_and_new() {
    let server = Server::start();
    let both_v1 = crd_dir(
        &server,
        "v1-storage",
        &[("v1", true, true), ("v2", true, false)],
    );
    let both_v2 = crd_dir(
        &server,
        "v2-storage",
        &[("v1", true, false), ("v2", true, true)],
    );
    let server = restart_on(server, &both_v1, &[]);
    create_at(&server, "v1", &names("a", 3)).await;
    create_at(&server, "v2", &names("b", 1)).await;
    // Written in either version, stored at the storage version.
    wait_counts(&server, &[("v1", 4)]).await;
    let server = restart_on(server, &both_v2, &[]);
    wait_counts(&server, &[("v1", 4)]).await;
    assert_eq!(stored(&server).await["storageVersion"], "v2");
    // A create and an update store at v2; a delete of a v1 object counts down.
    create_at(&server, "v1", &names("n", 1)).await;
    let c = server.client();
    let patch = c
        .patch(server.url(&format!("{}/a00", collection("v1"))))
        .header("Content-Type", "application/merge-patch+json")
        .body(r#"{"spec":{"changed":true}}"#);
    assert_eq!(patch.send().await.unwrap().status().as_u16(), 200);
    let url = server.url(&format!("{}/a01", collection("v2")));
    assert_eq!(c.delete(url).send().await.unwrap().status().as_u16(), 200);
    wait_counts(&server, &[("v1", 2), ("v2", 2)]).await;
    assert_eq!(stored(&server).await["storedVersions"], json!(["v2", "v1"]));
}
