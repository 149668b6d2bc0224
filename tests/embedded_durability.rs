//! Group commit durability: every create the embedded store acknowledged survives a
//! SIGKILL of the server in the middle of concurrent writes, with its resourceVersion.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::Server;
use serde_json::{Value, json};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const WRITERS: usize = 16;
/// Acknowledged creates to wait for before the kill.
const BEFORE_KILL: usize = 200;

/// name → resourceVersion of every create answered 201.
type Acked = Arc<Mutex<BTreeMap<String, String>>>;

/// Creates CronTabs until the server stops answering; records each acknowledged one.
async fn writer(server_url: String, client: reqwest::Client, task: usize, acked: Acked) {
    for i in 0.. {
        let name = format!("w{task}-{i}");
        let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                          "metadata": {"name": name}, "spec": {"replicas": i}});
        let Ok(resp) = client.post(&server_url).json(&body).send().await else {
            return; // the server is gone
        };
        if resp.status().as_u16() != 201 {
            return; // not acknowledged: nothing to check
        }
        let Ok(created) = resp.json::<Value>().await else {
            return; // the answer was cut: not acknowledged
        };
        let rv = common::resource_version(&created);
        acked.lock().unwrap().insert(name, rv);
    }
}

fn sigkill(server: &Server) {
    let status = Command::new("kill")
        .args(["-KILL", &server.pid().to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill -9 failed: {status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_kill_9_mid_writes_keeps_every_acknowledged_create() {
    let server = Server::start();
    let acked: Acked = Arc::default();
    let writers: Vec<_> = (0..WRITERS)
        .map(|task| {
            let (url, client) = (server.url(CT), server.client());
            tokio::spawn(writer(url, client, task, acked.clone()))
        })
        .collect();
    common::eventually(Duration::from_secs(60), "acknowledged creates", || {
        let count = acked.lock().unwrap().len();
        async move { (count >= BEFORE_KILL).then_some(()) }
    })
    .await;
    sigkill(&server);
    for w in writers {
        w.await.unwrap();
    }
    let acked = std::mem::take(&mut *acked.lock().unwrap());
    assert!(acked.len() >= BEFORE_KILL, "{} acknowledged", acked.len());

    // The same data dir: `restart` reaps the killed process and starts a new one.
    let server = server.restart();
    let list: Value = common::json_of(server.client().get(server.url(CT))).await;
    let stored: BTreeMap<String, String> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| {
            let name = item["metadata"]["name"].as_str().expect("name");
            (name.to_string(), common::resource_version(item))
        })
        .collect();
    let lost: Vec<_> = acked
        .iter()
        .filter(|(name, rv)| stored.get(*name) != Some(*rv))
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {} acknowledged creates lost or changed after kill -9: {lost:?}",
        lost.len(),
        acked.len()
    );
}
