//! The replay of the conversion recording (tests/fixtures/conversion/compare.jsonl, written by
//! hack/conversion-oracle/record.py) against our server calling the stub converter
//! (stub_converter.rs): a recorded step sent again (its body carrying the object's current
//! resourceVersion / uid where the recorder's did), a watch read as the recorder read it, and
//! what differs between our answer and the recording once the volatile parts are masked
//! (compare_masking.rs, plus Table ages, uuids and the converter's address inside messages).
//! Reviews are compared as the objects converted: every object our converter was asked to
//! convert (from which version, to which) the reference's converter was asked too; how many
//! reviews each sent is not compared (kube converts one object per review and its watch caches
//! convert every event).

use std::collections::BTreeSet;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};

use crate::common::Server;
use crate::masking::{cut, json_diff, mask_metadata, replace_in_strings};
use crate::stub_converter::{ReceivedReview, StubConverter};

/// Every recorded answer came within this (a slow converter fails after kube's 30 s).
pub const ANSWER_WITHIN: Duration = Duration::from_secs(40);

/// One answer as it came over the wire.
#[derive(Debug)]
pub struct Answer {
    pub code: u16,
    pub warnings: Vec<String>,
    pub body: Value,
}

/// The recorded steps of `scenario`, all of them when `None`.
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

/// A definition template (`$CONVERTER`, `$CLOSED`, `$CA_BUNDLE`) filled in for `converter`.
pub fn instantiate(template: &Value, converter: &StubConverter) -> Value {
    let text = template
        .to_string()
        .replace("$CONVERTER", &converter.base)
        .replace("$CLOSED", &converter.closed)
        .replace("$CA_BUNDLE", &converter.ca_bundle());
    serde_json::from_str(&text).unwrap()
}

fn object_path(path: &str) -> &str {
    let object = path.split('?').next().unwrap();
    let object = object.strip_suffix("/status").unwrap_or(object);
    object.strip_suffix("/scale").unwrap_or(object)
}

/// The step's body text, with the current object's resourceVersion and uid where recorded so.
async fn body_of(server: &Server, step: &Value) -> Option<String> {
    let text = step["body_text"].as_str()?;
    let (rv, uid) = (
        step["fill_rv"] == json!(true),
        step["fill_uid"] == json!(true),
    );
    if !rv && !uid {
        return Some(text.to_string());
    }
    let mut body: Value = serde_json::from_str(text).unwrap();
    let url = server.url(object_path(step["path"].as_str().unwrap()));
    let current = server.client().get(url).send().await.unwrap();
    if current.status() == 200 {
        let current: Value = current.json().await.unwrap();
        if rv {
            body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"].clone();
        }
        if uid {
            body["metadata"]["uid"] = current["metadata"]["uid"].clone();
        }
    }
    Some(body.to_string())
}

fn request(server: &Server, step: &Value) -> reqwest::RequestBuilder {
    let method = http::Method::from_bytes(step["method"].as_str().unwrap().as_bytes()).unwrap();
    let method = match step["method"] == json!("WATCH") {
        true => http::Method::GET,
        false => method,
    };
    // The test client gives up after 30 s; kube's answer to a converter that never answers
    // comes after its webhook client's 30 s.
    let mut req = server
        .client()
        .request(method, server.url(step["path"].as_str().unwrap()))
        .timeout(ANSWER_WITHIN);
    for (k, v) in step["headers"].as_object().unwrap() {
        req = req.header(k.as_str(), v.as_str().unwrap());
    }
    req
}

/// Sends one HTTP step as recorded.
pub async fn send(server: &Server, step: &Value) -> Result<Answer, String> {
    let mut req = request(server, step);
    if let Some(body) = body_of(server, step).await {
        req = req.body(body);
    }
    let answer = async {
        let resp = req.send().await.map_err(|e| e.to_string())?;
        let code = resp.status().as_u16();
        let warnings = resp.headers().get_all("warning").iter();
        let warnings = warnings
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect();
        let text = resp.text().await.map_err(|e| e.to_string())?;
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Ok(Answer {
            code,
            warnings,
            body,
        })
    };
    match tokio::time::timeout(ANSWER_WITHIN, answer).await {
        Ok(answer) => answer,
        Err(_) => Err(format!("no answer within {ANSWER_WITHIN:?}")),
    }
}

