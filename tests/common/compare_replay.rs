//! The replay of a reference recording (tests/fixtures/{admission,policy}/compare.jsonl,
//! written by hack/{admission,policy}-oracle/record.py), shared by admission_compare.rs and
//! policy_compare.rs: a recorded step sent again exactly (method, path, headers, body; a PUT
//! carrying the object's current resourceVersion as the recorder's did), and what differs between
//! our answer (code, Warning headers, body; the reviews our stub webhook received) and the
//! recording once the volatile parts are masked (compare_masking.rs).

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::Server;
use crate::masking::{cut, json_diff, mask_metadata, replace_in_strings, sorted_reviews};
use crate::webhook_host::{self, Answer};

/// Every recorded answer came within this (the slow webhook's timeout is 1 s, the
/// reference waits 10 s at most for its informers).
pub const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// The recorded steps of `path`, those of `scenario` only when given.
pub fn read_steps(path: &std::path::Path, scenario: Option<&str>) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let steps: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|s: &Value| scenario.is_none_or(|c| s["scenario"] == json!(c)))
        .collect();
    assert!(!steps.is_empty(), "no recorded steps for {scenario:?}");
    steps
}

pub async fn send(server: &Server, step: &Value) -> Result<Answer, String> {
    let method = http::Method::from_bytes(step["method"].as_str().unwrap().as_bytes()).unwrap();
    let path = step["path"].as_str().unwrap();
    let mut req = server.client().request(method, server.url(path));
    for (k, v) in step["headers"].as_object().unwrap() {
        req = req.header(k.as_str(), v.as_str().unwrap());
    }
    if let Some(text) = step["body_text"].as_str() {
        let body = match step["fill_rv"] == json!(true) {
            true => with_current_rv(server, path, text).await,
            false => text.to_string(),
        };
        req = req.body(body);
    }
    let answer = async {
        let resp = req.send().await.map_err(|e| e.to_string())?;
        webhook_host::answer(resp).await
    };
    match tokio::time::timeout(ANSWER_WITHIN, answer).await {
        Ok(answer) => answer,
        Err(_) => Err(format!("no answer within {ANSWER_WITHIN:?}")),
    }
}

/// A PUT body carrying the object's current resourceVersion, as the recorder's did.
pub async fn with_current_rv(server: &Server, path: &str, text: &str) -> String {
    let object = path.split('?').next().unwrap();
    let object = object.strip_suffix("/status").unwrap_or(object);
    let object = object.strip_suffix("/scale").unwrap_or(object);
    let mut body: Value = serde_json::from_str(text).unwrap();
    let current = server
        .client()
        .get(server.url(object))
        .send()
        .await
        .unwrap();
    if current.status() == 200 {
        let current: Value = current.json().await.unwrap();
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"].clone();
    }
    body.to_string()
}

/// The strings that differ from run to run inside messages and how both sides show them:
/// the webhook's and the closed port's `host:port`, and the uids of the reviews sent (a
/// wrong-uid answer quotes them).
pub fn volatiles(webhook: &str, closed: &str, reviews: &[Value]) -> Vec<(String, String)> {
    let host = |url: &str| url.trim_start_matches("https://").to_string();
    let mut pairs = vec![
        (host(webhook), "<webhook>".to_string()),
        (host(closed), "<closed>".to_string()),
    ];
    for uid in reviews.iter().filter_map(|r| r["request"]["uid"].as_str()) {
        pairs.push((uid.to_string(), "<review uid>".to_string()));
    }
    pairs
}

pub fn masked(value: &Value, volatiles: &[(String, String)]) -> Value {
    let mut value = value.clone();
    for (from, to) in volatiles {
        replace_in_strings(&mut value, from, to);
    }
    mask_metadata(&mut value);
    value
}

/// Where the webhook that answered `ours` listened: its `$WEBHOOK` and `$CLOSED`.
pub struct Addresses<'a> {
    pub webhook: &'a str,
    pub closed: &'a str,
}

/// What differs between our answer (and the reviews our webhook, at `at`, received) and
/// the step's recording.
pub fn differences(step: &Value, ours: &Answer, reviews: &[Value], at: &Addresses) -> Vec<String> {
    let recorded = step["reviews"].as_array().unwrap();
    let theirs = volatiles(
        step["webhook"].as_str().unwrap(),
        step["closed"].as_str().unwrap(),
        recorded,
    );
    let our = volatiles(at.webhook, at.closed, reviews);
    let mut diffs = Vec::new();
    let want = masked(&step["response"], &theirs);
    let body = masked(&ours.body, &our);
    if step["code"] != json!(ours.code) {
        diffs.push(format!(
            "code {}, want {}: got {}; want {}",
            ours.code,
            step["code"],
            cut(&body),
            cut(&want)
        ));
    }
    let want_warnings: Vec<String> = serde_json::from_value(step["warnings"].clone()).unwrap();
    let sorted = |mut w: Vec<String>| {
        w.sort();
        w
    };
    if sorted(ours.warnings.clone()) != sorted(want_warnings.clone()) {
        diffs.push(format!(
            "warnings {:?}, want {want_warnings:?}",
            ours.warnings
        ));
    }
    if step["code"] == json!(ours.code) {
        json_diff("body", &body, &want, &mut diffs);
    }
    let want_reviews = masked(&Value::Array(sorted_reviews(recorded)), &theirs);
    let our_reviews = masked(&Value::Array(sorted_reviews(reviews)), &our);
    let paths = |r: &Value| -> Vec<Value> {
        r.as_array()
            .unwrap()
            .iter()
            .map(|r| r["path"].clone())
            .collect()
    };
    if paths(&want_reviews).len() != paths(&our_reviews).len() {
        diffs.push(format!(
            "reviews to {:?}, want {:?}",
            paths(&our_reviews),
            paths(&want_reviews)
        ));
    } else {
        json_diff("reviews", &our_reviews, &want_reviews, &mut diffs);
    }
    diffs
}
