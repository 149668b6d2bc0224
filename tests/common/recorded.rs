//! Answers recorded from the reference server, compared with ours: code, Status fields,
//! causes and Warning headers. Causes of different properties and warnings come in Go map
//! order there, so both compare as multisets, and an aggregated message must list our own
//! causes after the reference's prefix.

use serde_json::{Value, json};

/// An object keeps only `metadata.name`, as recorded; a Status is kept whole.
pub fn strip(body: Value) -> Value {
    match body {
        Value::Object(mut map) if map.get("kind") != Some(&json!("Status")) => {
            let name = map["metadata"]["name"].clone();
            map.insert("metadata".into(), json!({"name": name}));
            Value::Object(map)
        }
        other => other,
    }
}

/// Each cause as (reason, `field: message`).
pub fn cause_texts(status: &Value) -> Vec<(String, String)> {
    let causes = status["details"]["causes"].as_array().cloned();
    let render = |c: &Value| {
        let field = c["field"].as_str().unwrap_or("<nil>");
        let text = format!("{field}: {}", c["message"].as_str().unwrap_or(""));
        (c["reason"].to_string(), text)
    };
    causes.unwrap_or_default().iter().map(render).collect()
}

/// kube's `ToAggregate`: causes printed once each (first occurrence), in brackets when
/// more than one remains.
pub fn aggregate(causes: &[(String, String)]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for (_, text) in causes {
        if !seen.contains(&text.as_str()) {
            seen.push(text);
        }
    }
    match seen.as_slice() {
        [one] => one.to_string(),
        many => format!("[{}]", many.join(", ")),
    }
}

pub fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items
}

/// Differences between our answer (`code`, `actual`, and `warnings` when the recording
/// has them) and the recorded step's `code`, `response` and `warnings`.
pub fn differences(
    expected: &Value,
    code: u16,
    actual: &Value,
    warnings: Option<&[String]>,
) -> Vec<String> {
    let want = &expected["response"];
    let mut diffs = Vec::new();
    if let Some(ours) = warnings {
        let want_warnings: Vec<String> =
            serde_json::from_value(expected["warnings"].clone()).unwrap_or_default();
        if sorted(ours.to_vec()) != sorted(want_warnings.clone()) {
            diffs.push(format!("warnings {ours:#?}, want {want_warnings:#?}"));
        }
    }
    if expected["code"] != json!(code) {
        let got: String = strip(actual.clone())
            .to_string()
            .chars()
            .take(600)
            .collect();
        diffs.push(format!(
            "code {code}, want {}: got {got}; want message {}",
            expected["code"], want["message"]
        ));
        return diffs;
    }
    if want["kind"] != json!("Status") {
        let got = strip(actual.clone());
        if got != *want {
            diffs.push(format!("body {got}, want {want}"));
        }
        return diffs;
    }
    for key in ["status", "reason", "code"] {
        if want[key] != actual[key] {
            diffs.push(format!("{key} {}, want {}", actual[key], want[key]));
        }
    }
    for key in ["name", "group", "kind"] {
        if want["details"][key] != actual["details"][key] {
            diffs.push(format!(
                "details.{key} {}, want {}",
                actual["details"][key], want["details"][key]
            ));
        }
    }
    let (our_causes, their_causes) = (cause_texts(actual), cause_texts(want));
    let message = want["message"].as_str().unwrap_or_default();
    let Some((prefix, _)) = message.split_once(" is invalid: ") else {
        if actual["message"] != want["message"] {
            diffs.push(format!("message {}, want {message:?}", actual["message"]));
        }
        return diffs;
    };
    // The recording itself: kube's message aggregates its causes.
    assert_eq!(
        message,
        format!("{prefix} is invalid: {}", aggregate(&their_causes))
    );
    let expected_message = format!("{prefix} is invalid: {}", aggregate(&our_causes));
    if actual["message"] != json!(expected_message) {
        diffs.push(format!(
            "message {}, want {expected_message:?}",
            actual["message"]
        ));
    }
    if sorted(our_causes.clone()) != sorted(their_causes.clone()) {
        diffs.push(format!("causes {our_causes:#?}, want {their_causes:#?}"));
    }
    diffs
}