/// A watch's event lines: reads `initial` events, then (after the caller's `during` steps,
/// run by `between`) every event until the server ends the watch.
pub async fn watch<F, Fut>(server: &Server, step: &Value, between: F) -> Result<Vec<Value>, String>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let resp = request(server, step)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if resp.status() != 200 {
        return Err(format!("watch answered {}", resp.status()));
    }
    let mut stream = resp.bytes_stream();
    let (mut buffer, mut events) = (Vec::new(), Vec::new());
    let initial = step["initial"].as_u64().unwrap() as usize;
    let mut read_until = async |events: &mut Vec<Value>, enough: Option<usize>| {
        while enough.is_none_or(|n| events.len() < n) {
            while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = buffer.drain(..=end).collect();
                events.push(serde_json::from_slice(&line).map_err(|e| e.to_string())?);
            }
            if enough.is_some_and(|n| events.len() >= n) {
                break;
            }
            match tokio::time::timeout(ANSWER_WITHIN, stream.next()).await {
                Ok(Some(Ok(chunk))) => buffer.extend_from_slice(&chunk),
                Ok(Some(Err(e))) => return Err(e.to_string()),
                Ok(None) => break,
                Err(_) => return Err("watch events stopped".to_string()),
            }
        }
        Ok(())
    };
    read_until(&mut events, Some(initial)).await?;
    between().await;
    read_until(&mut events, None).await?;
    Ok(events)
}

/// The UUIDs, the converter's and the closed port's `host:port` inside strings.
pub fn mask_strings(value: &mut Value, converter: &str, closed: &str) {
    let host = |url: &str| url.trim_start_matches("https://").to_string();
    replace_in_strings(value, &host(converter), "<converter>");
    replace_in_strings(value, &host(closed), "<closed>");
    mask_uuids(value);
}

fn mask_uuids(value: &mut Value) {
    let uuid =
        regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap();
    match value {
        Value::String(s) if uuid.is_match(s) => *s = uuid.replace_all(s, "<uuid>").into_owned(),
        Value::Object(map) => map.values_mut().for_each(mask_uuids),
        Value::Array(items) => items.iter_mut().for_each(mask_uuids),
        _ => {}
    }
}

/// A Table's `Age` cells (they count seconds since creation).
fn mask_ages(value: &mut Value) {
    if value["kind"] != json!("Table") {
        return;
    }
    let columns = value["columnDefinitions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let Some(age) = columns.iter().position(|c| c["name"] == json!("Age")) else {
        return;
    };
    for row in value["rows"].as_array_mut().into_iter().flatten() {
        if let Some(cell) = row["cells"].get_mut(age) {
            *cell = json!("<age>");
        }
    }
}

/// A list's continue token (opaque: each server encodes its own position in it).
fn mask_continue(value: &mut Value) {
    let token = value
        .get_mut("metadata")
        .and_then(|m| m.get_mut("continue"));
    if let Some(token) = token
        && token.as_str().is_some_and(|t| !t.is_empty())
    {
        *token = json!("<continue>");
    }
}

/// `value` without what differs from run to run.
pub fn masked(value: &Value, converter: &str, closed: &str) -> Value {
    let mut value = value.clone();
    mask_strings(&mut value, converter, closed);
    mask_metadata(&mut value);
    mask_ages(&mut value);
    mask_continue(&mut value);
    value
}

/// What differs between our answer and the step's recording (code, Warning headers, body).
pub fn differences(step: &Value, ours: &Answer, at: &StubConverter) -> Vec<String> {
    let (their_converter, their_closed) = (
        step["converter"].as_str().unwrap(),
        step["closed"].as_str().unwrap(),
    );
    let want = masked(&step["response"], their_converter, their_closed);
    let body = masked(&ours.body, &at.base, &at.closed);
    let mut diffs = Vec::new();
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
    if ours.warnings != want_warnings {
        diffs.push(format!(
            "warnings {:?}, want {want_warnings:?}",
            ours.warnings
        ));
    }
    if step["code"] == json!(ours.code) {
        json_diff("body", &body, &want, &mut diffs);
    }
    diffs
}

/// What differs between a watch's events and the recorded ones.
pub fn event_differences(step: &Value, ours: &[Value], at: &StubConverter) -> Vec<String> {
    let (their_converter, their_closed) = (
        step["converter"].as_str().unwrap(),
        step["closed"].as_str().unwrap(),
    );
    let want = masked(&step["events"], their_converter, their_closed);
    let got = masked(&Value::Array(ours.to_vec()), &at.base, &at.closed);
    let mut diffs = Vec::new();
    let types = |events: &Value| -> Vec<String> {
        let events = events.as_array().unwrap().iter();
        events
            .map(|e| format!("{} {}", e["type"], e["object"]["metadata"]["name"]))
            .collect()
    };
    match types(&got) == types(&want) {
        true => json_diff("events", &got, &want, &mut diffs),
        false => diffs.push(format!("events {:?}, want {:?}", types(&got), types(&want))),
    }
    diffs
}

/// `(desired apiVersion, object's apiVersion, name)`: one object converted.
pub type Converted = BTreeSet<(String, String, String)>;

