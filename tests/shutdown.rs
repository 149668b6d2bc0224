//! Graceful shutdown with `--shutdown-delay-duration`: after SIGTERM `/readyz` fails at
//! once, yet requests (on open and on new connections) are served until the delay is
//! over; then the server drains and exits.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::time::{Duration, Instant};

use common::Server;
use serde_json::json;

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const DELAY: Duration = Duration::from_secs(5);

#[tokio::test]
async fn sigterm_with_delay_serves_while_readyz_fails_then_exits() {
    let mut server = Server::start_with(&["--shutdown-delay-duration=5s"]);
    let c = server.client();
    assert_eq!(
        c.get(server.url("/readyz")).send().await.unwrap().status(),
        200
    );

    let signalled = Instant::now();
    server.sigterm();
    let readyz = common::eventually(Duration::from_secs(10), "readyz to fail", || {
        let req = c.get(server.url("/readyz?verbose"));
        async move {
            let resp = req.send().await.unwrap();
            (resp.status() == 500).then_some(resp)
        }
    })
    .await;
    let text = readyz.text().await.unwrap();
    assert!(text.contains("[-]shutdown failed"), "{text}");

    // Within the delay: writes and reads succeed, on this client's connection and on a
    // new one, while readiness stays red.
    let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "during-delay"}});
    let created = c.post(server.url(CT)).json(&body).send().await.unwrap();
    assert_eq!(created.status(), 201);
    let fresh = server.client();
    let got = fresh
        .get(server.url(&format!("{CT}/during-delay")))
        .send()
        .await
        .unwrap();
    assert_eq!(got.status(), 200);
    let still = fresh.get(server.url("/readyz")).send().await.unwrap();
    assert_eq!(still.status(), 500);
    assert!(
        signalled.elapsed() < DELAY,
        "the requests above were meant to run within the delay; took {:?}",
        signalled.elapsed()
    );
    assert!(server.exited().is_none(), "still running within the delay");

    let exit = common::eventually(Duration::from_secs(60), "the process to exit", || {
        let exit = server.exited();
        async move { exit }
    })
    .await;
    assert!(exit.success(), "{exit:?}");
    assert!(
        signalled.elapsed() >= DELAY,
        "exited after {:?}, before the delay",
        signalled.elapsed()
    );
}
