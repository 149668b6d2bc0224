//! Slow watchers: a watcher that does not read is ended once what it missed has left the
//! window (its stream closes after the events it had, in order and without a gap) and
//! counted; a watcher that reads at the same time gets every event, and is not held up.

use std::collections::BTreeMap;

use super::*;

/// Enough bytes to fill the slow watch's TCP buffers, the server's 256-line channel and
/// the 1024-event broadcast, and leave the 50-event window.
const OBJECTS: usize = 3000;
const PAD: usize = 4096;
/// Creates in flight at once (the writes are not what is tested).
const WRITERS: usize = 8;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_slow_watcher_ended_fast_watcher_complete() {
    let server = Server::start_with(&["--default-watch-cache-size", "50"]);
    ready(&server).await;
    let c = server.client();
    let from = rv(&get_ok(&server, &c, CT).await);
    let query = format!("resourceVersion={from}");
    // Its own connection, never read until the writes are done.
    let mut slow = Events::open(&server, &server.client(), &query).await;
    let mut fast = Events::open(&server, &server.client(), &query).await;
    let fast = tokio::spawn(async move {
        let events = fast.take(OBJECTS).await;
        events.iter().map(summary).collect::<Vec<_>>()
    });

    let created: BTreeMap<i64, String> = futures::stream::iter(0..OBJECTS)
        .map(|i| {
            let (server, c) = (&server, &c);
            async move {
                let name = format!("s{i:04}");
                (rv(&create(server, c, &name, PAD).await), name)
            }
        })
        .buffer_unordered(WRITERS)
        .collect()
        .await;
    let want: Vec<_> = created
        .iter()
        .map(|(r, n)| ("ADDED".to_string(), n.clone(), *r))
        .collect();

    // Every event exactly once, in revision order, before the slow watch is read at all.
    let got = fast.await.unwrap();
    assert!(
        got == want,
        "the fast watcher got {} events, not the {} writes in order",
        got.len(),
        want.len()
    );

    let mut delivered = Vec::new();
    loop {
        match slow.next(PATIENCE).await {
            Next::Event(e) => delivered.push(summary(&e)),
            Next::End => break,
            Next::Quiet => panic!(
                "the slow watch neither ended nor went on after {} events",
                delivered.len()
            ),
        }
    }
    assert!(
        delivered.len() < OBJECTS,
        "the slow watcher was not ended: it got all {OBJECTS} events"
    );
    assert!(
        delivered == want[..delivered.len()],
        "the slow watcher's {} events are not the first ones in order: first differing at {:?}",
        delivered.len(),
        delivered.iter().zip(&want).position(|(a, b)| a != b)
    );
    // kube's labels: the group and the plural.
    let terminated = sample(
        &server,
        "apiserver_terminated_watchers_total{group=\"stable.example.com\",resource=\"crontabs\"}",
    )
    .await;
    assert!(terminated >= 1, "terminated watchers: {terminated}");
}
