//! Metadata-only requests as the host's garbage collector, namespace controller and quota
//! controllers send them (issue 12, point 2), compared request for request with the
//! reference apiextensions-apiserver 0.36.4: `Accept: application/json;as=PartialObjectMetadata`
//! (and `PartialObjectMetadataList`, `meta.k8s.io/v1` and `v1beta1`, JSON and YAML) on get,
//! list, watch and writes, kube's 406 and 500 answers when the form does not fit, and the
//! foreground, orphan and namespace deletion flows those controllers drive. The requests
//! and answers are data (tests/fixtures/compat/metadata.jsonl, recorded by
//! hack/compat-oracle/metadata.py; its first line holds the CRDs). Each case replays on a
//! fresh dev server; code, media type, Warning headers and body must match, but for uids,
//! resourceVersions, timestamps and continue tokens' content.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::collections::BTreeMap;

use common::Server;
use serde_json::{Value, json};

fn records() -> Vec<Value> {
    let path = common::repo_root().join("tests/fixtures/compat/metadata.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The recorded steps of `case`.
fn steps(case: &str) -> Vec<Value> {
    let steps: Vec<Value> = records()
        .into_iter()
        .filter(|r| r["case"] == json!(case))
        .collect();
    assert!(!steps.is_empty(), "no recorded steps for {case}");
    steps
}

/// A dev server serving the recording's CRDs; the directory must outlive it.
fn start() -> (Server, tempfile::TempDir) {
    let crds = records()[0]["crds"].as_array().unwrap().clone();
    let dir = tempfile::tempdir().unwrap();
    let yaml: String = crds.iter().map(|c| format!("---\n{c}\n")).collect();
    let file = dir.path().join("metadata-crds.yaml");
    std::fs::write(&file, yaml).unwrap();
    (
        Server::start_with(&["--crd-dir", file.to_str().unwrap()]),
        dir,
    )
}

/// One answer as it came over the wire.
struct Answer {
    code: u16,
    content_type: String,
    warnings: Vec<String>,
    text: String,
}

/// The answers seen so far in a case, for the recording's templates: `{continue}`,
/// `{rv:LABEL}`, `{uid:NAME}` (hack/compat-oracle/metadata.py).
#[derive(Default)]
struct Filler {
    uids: BTreeMap<String, String>,
    labelled: BTreeMap<String, Value>,
    previous: Value,
}

impl Filler {
    fn learn(&mut self, body: &Value, label: Option<&str>) {
        self.previous = body.clone();
        if let Some(label) = label {
            self.labelled.insert(label.to_string(), body.clone());
        }
        let items = body["items"].as_array().cloned().unwrap_or_default();
        for o in std::iter::once(body).chain(&items) {
            if let (Some(uid), Some(name)) = (
                o["metadata"]["uid"].as_str(),
                o["metadata"]["name"].as_str(),
            ) {
                self.uids.insert(name.to_string(), uid.to_string());
            }
        }
    }

    fn fill(&self, text: &str) -> String {
        let pattern = regex::Regex::new(r"\{(continue|rv:[a-z]+|uid:[a-z0-9]+)\}").unwrap();
        pattern
            .replace_all(text, |c: &regex::Captures| {
                let (what, arg) = c[1].split_once(':').unwrap_or((&c[1], ""));
                match what {
                    "continue" => quote(self.previous["metadata"]["continue"].as_str().unwrap()),
                    "rv" => self.labelled[arg]["metadata"]["resourceVersion"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                    _ => self.uids[arg].clone(),
                }
            })
            .into_owned()
    }
}

/// Python's `urllib.parse.quote(s, safe='')`.
fn quote(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Sends a step as the recorder did, its templates filled from our own answers.
async fn send(server: &Server, step: &Value, filler: &Filler) -> Answer {
    let client = server.client();
    let mut body = step["body"]
        .as_str()
        .map(str::to_string)
        .or_else(|| step.get("body").map(|b| b.to_string()))
        .map(|text| filler.fill(&text));
    let path = filler.fill(step["path"].as_str().unwrap());
    if step["fill_rv"] == json!(true) {
        let current: Value = client
            .get(server.url(&path))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let mut object: Value = serde_json::from_str(body.as_deref().unwrap()).unwrap();
        object["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"].clone();
        body = Some(object.to_string());
    }
    let method = reqwest::Method::from_bytes(step["method"].as_str().unwrap().as_bytes()).unwrap();
    let mut req = client.request(method, server.url(&path));
    for (name, value) in step["headers"].as_object().unwrap() {
        req = req.header(name.as_str(), value.as_str().unwrap());
    }
    if let Some(body) = body {
        req = req.body(body);
    }
    let resp = req.send().await.unwrap();
    let header =
        |v: &reqwest::header::HeaderValue| String::from_utf8_lossy(v.as_bytes()).into_owned();
    Answer {
        code: resp.status().as_u16(),
        content_type: resp
            .headers()
            .get("content-type")
            .map(header)
            .unwrap_or_default(),
        warnings: resp
            .headers()
            .get_all("warning")
            .iter()
            .map(header)
            .collect(),
        text: resp.text().await.unwrap(),
    }
}

/// A body as a value: a watch's events as a list, YAML parsed, JSON parsed, else the text.
fn parse(text: &str, content_type: &str, stream: bool) -> Value {
    if stream && !text.trim_start().starts_with("{\"kind\":\"Status\"") {
        let events = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        return Value::Array(events.map(Result::unwrap).collect());
    }
    if content_type.starts_with("application/yaml") {
        return serde_saphyr::from_str(text).unwrap();
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// Each object's uid and name in a body (objects, list items, watch events, table rows).
fn learn_uids(value: &Value, uids: &mut BTreeMap<String, String>) {
    match value {
        Value::Object(map) => {
            for holder in ["metadata", "details"].iter().filter_map(|k| map.get(*k)) {
                if let (Some(uid), Some(name)) = (holder["uid"].as_str(), holder["name"].as_str()) {
                    uids.insert(uid.to_string(), format!("<uid of {name}>"));
                }
            }
            map.values().for_each(|v| learn_uids(v, uids));
        }
        Value::Array(items) => items.iter().for_each(|v| learn_uids(v, uids)),
        _ => {}
    }
}

/// `value` with uids named after their objects (in keys too: managedFields key owner
/// references by uid), and resourceVersions, timestamps and continue tokens masked.
fn mask(value: &Value, uids: &BTreeMap<String, String>) -> Value {
    let text = |s: &str| {
        uids.iter()
            .fold(s.to_string(), |s, (uid, n)| s.replace(uid, n))
    };
    match value {
        Value::String(s) => Value::String(text(s)),
        Value::Array(items) => items.iter().map(|v| mask(v, uids)).collect(),
        Value::Object(map) => {
            let masked = map.iter().map(|(k, v)| {
                let volatile = [
                    "resourceVersion",
                    "creationTimestamp",
                    "deletionTimestamp",
                    "time",
                ];
                let v = match v {
                    Value::String(_) if volatile.contains(&k.as_str()) => json!("<volatile>"),
                    Value::String(s) if k == "continue" && !s.is_empty() => json!("<continue>"),
                    other => mask(other, uids),
                };
                (text(k), v)
            });
            Value::Object(masked.collect())
        }
        other => other.clone(),
    }
}

/// Each place where `ours` and `theirs` differ, by JSON path.
fn json_diff(at: &str, ours: &Value, theirs: &Value, diffs: &mut Vec<String>) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => json_diff(&format!("{at}.{k}"), x, y, diffs),
                    (x, y) => diffs.push(format!("{at}.{k}: {x:?}, want {y:?}")),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                json_diff(&format!("{at}[{i}]"), x, y, diffs);
            }
        }
        (a, b) if a != b => diffs.push(format!("{at}: {a}, want {b}")),
        _ => {}
    }
}

fn media_type(content_type: &str) -> String {
    let essence = content_type.split(';').next().unwrap_or_default();
    essence.trim().to_ascii_lowercase()
}

/// The recorded body, a YAML one parsed.
fn recorded(step: &Value) -> Value {
    let yaml = step["content_type"]
        .as_str()
        .is_some_and(|t| t.starts_with("application/yaml"));
    match &step["response"] {
        Value::String(text) if yaml => serde_saphyr::from_str(text).unwrap(),
        other => other.clone(),
    }
}

/// What differs between our answer and the recorded one.
fn differences(
    step: &Value,
    ours: &Answer,
    body: &Value,
    our: &BTreeMap<String, String>,
    their: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut diffs = Vec::new();
    let want_type = step["content_type"].as_str().unwrap_or_default();
    if media_type(&ours.content_type) != media_type(want_type) {
        diffs.push(format!(
            "content type {:?}, want {want_type:?}",
            ours.content_type
        ));
    }
    let want_warnings: Vec<String> = serde_json::from_value(step["warnings"].clone()).unwrap();
    if ours.warnings != want_warnings {
        diffs.push(format!(
            "warnings {:?}, want {want_warnings:?}",
            ours.warnings
        ));
    }
    if step["code"] != json!(ours.code) {
        diffs.push(format!(
            "code {}, want {}: {}",
            ours.code, step["code"], ours.text
        ));
        return diffs;
    }
    json_diff(
        "",
        &mask(body, our),
        &mask(&recorded(step), their),
        &mut diffs,
    );
    diffs
}

/// Replays `case`; every difference fails the test.
async fn assert_case(case: &str) {
    let (server, _crds) = start();
    let (mut filler, mut our, mut their) = (Filler::default(), BTreeMap::new(), BTreeMap::new());
    let mut diffs = Vec::new();
    for (i, step) in steps(case).iter().enumerate() {
        let answer = send(&server, step, &filler).await;
        let stream = step["stream"] == json!(true);
        let body = parse(
            &answer.text,
            &answer.content_type,
            stream && answer.code == 200,
        );
        filler.learn(&body, step["label"].as_str());
        learn_uids(&body, &mut our);
        learn_uids(&recorded(step), &mut their);
        for d in differences(step, &answer, &body, &our, &their) {
            diffs.push(format!(
                "[{case} step {i}] {} {} ({}): {d}",
                step["method"], step["path"], step["accept"]
            ));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

macro_rules! case_tests {
    ($($case:ident)*) => {
        $(
            #[tokio::test]
            async fn $case() {
                assert_case(stringify!($case)).await;
            }
        )*

        #[test]
        fn recording_every_case_has_a_test() {
            let tested = [$(stringify!($case)),*];
            let recorded: std::collections::BTreeSet<String> = records()
                .iter()
                .filter_map(|r| r["case"].as_str().map(str::to_string))
                .collect();
            assert_eq!(recorded.iter().map(String::as_str).collect::<Vec<_>>(), {
                let mut t = tested.to_vec();
                t.sort();
                t
            });
        }
    };
}

case_tests! {
    metadata_get
    metadata_list
    metadata_watch
    metadata_writes
    foreground_deletion
    orphan_deletion
    namespace_deletion
}

/// Past one storage read (64 keys), the count still covers every key after the page, in a
/// metadata list as in the plain one; the last page has none.
#[tokio::test]
async fn list_limit_past_one_storage_chunk_counts_every_remaining_item() {
    let server = Server::start();
    let client = server.client();
    let ct = "/apis/stable.example.com/v1/namespaces/default/crontabs";
    for i in 0..70 {
        let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                          "metadata": {"name": format!("c{i:02}")}, "spec": {}});
        let resp = client
            .post(server.url(ct))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 201);
    }
    let metadata = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    for accept in [metadata, "application/json"] {
        let mut query = String::new();
        for (limit, count, remaining) in [(2, 2, Some(68)), (66, 66, Some(2)), (66, 2, None)] {
            let url = server.url(&format!("{ct}?limit={limit}{query}"));
            let page: Value = common::json_of(client.get(url).header("accept", accept)).await;
            let meta = &page["metadata"];
            assert_eq!(page["items"].as_array().unwrap().len(), count, "{meta}");
            assert_eq!(
                meta.get("remainingItemCount"),
                remaining.map(|n| json!(n)).as_ref()
            );
            query = format!(
                "&continue={}",
                quote(meta["continue"].as_str().unwrap_or(""))
            );
        }
    }
}
