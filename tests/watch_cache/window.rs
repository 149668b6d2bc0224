//! The event window: a watch from a revision that left the window gets 410 Expired, one
//! from inside it gets exactly the later events, in order, then the live ones.

use super::*;

/// With a window of 5 events and 10 creates: from the 2nd (and the 4th) create's revision
/// → one ERROR event (410 Expired) and the end; from the 5th's → the last 5; from the
/// 8th's → the 9th and 10th, then the next create and nothing in between.
async fn window_of_five(server: &Server) {
    ready(server).await;
    let c = server.client();
    let mut created = Vec::new();
    for i in 1..=10 {
        created.push(rv(&create(server, &c, &format!("w{i:02}"), 0).await));
    }

    expired(server, &c, created[1]).await;
    // The window's edges: the 5th create's revision is the oldest a watch may start
    // from (kube's `oldest-1`), the 4th's is one too old.
    expired(server, &c, created[3]).await;
    let mut edge = Events::open(server, &c, &format!("resourceVersion={}", created[4])).await;
    let got: Vec<_> = edge.take(5).await.iter().map(|e| summary(e).2).collect();
    assert_eq!(got, created[5..]);

    let mut recent = Events::open(server, &c, &format!("resourceVersion={}", created[7])).await;
    let got: Vec<_> = recent.take(2).await.iter().map(summary).collect();
    let want = vec![
        ("ADDED".to_string(), "w09".to_string(), created[8]),
        ("ADDED".to_string(), "w10".to_string(), created[9]),
    ];
    assert_eq!(got, want);
    // Nothing else is queued: the next event is the next write.
    let next = rv(&create(server, &c, "w11", 0).await);
    let got = summary(&recent.take(1).await[0]);
    assert_eq!(got, ("ADDED".to_string(), "w11".to_string(), next));
}

/// A watch from `from` gets one ERROR event, 410 Expired, and ends.
async fn expired(server: &Server, c: &reqwest::Client, from: i64) {
    let mut old = Events::open(server, c, &format!("resourceVersion={from}")).await;
    let error = match old.next(PATIENCE).await {
        Next::Event(e) => e,
        other => panic!("expected an ERROR event, got {other:?}"),
    };
    assert_eq!(error["type"], "ERROR", "{error}");
    let status = &error["object"];
    assert_eq!(status["kind"], "Status", "{error}");
    assert_eq!(status["code"], 410, "{error}");
    assert_eq!(status["reason"], "Expired", "{error}");
    let message = status["message"].as_str().unwrap();
    assert!(message.starts_with("too old resource version"), "{message}");
    assert!(
        matches!(old.next(PATIENCE).await, Next::End),
        "the watch ends after its ERROR event"
    );
}

#[tokio::test]
async fn watch_embedded_window_left_expired_inside_exact() {
    let server = Server::start_with(&["--default-watch-cache-size", "5"]);
    window_of_five(&server).await;
}

#[tokio::test]
async fn watch_etcd_window_left_expired_inside_exact() {
    let etcd = etcd::Etcd::start();
    let server = on_etcd(&etcd, &["--default-watch-cache-size", "5"]);
    window_of_five(&server).await;
}
