//! Soak writers: each creates, updates (PUT and merge patch, both with the acknowledged
//! resourceVersion as precondition) and deletes its own CronTabs, and records what the
//! final list must hold for every name it ever tried.

use std::collections::BTreeMap;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokio::sync::watch;

use super::{CT, Endpoint};

/// What the final list must hold for one name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Present at exactly this resourceVersion (the last write, acknowledged).
    Exact(i64),
    /// Present, at this resourceVersion or later (an update after it is ambiguous).
    AtLeast(i64),
    /// Absent, or present at this resourceVersion or later (an ambiguous delete).
    MaybeDeleted(i64),
    /// Absent: deleted with acknowledgement, or a create that was never sent or refused.
    Absent,
    /// Anything: the create itself is ambiguous.
    Unknown,
}

#[derive(Debug, Default)]
pub struct WriterReport {
    pub expect: BTreeMap<String, Expect>,
    /// Acknowledged creates, updates, deletes.
    pub acked: [u64; 3],
    /// The resourceVersions of acknowledged creates and updates: every watcher must see
    /// each one it was watching across (a delete's answer carries no revision of its own).
    pub acked_revisions: Vec<i64>,
    /// Writes that may or may not have landed (5xx, timeout, connection lost after send).
    pub ambiguous: u64,
    /// Writes refused before they were sent or processed (connection refused, 429).
    pub refused: u64,
    /// Answers the contract does not allow (409 or 404 on this writer's own objects).
    pub violations: Vec<String>,
}

/// The answer to one write.
enum Outcome {
    /// 2xx, with the stored resourceVersion when the answer carries one.
    Acked(Option<i64>),
    NotDone,
    Ambiguous,
    Unexpected(String),
}

/// Sends a write and classifies the answer; never cancelled half-way (that would make
/// the write ambiguous without the test knowing).
async fn send(req: reqwest::RequestBuilder) -> Outcome {
    let resp = match req.timeout(Duration::from_secs(20)).send().await {
        Ok(r) => r,
        // Nothing was sent: the server was down or restarting.
        Err(e) if e.is_connect() => return Outcome::NotDone,
        Err(_) => return Outcome::Ambiguous,
    };
    let status = resp.status().as_u16();
    match status {
        200..=299 => match resp.json::<Value>().await {
            Ok(body) => Outcome::Acked(
                body["metadata"]["resourceVersion"]
                    .as_str()
                    .and_then(|v| v.parse().ok()),
            ),
            Err(_) => Outcome::Ambiguous,
        },
        429 => Outcome::NotDone,
        500..=599 => Outcome::Ambiguous,
        _ => Outcome::Unexpected(format!(
            "{status}: {}",
            resp.text().await.unwrap_or_default()
        )),
    }
}

/// Writes until `stop`, one request at a time, paced by `interval`.
pub async fn run(
    id: usize,
    endpoint: Endpoint,
    stop: watch::Receiver<bool>,
    interval: Duration,
) -> WriterReport {
    let mut rng = rand::rngs::StdRng::seed_from_u64(id as u64);
    let mut report = WriterReport::default();
    // The objects this writer knows exactly: name -> acknowledged resourceVersion.
    let mut live: BTreeMap<String, i64> = BTreeMap::new();
    let mut created = 0u64;
    let mut generation = 0i64;
    while !*stop.borrow() {
        let (base, client) = endpoint.get();
        generation += 1;
        let roll = rng.random_range(0..100);
        let op = if live.len() < 4 || (live.len() < 24 && roll < 40) {
            0
        } else if roll < 70 {
            1
        } else {
            2
        };
        let outcome = match op {
            0 => {
                created += 1;
                let name = format!("w{id}-{created}");
                let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                    "metadata": {"name": name}, "spec": {"replicas": generation}});
                let outcome = send(client.post(format!("{base}{CT}")).json(&body)).await;
                let expect = match &outcome {
                    Outcome::Acked(Some(rv)) => {
                        live.insert(name.clone(), *rv);
                        Expect::Exact(*rv)
                    }
                    Outcome::NotDone => Expect::Absent,
                    Outcome::Ambiguous => Expect::Unknown,
                    Outcome::Acked(None) => {
                        let v = format!("create of {name} acknowledged without resourceVersion");
                        report.violations.push(v);
                        Expect::Unknown
                    }
                    Outcome::Unexpected(answer) => {
                        let v = format!("create of {name} answered {answer}");
                        report.violations.push(v);
                        Expect::Unknown
                    }
                };
                report.expect.insert(name, expect);
                outcome
            }
            _ => {
                let index = rng.random_range(0..live.len());
                let Some((name, rv)) = live.iter().nth(index).map(|(n, r)| (n.clone(), *r)) else {
                    continue;
                };
                let url = format!("{base}{CT}/{name}");
                let req = if op == 2 {
                    client.delete(url)
                } else if roll % 2 == 0 {
                    client
                        .put(url)
                        .json(&json!({"apiVersion": "stable.example.com/v1",
                        "kind": "CronTab",
                        "metadata": {"name": name, "resourceVersion": rv.to_string()},
                        "spec": {"replicas": generation}}))
                } else {
                    client
                        .patch(url)
                        .header("content-type", "application/merge-patch+json")
                        .body(
                            json!({"metadata": {"resourceVersion": rv.to_string()},
                                "spec": {"replicas": generation}})
                            .to_string(),
                        )
                };
                let outcome = send(req).await;
                let (expect, keep) = match (&outcome, op) {
                    (Outcome::NotDone, _) => (Expect::Exact(rv), Some(rv)),
                    (Outcome::Acked(_), 2) => (Expect::Absent, None),
                    (Outcome::Acked(Some(new)), _) if *new > rv => {
                        (Expect::Exact(*new), Some(*new))
                    }
                    (Outcome::Acked(got), _) => {
                        report.violations.push(format!(
                            "update of {name} at {rv} acknowledged with resourceVersion {got:?}"
                        ));
                        (Expect::Unknown, None)
                    }
                    (Outcome::Ambiguous, 2) => (Expect::MaybeDeleted(rv), None),
                    (Outcome::Ambiguous, _) => (Expect::AtLeast(rv), None),
                    (Outcome::Unexpected(answer), _) => {
                        let verb = if op == 2 { "delete" } else { "update" };
                        report.violations.push(format!(
                            "{verb} of {name} (acknowledged at {rv}) answered {answer}"
                        ));
                        (Expect::Unknown, None)
                    }
                };
                report.expect.insert(name.clone(), expect);
                match keep {
                    Some(rv) => live.insert(name, rv),
                    // Gone or no longer known exactly: this writer leaves it alone.
                    None => live.remove(&name),
                };
                outcome
            }
        };
        let pause = match outcome {
            Outcome::Acked(rv) => {
                report.acked[op] += 1;
                if op != 2 {
                    report.acked_revisions.extend(rv);
                }
                interval
            }
            Outcome::NotDone => {
                report.refused += 1;
                Duration::from_millis(250)
            }
            Outcome::Ambiguous => {
                report.ambiguous += 1;
                Duration::from_millis(250)
            }
            Outcome::Unexpected(_) => Duration::from_millis(250),
        };
        tokio::time::sleep(pause).await;
    }
    report
}
