//! What differs between two servers answering the same admission scenario and is not
//! behaviour: objects' uid, timestamps, resourceVersion, managedFields times and the order
//! of managedFields entries (which follows their times) (and a
//! deletion Status's `details.uid`); a review's
//! uid, requesting user's name (the reference's `admin`, our dev `dev-admin`) and
//! certificate digest; the webhook's address and the reviews' uids inside messages
//! (`Post "https://127.0.0.1:<port>/slow?timeout=1s"`, `expected response.uid="<uid>"`).

use serde_json::{Value, json};

/// Masks volatile metadata everywhere inside `value` (list items, review objects, a
/// DELETE's Status `details.uid`).
pub fn mask_metadata(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(uid) = map.get_mut("details").and_then(|d| d.get_mut("uid")) {
                *uid = json!("<volatile>");
            }
            if let Some(Value::Object(meta)) = map.get_mut("metadata") {
                for key in ["uid", "creationTimestamp", "resourceVersion"] {
                    if let Some(v) = meta.get_mut(key) {
                        *v = json!("<volatile>");
                    }
                }
                if let Some(entries) = meta.get_mut("managedFields").and_then(Value::as_array_mut) {
                    for entry in entries.iter_mut() {
                        if let Some(time) = entry.get_mut("time") {
                            *time = json!("<time>");
                        }
                    }
                    // kube orders entries by operation, then time in seconds, then manager:
                    // two writes within a second or not reorder them.
                    entries.sort_by_key(|e| e.to_string());
                }
            }
            map.values_mut().for_each(mask_metadata);
        }
        Value::Array(items) => items.iter_mut().for_each(mask_metadata),
        _ => {}
    }
}

/// Replaces `from` by `to` in every string inside `value`.
pub fn replace_in_strings(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::String(s) if s.contains(from) => *s = s.replace(from, to),
        Value::Object(map) => map
            .values_mut()
            .for_each(|v| replace_in_strings(v, from, to)),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| replace_in_strings(v, from, to)),
        _ => {}
    }
}

/// kube's x509 authenticator's `userInfo.extra` key: `X509SHA256=<certificate digest>`.
const CREDENTIAL_ID: &str = "authentication.kubernetes.io/credential-id";

/// A received review (`{path, request}`) without what differs from server to server:
/// the request's uid, the requesting user's name and certificate digest (kept present),
/// objects' volatile metadata.
pub fn mask_review(review: &Value) -> Value {
    let mut review = review.clone();
    let request = &mut review["request"];
    if request.get("uid").is_some() {
        request["uid"] = json!("<uid>");
    }
    let user = &mut request["userInfo"];
    if user.get("username").is_some() {
        user["username"] = json!("<requester>");
    }
    if let Some(id) = user["extra"].get_mut(CREDENTIAL_ID) {
        *id = json!(["<certificate digest>"]);
    }
    mask_metadata(request);
    review
}

/// Reviews as a multiset: validating webhooks are called in parallel, so the order in
/// which a webhook receives them is not behaviour.
pub fn sorted_reviews(reviews: &[Value]) -> Vec<Value> {
    let mut masked: Vec<Value> = reviews.iter().map(mask_review).collect();
    masked.sort_by_key(|r| r.to_string());
    masked
}

/// Each place where `ours` and `theirs` differ, by JSON path.
pub fn json_diff(at: &str, ours: &Value, theirs: &Value, diffs: &mut Vec<String>) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => json_diff(&format!("{at}.{k}"), x, y, diffs),
                    (x, y) => diffs.push(format!("{at}.{k}: {}, want {}", shown(x), shown(y))),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                json_diff(&format!("{at}[{i}]"), x, y, diffs);
            }
        }
        (a, b) if a != b => diffs.push(format!("{at}: {}, want {}", cut(a), cut(b))),
        _ => {}
    }
}

fn shown(v: Option<&Value>) -> String {
    v.map_or("<absent>".to_string(), cut)
}

/// A value's JSON, cut to a readable length.
pub fn cut(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(400) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}
