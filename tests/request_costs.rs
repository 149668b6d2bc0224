//! What one request may cost the server: JSON patches whose operations are cheap but many
//! (moves of a large value, inserts into a large array), YAML bodies whose aliases expand
//! past go-yaml's budget, and the request deadline (`?timeout=` capped by
//! `--request-timeout`) stopping the work of a request that outlives it. Costs are read
//! as the server's CPU time from `/proc/<pid>/stat`, under bounds far below what the
//! unbounded work costs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::time::Duration;

use common::Server;
use serde_json::{Value, json};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

/// The server's user plus system CPU time so far.
fn cpu(server: &Server) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", server.pid())).unwrap();
    // Fields after the command name (which may hold spaces) start at state, field 3;
    // utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // The kernel reports in USER_HZ, 100 on every Linux platform we run on.
    Duration::from_millis(ticks * 10)
}

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.expect("request");
    let code = resp.status().as_u16();
    (code, resp.json::<Value>().await.unwrap_or(Value::Null))
}

async fn create_crontab(server: &Server, name: &str) {
    let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name}, "spec": {"cronSpec": "* * * * */5", "replicas": 1}});
    let (code, created) = send(server.client().post(server.url(CT)).json(&body)).await;
    assert_eq!(code, 201, "{created}");
}

fn json_patch(server: &Server, url: String, ops: &[Value]) -> reqwest::RequestBuilder {
    server
        .client()
        .patch(url)
        .header("content-type", "application/json-patch+json")
        .body(serde_json::to_vec(ops).unwrap())
}

/// The patch: one `add` of 100,000 empty arrays, then 9,998 moves of that value
/// back and forth (each move re-walked the whole value before: 54 s of CPU in release).
fn moves_patch() -> Vec<Value> {
    let mut ops =
        vec![json!({"op": "add", "path": "/spec/junk", "value": vec![json!([]); 100_000]})];
    for i in 0..9_998 {
        let (from, to) = match i % 2 {
            0 => ("/spec/junk", "/spec/junk2"),
            _ => ("/spec/junk2", "/spec/junk"),
        };
        ops.push(json!({"op": "move", "from": from, "path": to}));
    }
    ops
}

#[tokio::test]
async fn json_patch_many_moves_of_large_value_costs_linear_cpu() {
    let server = Server::start();
    create_crontab(&server, "moves").await;
    let ops = moves_patch();
    let body_len = serde_json::to_vec(&ops).unwrap().len();
    assert!(body_len > 800_000, "the issue's 850 KB body: {body_len}");
    let before = cpu(&server);
    let (code, patched) = send(json_patch(
        &server,
        server.url(&format!("{CT}/moves")),
        &ops,
    ))
    .await;
    let spent = cpu(&server) - before;
    assert_eq!(code, 200, "{patched}");
    // The CronTab schema prunes the unknown fields; the object is otherwise patched.
    assert_eq!(
        patched["spec"],
        json!({"cronSpec": "* * * * */5", "replicas": 1})
    );
    assert!(
        spent < Duration::from_secs(5),
        "the patch took {spent:?} of server CPU"
    );
}

#[tokio::test]
async fn json_patch_nesting_built_by_moves_refused_without_recursion() {
    let server = Server::start();
    create_crontab(&server, "deep").await;
    // Each move nests the chain one level deeper: 2,000 levels, past the limit of 100,
    // and deep enough that a recursive drop of the refused document would be costly.
    let mut ops = vec![json!({"op": "add", "path": "/spec/c0", "value": {}})];
    for i in 1..2_000 {
        ops.push(json!({"op": "add", "path": format!("/spec/c{i}"), "value": {}}));
        ops.push(json!({"op": "move", "from": format!("/spec/c{}", i - 1), "path": format!("/spec/c{i}/x")}));
    }
    let (code, status) = send(json_patch(&server, server.url(&format!("{CT}/deep")), &ops)).await;
    assert_eq!(code, 400, "{status}");
    assert_eq!(status["reason"], "BadRequest");
    assert_eq!(
        status["message"],
        "error decoding request body: nesting deeper than 100 levels"
    );
    let (_, stored) = send(server.client().get(server.url(&format!("{CT}/deep")))).await;
    assert_eq!(
        stored["spec"],
        json!({"cronSpec": "* * * * */5", "replicas": 1})
    );
    let livez = server
        .client()
        .get(server.url("/livez"))
        .send()
        .await
        .unwrap();
    assert_eq!(livez.status(), 200, "the server survived the deep document");
}

