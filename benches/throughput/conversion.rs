//! Webhook conversion (`BENCH_ONLY=conversion`, never by default; issue 32's figures): one
//! server (embedded store) whose CronTab has a second served version, v2, converted by a
//! webhook — the tests' stub converter over HTTPS on this machine — with v1 stored.
//!
//! - LIST of 10,000 CronTabs at v2: the first (every object converted, cold) and then
//!   the median of `list::RUNS` (converted bytes kept in the watch cache), against LIST at v1 on the
//!   same server (no conversion). The reviews each LIST sent are counted at the converter.
//! - Watch fan-out: 1,000 watchers of v2 while one paced writer creates at v1 (100
//!   writes/s), against the same cell with 1,000 watchers of v1 — the same cell without
//!   conversion — in alternated rounds, judged on the median p99 ratio (goal ≤ 2). The
//!   conversions per event are the converter's reviews over the writes acknowledged, and
//!   the delta of `apiserver_conversion_webhook_request_total{result="success"}` over them.

use crate::common::Server;
use crate::rounds::{self, Goal, Want};
use crate::stub_converter::StubConverter;
use crate::watch::{self, GOAL_WATCHERS};
use crate::{CT, kubectl_like, list, stored};

/// The CronTabs at v2 (v1, [`CT`], is the storage version).
const CT2: &str = "/apis/stable.example.com/v2/namespaces/default/crontabs";

/// Runs the section and prints its figures.
pub async fn run() {
    let converter = StubConverter::start();
    let dir = tempfile::tempdir().unwrap();
    let crd = dir.path().join("crontabs.json");
    std::fs::write(&crd, definition(&converter).to_string()).unwrap();
    let server = Server::start_with(&["--crd-dir", crd.to_str().unwrap()]);
    stored::create_all(&kubectl_like(&server), &server.url(CT)).await;
    let objects = stored::OBJECTS;
    eprintln!("conversion: {objects} CronTabs created at v1");

    let before = converter.review_count();
    let cold = list::full_stack_at(&server, CT2, objects, "v2 (converted)").await;
    let list_reviews = converter.review_count() - before;
    let converted = converter.objects_converted();
    let plain = list::full_stack_at(&server, CT, objects, "v1 (storage)").await;

    let mut goal = Goal {
        name: format!("watch p99 at {GOAL_WATCHERS} watchers of v2, against v1"),
        want: Want::AtMost(2.0),
        rounds: Vec::new(),
    };
    let (mut events, mut reviews, mut counted) = (0.0, 0, 0.0);
    for round in 1..=rounds::rounds() {
        let base = watch::full_stack_at(&server, CT, GOAL_WATCHERS, "v1", round).await;
        let (reviews_before, counted_before) = (converter.review_count(), successes(&server).await);
        let conv = watch::full_stack_at(&server, CT2, GOAL_WATCHERS, "v2", 100 + round).await;
        reviews += converter.review_count() - reviews_before;
        counted += successes(&server).await - counted_before;
        events += conv.acknowledged as f64;
        goal.rounds.push((conv.p99_ms, base.p99_ms));
        assert_eq!(conv.missed + conv.ended, 0, "v2 watchers missed events");
    }

    println!(
        "\n## Webhook conversion (stub converter over HTTPS), {objects} CronTabs stored at v1\n"
    );
    println!("| measurement | v2 (converted) | v1 (storage version) | ratio |");
    println!("|---|---|---|---|");
    println!(
        "| LIST of {objects}, the first at v2 (all converted) and at v1, ms | {:.1} | {:.1} | {:.2} |",
        cold.first_ms,
        plain.first_ms,
        cold.first_ms / plain.first_ms
    );
    println!(
        "| LIST of {objects}, median of {} (converted bytes cached), ms | {:.1} | {:.1} | {:.2} |",
        list::RUNS,
        cold.ms,
        plain.ms,
        cold.ms / plain.ms
    );
    println!("| LIST of {objects}: reviews sent by the first at v2 | {list_reviews} | 0 | |");
    println!("| LIST of {objects}: objects converted by the first at v2 | {converted} | 0 | |");
    println!(
        "| watch at {GOAL_WATCHERS} watchers, 100 writes/s: reviews per event | {:.3} | 0 | |",
        reviews as f64 / events
    );
    println!(
        "| watch: `apiserver_conversion_webhook_request_total{{result=\"success\"}}` per event | {:.3} | 0 | |",
        counted / events
    );
    rounds::print(
        "Conversion goal, each round's v2 cell right after its v1 cell:",
        &[goal],
    );
}

/// The sum of `apiserver_conversion_webhook_request_total{result="success",…}`.
async fn successes(server: &Server) -> f64 {
    let text = server
        .client()
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .filter(|l| l.starts_with("apiserver_conversion_webhook_request_total{"))
        .filter(|l| l.contains("result=\"success\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// The example CronTab with a v2 that also has `spec.shape`, converted by `converter`.
fn definition(converter: &StubConverter) -> serde_json::Value {
    let schema = |extra: &str| {
        let mut spec = serde_json::json!({"type": "object", "properties": {
            "cronSpec": {"type": "string"}, "image": {"type": "string"},
            "replicas": {"type": "integer"}, "color": {"type": "string"}}});
        if !extra.is_empty() {
            spec["properties"][extra] = serde_json::json!({"type": "string"});
        }
        serde_json::json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}})
    };
    serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {
            "group": "stable.example.com",
            "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab",
                "listKind": "CronTabList"},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": schema("")},
                {"name": "v2", "served": true, "storage": false, "schema": schema("shape")},
            ],
            "conversion": converter.conversion("/convert", &["v1"]),
        }
    })
}
