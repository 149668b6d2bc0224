//! Webhook calls through the server share pooled HTTP/2 connections: 64 concurrent
//! creates reach one validating webhook over a handful of connections.

use futures::future::join_all;

use crate::common::item_names;
use crate::fake_kube::FakeKube;
use crate::webhook::{Behaviour, Webhook};
use crate::webhook_host::{CRONTABS, create, crontab, hook, start_server, validating};
use crate::{at, names};

const WRITES: usize = 64;
/// Connections the webhook may see for them.
const MOST_CONNECTIONS: usize = 4;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_64_concurrent_creates_pooled_http2_connections() {
    let webhook = Webhook::start(&[]);
    webhook.on("/validate", Behaviour::Allow);
    let fake = FakeKube::start();
    let check = hook("validate.example.com", at(&webhook, "/validate"));
    fake.put_webhook_configuration(validating("validate", vec![check]));
    let server = start_server(&fake, &[]);

    let wanted: Vec<String> = (0..WRITES).map(|i| format!("c{i:02}")).collect();
    let writes = wanted.iter().map(|name| {
        let server = &server;
        async move { create(server, &crontab(name, &[])).await }
    });
    for (name, answer) in wanted.iter().zip(join_all(writes).await) {
        assert_eq!(answer.code, 201, "{name}: {:?}", answer.body);
    }
    let list: serde_json::Value = server
        .client()
        .get(server.url(CRONTABS))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(item_names(&list), wanted, "all stored");
    let seen = webhook.reviews_at("/validate");
    let mut reviewed = names(&seen);
    reviewed.sort();
    assert_eq!(reviewed, wanted, "one review per create");
    assert!(seen.iter().all(|r| r.http == http::Version::HTTP_2));
    let connections = webhook.connections();
    assert!(
        (1..=MOST_CONNECTIONS).contains(&connections),
        "{connections} connections for {WRITES} calls"
    );
}