/// The objects converted in a step's recorded `reviews` (and its watch's `during` steps').
pub fn converted_recorded(step: &Value) -> Converted {
    let mut out = BTreeSet::new();
    for review in step["reviews"].as_array().into_iter().flatten() {
        let desired = review["desired"].as_str().unwrap_or_default().to_string();
        for object in review["objects"].as_array().unwrap() {
            let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
            out.insert((desired.clone(), text(&object[0]), text(&object[1])));
        }
    }
    for inner in step["during"].as_array().into_iter().flatten() {
        out.extend(converted_recorded(inner));
    }
    out
}

fn converted_ours(reviews: &[ReceivedReview]) -> Converted {
    let mut out = BTreeSet::new();
    for review in reviews {
        for object in review.objects() {
            let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
            let (version, name) = (&object["apiVersion"], &object["metadata"]["name"]);
            out.insert((review.desired().to_string(), text(version), text(name)));
        }
    }
    out
}

/// Objects our converter was asked to convert which the reference's converter was not
/// asked to convert by then (`theirs`: every object it converted up to this step and the
/// next one — its watch caches convert at ingest, before the read that needs it, and a
/// conversion can land just after the step's answer). Only for a step the reference
/// answered without error: a failing page is one review of all its objects here, while kube
/// stops at the first object it fails to convert.
pub fn conversion_differences(
    step: &Value,
    theirs: &Converted,
    ours: &[ReceivedReview],
) -> Vec<String> {
    if step["code"].as_u64().is_none_or(|code| code >= 400) {
        return Vec::new();
    }
    let extra: Vec<_> = converted_ours(ours).difference(theirs).cloned().collect();
    match extra.is_empty() {
        true => Vec::new(),
        false => vec![format!(
            "converted (to, from, name) {extra:?}, which the reference never converted by then"
        )],
    }
}

/// One metric line in a form both expositions share: kube's is Prometheus text 0.0.4, ours
/// OpenMetrics (the project's `/metrics`), which names a counter family without `_total`,
/// ends HELP texts with a period and orders labels its own way. So `_total` is dropped from
/// names, one trailing period from HELP texts, labels are sorted and values dropped.
fn canonical(line: &str) -> String {
    let strip = |n: &str| n.strip_suffix("_total").unwrap_or(n).to_string();
    if let Some(rest) = line.strip_prefix("# ") {
        let mut words = rest.splitn(3, ' ');
        let (what, family) = (
            words.next().unwrap_or_default(),
            words.next().unwrap_or_default(),
        );
        let text = words.next().unwrap_or_default();
        let text = text.strip_suffix('.').unwrap_or(text);
        return format!("# {what} {} {text}", strip(family));
    }
    let series = line.rsplit_once(' ').map_or(line, |(s, _)| s);
    let (metric, labels) = match series.split_once('{') {
        Some((m, l)) => (m, l.trim_end_matches('}')),
        None => (series, ""),
    };
    let mut pairs: Vec<&str> = labels.split(',').filter(|p| !p.is_empty()).collect();
    pairs.sort_unstable();
    format!("{}{{{}}}", strip(metric), pairs.join(","))
}

/// The recorded metric HELP/TYPE lines and failure series (names with labels) our `/metrics`
/// lacks. Values and success series are not compared: the call patterns differ (one review per
/// page or event here; kube also counts same-version conversions as successes).
pub fn metric_differences(ours: &str, recorded: &[String]) -> Vec<String> {
    let compared = |line: &&String| {
        let failure = line.contains("result=\"failure\"") || line.contains("succeeded=\"false\"");
        line.starts_with('#') || (failure && !line.contains("_bucket{"))
    };
    let ours: BTreeSet<String> = ours.lines().map(canonical).collect();
    let recorded = recorded.iter().filter(compared).map(|l| canonical(l));
    let missing = recorded.filter(|s| !ours.contains(s));
    missing.map(|s| format!("metrics: no {s}")).collect()
}

#[test]
fn canonical_metric_lines_match_across_expositions() {
    let cases = [
        (
            "# HELP apiserver_conversion_webhook_request_total [ALPHA] Counter for x",
            "# HELP apiserver_conversion_webhook_request [ALPHA] Counter for x.",
        ),
        (
            "# TYPE apiserver_conversion_webhook_request_total counter",
            "# TYPE apiserver_conversion_webhook_request counter",
        ),
        (
            "apiserver_conversion_webhook_request_total{failure_type=\"f\",result=\"failure\"} 3",
            "apiserver_conversion_webhook_request_total{result=\"failure\",failure_type=\"f\"} 1",
        ),
    ];
    for (kube, ours) in cases {
        assert_eq!(canonical(kube), canonical(ours), "{kube} / {ours}");
    }
}
