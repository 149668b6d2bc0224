//! Reads through the cache: consistent reads see every write acknowledged before them,
//! `resourceVersion=0` is served from memory, a future resourceVersion is kube's 504, and
//! a watch with initial events ends them with the marked bookmark.

use super::*;

const WIDGETS: &str = "/apis/example.org/v1/widgets";
/// Reads the store answered because the cache did not catch up in time.
const FALLBACKS: &str = "crd_apiserver_watch_cache_fallbacks_total";

/// A create followed at once by a consistent LIST and GET is always seen; a write to
/// another resource is seen by the list's resourceVersion (the cache asks the store for
/// progress rather than waiting for a write of its own resource).
async fn consistent_reads_see_writes(server: &Server) {
    ready(server).await;
    let c = server.client();
    for i in 0..50 {
        let name = format!("c{i:02}");
        let created = rv(&create(server, &c, &name, 0).await);
        let path = format!("{CT}/{name}");
        let (list, (code, object)) = tokio::join!(get_ok(server, &c, CT), get(server, &c, &path));
        assert!(
            items(&list).contains(&(name.clone(), created)),
            "{name} at {created} missing from the list at {}",
            rv(&list)
        );
        assert!(rv(&list) >= created, "list at {} < {created}", rv(&list));
        assert_eq!(code, 200, "GET {name} right after its create: {object}");
        assert_eq!(rv(&object), created);
    }
    // The crontab cache hears nothing of widget writes but must still reach their
    // revision, by asking its upstream watch for progress. A cache that never gets there
    // reads the store after waiting CONSISTENT_WAIT (3 s) and answers the same list, so
    // the content alone cannot tell: the fallback counter must not move. (On etcd
    // versions without progress on request, consistent reads go to etcd by design and
    // are not fallbacks.)
    let fallbacks = metric(server, FALLBACKS).await;
    for i in 0..5 {
        let widget = json!({"apiVersion": "example.org/v1", "kind": "Widget",
            "metadata": {"name": format!("w{i}")}, "spec": {"size": 1}});
        let resp = c
            .post(server.url(WIDGETS))
            .json(&widget)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 201);
        let written = rv(&resp.json().await.unwrap());
        let list = get_ok(server, &c, CT).await;
        assert!(
            rv(&list) >= written,
            "crontab list at {} is older than the widget write at {written}",
            rv(&list)
        );
        assert_eq!(items(&list).len(), 50);
    }
    assert_eq!(
        metric(server, FALLBACKS).await,
        fallbacks,
        "consistent reads after writes elsewhere waited out the cache and read the store"
    );
}

#[tokio::test]
async fn consistent_read_embedded_after_write_sees_it() {
    let server = Server::start();
    consistent_reads_see_writes(&server).await;
}

#[tokio::test]
async fn consistent_read_etcd_after_write_sees_it() {
    let etcd = etcd::Etcd::start();
    let server = on_etcd(&etcd, &[]);
    consistent_reads_see_writes(&server).await;
}

/// A dry-run patch sent right after a write is judged on that write, never on an older
/// cached copy: a dry run has no compare-and-swap to catch a stale read, so it reads the
/// store consistently, as kube's dry-run storage does.
async fn dry_run_after_write_sees_it(server: &Server) {
    ready(server).await;
    let c = server.client();
    create(server, &c, "d", 0).await;
    let url = server.url(&format!("{CT}/d"));
    let patch = |body: Value, dry_run: bool| {
        let url = if dry_run {
            format!("{url}?dryRun=All")
        } else {
            url.clone()
        };
        c.patch(url)
            .header("content-type", "application/merge-patch+json")
            .json(&body)
            .send()
    };
    for i in 0..100 {
        let resp = patch(json!({"spec": {"replicas": i}}), false)
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        let written = rv(&resp.json().await.unwrap());
        let cron = format!("{} * * * *", i % 60);
        let resp = patch(json!({"spec": {"cronSpec": cron}}), true)
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        let dry: Value = resp.json().await.unwrap();
        assert_eq!(
            dry["spec"]["replicas"], i,
            "dry run {i} judged on an older object: {dry}"
        );
        assert_eq!(dry["spec"]["cronSpec"], cron.as_str());
        assert_eq!(rv(&dry), written, "dry run {i}");
    }
}

#[tokio::test]
async fn dry_run_embedded_after_write_sees_it() {
    let server = Server::start();
    dry_run_after_write_sees_it(&server).await;
}

