//! Soak watchers: one HTTP watch stream each, re-watched from the last seen
//! resourceVersion when it ends and relisted after 410, keeping a model (name ->
//! resourceVersion) and recording every break of the watch contract as a violation.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use serde::Deserialize;
use tokio::sync::watch;

use super::{CT, Endpoint};

/// What one watcher has seen so far; the test reads it while the watcher runs.
#[derive(Debug, Default)]
pub struct WatchState {
    /// name -> resourceVersion: the last relist's items with every later event applied.
    pub model: BTreeMap<String, i64>,
    /// The revision everything up to is in `model` (events, bookmarks, relists).
    pub last: i64,
    /// Every event's resourceVersion, in the order received.
    pub revisions: Vec<i64>,
    /// (list revision, `last`) per list: the revisions after each list seen with no gap.
    pub epochs: Vec<(i64, i64)>,
    pub events: u64,
    pub bookmarks: u64,
    /// 410s answered by a relist (the first list is not counted).
    pub relists: u64,
    /// Streams that ended (timeout, restart, error) and were re-watched from `last`.
    pub rewatches: u64,
    pub violations: Vec<String>,
}

/// The fields of a watch event the check needs (the object's other fields are skipped).
#[derive(Deserialize)]
struct WireEvent {
    #[serde(rename = "type")]
    kind: String,
    object: WireObject,
}

#[derive(Deserialize)]
struct WireObject {
    #[serde(default)]
    metadata: WireMeta,
    /// An ERROR event's Status code.
    code: Option<u16>,
}

#[derive(Default, Deserialize)]
struct WireMeta {
    name: Option<String>,
    #[serde(rename = "resourceVersion")]
    resource_version: Option<String>,
}

#[derive(Deserialize)]
struct WireList {
    metadata: WireMeta,
    items: Vec<WireObject>,
}

/// How a stream ended.
enum End {
    /// The server's timeout or a restart: watch again from `last`.
    Rewatch,
    /// Refused, 429, 5xx, a non-410 ERROR (etcd down): watch again from `last`, later.
    Failed,
    /// 410 Gone: `last` was compacted away.
    Relist,
    Stop,
}

/// Watches until `stop`; `nap` makes the watcher go away for that long after every
/// second stream, so that its resourceVersion gets compacted and it must relist.
pub async fn run(
    id: usize,
    endpoint: Endpoint,
    state: Arc<Mutex<WatchState>>,
    mut stop: watch::Receiver<bool>,
    nap: Option<Duration>,
) {
    // Streams end on the server's timeout at staggered times, so re-watching from the
    // last resourceVersion happens all through the run, not only at restarts.
    let seconds = 5 + (id % 11) as u64;
    if !relist(&endpoint, &state, &mut stop, false).await {
        return;
    }
    let mut streams = 0u64;
    loop {
        let end = stream(&endpoint, &state, &mut stop, seconds).await;
        streams += 1;
        let pause = match end {
            End::Stop => return,
            End::Relist => {
                if !relist(&endpoint, &state, &mut stop, true).await {
                    return;
                }
                continue;
            }
            End::Rewatch => match nap {
                Some(nap) if streams.is_multiple_of(2) => nap,
                _ => Duration::from_millis(100),
            },
            End::Failed => Duration::from_millis(500),
        };
        state.lock().unwrap().rewatches += 1;
        if wait_or_stop(&mut stop, pause).await {
            return;
        }
    }
}

/// Sleeps for `pause` (pacing retries, not a clock); true if stopped meanwhile.
async fn wait_or_stop(stop: &mut watch::Receiver<bool>, pause: Duration) -> bool {
    let stopped = tokio::select! {
        _ = tokio::time::sleep(pause) => false,
        _ = stop.wait_for(|s| *s) => true,
    };
    stopped || *stop.borrow()
}

