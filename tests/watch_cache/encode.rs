//! Encode once: an event is serialized once for all the plain watchers that receive it.

use super::*;

/// Plain JSON watchers (no selectors, no conversion) from one resourceVersion.
const WATCHERS: usize = 20;
const WRITES: usize = 10;

#[tokio::test]
async fn watch_many_plain_watchers_event_encoded_once() {
    let server = Server::start();
    ready(&server).await;
    let c = server.client();
    let from = rv(&get_ok(&server, &c, CT).await);
    // A resourceVersion without sendInitialEvents: no initial events, only the writes.
    let mut watches = Vec::new();
    for _ in 0..WATCHERS {
        watches.push(Events::open(&server, &c, &format!("resourceVersion={from}")).await);
    }
    let sent_before = metric(&server, "apiserver_watch_events_total").await;
    let encoded_before = metric(&server, "crd_apiserver_watch_event_encodings_total").await;

    let mut want = Vec::new();
    for i in 0..WRITES {
        let name = format!("e{i}");
        let created = rv(&create(&server, &c, &name, 0).await);
        want.push(("ADDED".to_string(), name, created));
    }
    let received = futures::future::join_all(watches.iter_mut().map(|w| w.take(WRITES))).await;
    for (i, events) in received.iter().enumerate() {
        let got: Vec<_> = events.iter().map(summary).collect();
        assert_eq!(got, want, "watcher {i}");
    }

    let sent = metric(&server, "apiserver_watch_events_total").await - sent_before;
    let encoded =
        metric(&server, "crd_apiserver_watch_event_encodings_total").await - encoded_before;
    assert_eq!(sent, (WATCHERS * WRITES) as u64, "events sent");
    assert_eq!(encoded, WRITES as u64, "events serialized");
}