/// 400,000 numbers, then 9,999 inserts at the front: each insert moves the whole array
/// (about 13 MB), some 15–25 s of CPU in all, far past the deadlines used here.
fn inserts_patch() -> Vec<Value> {
    let mut ops = vec![json!({"op": "add", "path": "/spec/junk", "value": vec![0; 400_000]})];
    ops.extend((0..9_999).map(|_| json!({"op": "add", "path": "/spec/junk/0", "value": 1})));
    ops
}

#[tokio::test]
async fn json_patch_past_deadline_504_stops_cpu_and_stores_nothing() {
    let server = Server::start_with(&["--request-timeout", "2s"]);
    create_crontab(&server, "slow").await;
    let ops = inserts_patch();
    // The request's own timeout, and one above --request-timeout (capped to it).
    for timeout in ["500ms", "1h"] {
        let url = server.url(&format!("{CT}/slow?timeout={timeout}"));
        let before = cpu(&server);
        let (code, status) = send(json_patch(&server, url, &ops)).await;
        assert_eq!(code, 504, "timeout={timeout}: {status}");
        assert_eq!(status["reason"], "Timeout");
        assert_eq!(
            status["message"],
            "Timeout: request did not complete within the allotted timeout"
        );
        // The work stops at the deadline: CPU a little past it, not the whole patch's.
        let spent = eventually_idle(&server).await - before;
        assert!(
            spent < Duration::from_secs(5),
            "timeout={timeout}: {spent:?} of server CPU"
        );
    }
    let (_, stored) = send(server.client().get(server.url(&format!("{CT}/slow")))).await;
    assert_eq!(
        stored["spec"],
        json!({"cronSpec": "* * * * */5", "replicas": 1})
    );
    assert_eq!(stored["metadata"]["generation"], 1);
}

/// The server's CPU once it stops rising (work a timed-out request left running would
/// keep it rising); fails if it has not settled within 60 s.
async fn eventually_idle(server: &Server) -> Duration {
    let mut last = cpu(server);
    common::eventually(
        Duration::from_secs(60),
        "the server's CPU to settle",
        || {
            let now = cpu(server);
            let settled = now.saturating_sub(last) <= Duration::from_millis(50);
            last = now;
            async move {
                tokio::time::sleep(Duration::from_millis(250)).await;
                settled.then_some(now)
            }
        },
    )
    .await
}

/// The billion laughs: `levels` anchors, each a list of ten aliases of the one before.
fn laughs(levels: usize) -> String {
    let mut text = String::from(
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: lol\nspec:\n  a0: &a0 [\"lol\"]\n",
    );
    for level in 1..=levels {
        let prev = format!("*a{}", level - 1);
        let items = [prev.as_str(); 10].join(",");
        text.push_str(&format!("  a{level}: &a{level} [{items}]\n"));
    }
    text
}

#[tokio::test]
async fn yaml_alias_bomb_refused_cheaply_with_go_yaml_text() {
    let server = Server::start();
    let bomb = laughs(9);
    assert!(
        bomb.len() < 600,
        "the issue's 540-byte body: {}",
        bomb.len()
    );
    let before = cpu(&server);
    for _ in 0..20 {
        let create = server
            .client()
            .post(server.url(CT))
            .header("content-type", "application/yaml")
            .body(bomb.clone());
        let (code, status) = send(create).await;
        assert_eq!(code, 400, "{status}");
        let message = status["message"].as_str().unwrap();
        assert!(
            message.contains("yaml: document contains excessive aliasing"),
            "{message}"
        );
        let apply = server
            .client()
            .patch(server.url(&format!("{CT}/lol?fieldManager=m")))
            .header("content-type", "application/apply-patch+yaml")
            .body(bomb.clone());
        let (code, status) = send(apply).await;
        assert_eq!(code, 400, "{status}");
        assert_eq!(
            status["message"],
            "error decoding YAML: error converting YAML to JSON: yaml: document contains excessive aliasing"
        );
    }
    // 40 refusals: about 27 s of CPU before (0.67 s each); a few ms each now.
    let spent = cpu(&server) - before;
    assert!(
        spent < Duration::from_secs(2),
        "40 refusals took {spent:?} of server CPU"
    );
    let (code, _) = send(server.client().get(server.url(&format!("{CT}/lol")))).await;
    assert_eq!(code, 404, "nothing was created");
}