/// One watch request from `last`, applied to the model until it ends.
async fn stream(
    endpoint: &Endpoint,
    state: &Mutex<WatchState>,
    stop: &mut watch::Receiver<bool>,
    seconds: u64,
) -> End {
    let (base, client) = endpoint.get();
    let from = state.lock().unwrap().last;
    let url = format!(
        "{base}{CT}?watch=1&allowWatchBookmarks=true&resourceVersion={from}&timeoutSeconds={seconds}"
    );
    let request = client
        .get(url)
        .timeout(Duration::from_secs(seconds + 60))
        .send();
    let resp = tokio::select! {
        r = request => r,
        _ = stop.wait_for(|s| *s) => return End::Stop,
    };
    let resp = match resp {
        Ok(r) if r.status().as_u16() == 410 => return End::Relist,
        Ok(r) if r.status().is_success() => r,
        _ => return End::Failed,
    };
    let mut body = resp.bytes_stream();
    let mut buf = Vec::new();
    loop {
        let chunk = tokio::select! {
            c = body.next() => c,
            _ = stop.wait_for(|s| *s) => return End::Stop,
        };
        let Some(Ok(chunk)) = chunk else {
            return End::Rewatch;
        };
        buf.extend_from_slice(&chunk);
        while let Some(pos) = buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buf.drain(..=pos).collect();
            let mut s = state.lock().unwrap();
            match serde_json::from_slice::<WireEvent>(&line) {
                Ok(event) if event.kind == "ERROR" => {
                    return match event.object.code {
                        Some(410) => End::Relist,
                        _ => End::Failed,
                    };
                }
                Ok(event) => apply(&mut s, event),
                Err(e) => {
                    let text = String::from_utf8_lossy(&line);
                    s.violations
                        .push(format!("undecodable event ({e}): {text}"));
                }
            }
        }
    }
}

/// Applies one event to the model, checking order and that it fits the model: a
/// duplicate, a reordered or a missed event shows up as a violation here or as a
/// difference from the final list.
fn apply(s: &mut WatchState, event: WireEvent) {
    let rv = event
        .object
        .metadata
        .resource_version
        .as_deref()
        .and_then(|v| v.parse::<i64>().ok());
    let Some(rv) = rv else {
        s.violations
            .push(format!("{} event without a resourceVersion", event.kind));
        return;
    };
    if event.kind == "BOOKMARK" {
        if rv < s.last {
            let last = s.last;
            s.violations
                .push(format!("BOOKMARK at {rv} after revision {last}"));
        }
        s.last = s.last.max(rv);
        s.bookmarks += 1;
        extend_epoch(s);
        return;
    }
    let name = event.object.metadata.name.unwrap_or_default();
    if rv <= s.last {
        let last = s.last;
        s.violations.push(format!(
            "{} {name} at {rv}, not after revision {last} (duplicate or out of order)",
            event.kind
        ));
    }
    s.last = s.last.max(rv);
    s.events += 1;
    s.revisions.push(rv);
    extend_epoch(s);
    let known = s.model.get(&name).copied();
    let fits = match event.kind.as_str() {
        "ADDED" => known.is_none(),
        "MODIFIED" => known.is_some(),
        "DELETED" => known.is_some(),
        _ => false,
    };
    if !fits {
        s.violations.push(format!(
            "{} {name} at {rv} while the model has it at {known:?}",
            event.kind
        ));
    }
    if event.kind == "DELETED" {
        s.model.remove(&name);
    } else {
        s.model.insert(name, rv);
    }
}

/// Lists the collection (a consistent read) into the model, retrying until it works;
/// false if stopped first.
async fn relist(
    endpoint: &Endpoint,
    state: &Mutex<WatchState>,
    stop: &mut watch::Receiver<bool>,
    counted: bool,
) -> bool {
    loop {
        let (base, client) = endpoint.get();
        let request = client
            .get(format!("{base}{CT}"))
            .timeout(Duration::from_secs(60))
            .send();
        let list = tokio::select! {
            r = request => r,
            _ = stop.wait_for(|s| *s) => return false,
        };
        let list = match list {
            Ok(r) if r.status().is_success() => r.json::<WireList>().await.ok(),
            _ => None,
        };
        if let Some(list) = list {
            let mut s = state.lock().unwrap();
            install(&mut s, list);
            s.relists += u64::from(counted);
            return true;
        }
        if wait_or_stop(stop, Duration::from_millis(250)).await {
            return false;
        }
    }
}

/// Replaces the model with a list's items; a consistent list is never older than what
/// the watcher has already seen.
fn install(s: &mut WatchState, list: WireList) {
    let rv = |m: &WireMeta| {
        m.resource_version
            .as_deref()
            .and_then(|v| v.parse::<i64>().ok())
    };
    let Some(at) = rv(&list.metadata) else {
        s.violations
            .push("list without a resourceVersion".to_string());
        return;
    };
    if at < s.last {
        let last = s.last;
        s.violations.push(format!(
            "consistent list at {at}, older than seen revision {last}"
        ));
    }
    s.model = list
        .items
        .into_iter()
        .map(|i| {
            let item_rv = rv(&i.metadata).unwrap_or(i64::MAX);
            (i.metadata.name.unwrap_or_default(), item_rv)
        })
        .collect();
    s.last = at;
    s.epochs.push((at, at));
}

/// The current epoch now reaches `last`.
fn extend_epoch(s: &mut WatchState) {
    if let Some(epoch) = s.epochs.last_mut() {
        epoch.1 = s.last;
    }
}