#[tokio::test]
async fn dry_run_etcd_after_write_sees_it() {
    let etcd = etcd::Etcd::start();
    let server = on_etcd(&etcd, &[]);
    dry_run_after_write_sees_it(&server).await;
}

#[tokio::test]
async fn resource_version_zero_served_future_list_too_large() {
    let server = Server::start();
    ready(&server).await;
    let c = server.client();
    let created = rv(&create(&server, &c, "z0", 0).await);
    create(&server, &c, "z1", 0).await;
    // resourceVersion=0 may answer any state the cache has: poll until it has the write.
    let list = common::eventually(PATIENCE, "z0 in a resourceVersion=0 list", || async {
        let list = get_ok(&server, &c, &format!("{CT}?resourceVersion=0")).await;
        items(&list)
            .contains(&("z0".into(), created))
            .then_some(list)
    })
    .await;
    assert!(rv(&list) >= created);
    let object = common::eventually(PATIENCE, "z0 by a resourceVersion=0 GET", || async {
        let (code, object) = get(&server, &c, &format!("{CT}/z0?resourceVersion=0")).await;
        (code == 200).then_some(object)
    })
    .await;
    assert_eq!(rv(&object), created);
    // kube serves resourceVersion=0 whole from its watch cache, whatever the limit.
    let whole = common::eventually(PATIENCE, "both objects at resourceVersion=0", || async {
        let list = get_ok(&server, &c, &format!("{CT}?resourceVersion=0&limit=1")).await;
        (items(&list).len() == 2).then_some(list)
    })
    .await;
    assert_eq!(whole["metadata"]["continue"], "", "{whole}");

    // A revision the store has not reached: the server compares it with the store's
    // current revision and answers kube's 504 at once (kube's cacher gives the same
    // answer after waiting up to 3 s for its cache).
    let future = rv(&list) + 1_000_000;
    let (code, status) = get(
        &server,
        &c,
        &format!("{CT}?resourceVersion={future}&resourceVersionMatch=NotOlderThan"),
    )
    .await;
    assert_eq!(code, 504, "{status}");
    assert_eq!(status["reason"], "Timeout", "{status}");
    assert_eq!(
        status["details"]["causes"][0]["reason"], "ResourceVersionTooLarge",
        "{status}"
    );
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .contains(&format!("Too large resource version: {future}")),
        "{status}"
    );
}

/// kube's watch cache answers a GET at a revision it does not reach within 3 s with the
/// same 504 as a LIST (`waitUntilFreshAndBlock` → `TooLargeResourceVersionError`).
#[tokio::test]
async fn get_future_resource_version_too_large() {
    let server = Server::start();
    ready(&server).await;
    let c = server.client();
    let created = rv(&create(&server, &c, "f", 0).await);
    let future = created + 1_000_000;
    let (code, body) = get(&server, &c, &format!("{CT}/f?resourceVersion={future}")).await;
    assert_eq!(code, 504, "GET at resourceVersion {future}: {body}");
    assert_eq!(
        body["details"]["causes"][0]["reason"], "ResourceVersionTooLarge",
        "{body}"
    );
}

#[tokio::test]
async fn watch_send_initial_events_through_cache_ends_with_marked_bookmark() {
    let server = Server::start();
    ready(&server).await;
    let c = server.client();
    let mut created = Vec::new();
    for name in ["s0", "s1", "s2"] {
        created.push((name.to_string(), rv(&create(&server, &c, name, 0).await)));
    }
    let mut watch = Events::open(
        &server,
        &c,
        "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
    )
    .await;
    let got = watch.take(4).await;
    let initial: Vec<_> = got[..3].iter().map(summary).collect();
    let want: Vec<_> = created
        .iter()
        .map(|(n, r)| ("ADDED".to_string(), n.clone(), *r))
        .collect();
    assert_eq!(initial, want);
    let bookmark = &got[3];
    assert_eq!(bookmark["type"], "BOOKMARK", "{bookmark}");
    assert_eq!(
        bookmark["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true",
        "{bookmark}"
    );
    assert!(rv(&bookmark["object"]) >= created[2].1, "{bookmark}");
    // Then live events, from the cache's broadcast.
    let next = rv(&create(&server, &c, "s3", 0).await);
    let live = loop {
        let event = watch.take(1).await.remove(0);
        if event["type"] != "BOOKMARK" {
            break event;
        }
    };
    assert_eq!(summary(&live), ("ADDED".into(), "s3".into(), next));
}
