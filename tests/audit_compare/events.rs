//! What differs between an audit event we write and the reference's for the same request,
//! once the parts that must differ are masked: the auditID (unless the client chose it), the
//! timestamps (checked for kube's MicroTime form and their order first), objects' uids,
//! resourceVersions, creationTimestamps and managedFields times, the requester's name (the
//! reference's certificate user `admin`, our dev `dev-admin`) and certificate digest, and the
//! latency annotations of slow requests. Field order
//! is compared too: kube writes Go's struct order, for the event and its `user`, `objectRef` and
//! `responseStatus`.

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};

use crate::masking::{json_diff, mask_metadata};

/// The keys of a JSON object in the order written.
struct Keys(Vec<String>);

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Keys, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = Keys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(Keys(keys))
            }
        }
        d.deserialize_map(KeysVisitor)
    }
}

/// The nested objects whose key order is compared besides the event's own.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Nested {
    user: Option<Keys>,
    object_ref: Option<Keys>,
    response_status: Option<Keys>,
}

/// The key orders of `line`: the event's, then its user's, objectRef's, responseStatus's.
fn key_orders(line: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    let top: Keys = serde_json::from_str(line).map_err(|e| format!("not a JSON object: {e}"))?;
    let nested: Nested = serde_json::from_str(line).map_err(|e| e.to_string())?;
    let mut out = vec![("event".to_string(), top.0)];
    for (name, keys) in [
        ("user", nested.user),
        ("objectRef", nested.object_ref),
        ("responseStatus", nested.response_status),
    ] {
        if let Some(keys) = keys {
            out.push((name.to_string(), keys.0));
        }
    }
    Ok(out)
}

/// kube's `metav1.MicroTime` in UTC: `2026-12-07T13:49:21.156182Z`.
fn is_micro_time(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| r.into_iter().all(|i| b[i].is_ascii_digit());
    b.len() == 27
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'.'
        && digits(20..26)
        && b[26] == b'Z'
}

/// Go's `time.RFC3339Nano` in UTC: `2026-12-07T14:14:38.02603658Z`, trailing zeros of the
/// fraction trimmed (the whole fraction when zero).
fn is_rfc3339_nano(text: &str) -> bool {
    let Some(seconds) = text.get(..19) else {
        return false;
    };
    let fraction = text[19..].strip_suffix('Z').unwrap_or("?");
    let fraction_ok = match fraction.strip_prefix('.') {
        Some(digits) => {
            (1..=9).contains(&digits.len())
                && digits.bytes().all(|b| b.is_ascii_digit())
                && !digits.ends_with('0')
        }
        None => fraction.is_empty(),
    };
    is_micro_time(&format!("{seconds}.000000Z")) && fraction_ok
}

/// Checks an event's timestamps (form and order) and replaces them.
fn mask_times(event: &mut Value, diffs: &mut Vec<String>) {
    let received = event["requestReceivedTimestamp"]
        .as_str()
        .unwrap_or_default();
    let stage = event["stageTimestamp"].as_str().unwrap_or_default();
    for (name, t) in [
        ("requestReceivedTimestamp", received),
        ("stageTimestamp", stage),
    ] {
        if !is_micro_time(t) {
            diffs.push(format!("{name} {t:?} is not a MicroTime"));
        }
    }
    // Same form, so the text order is the time order.
    if stage < received {
        diffs.push(format!(
            "stageTimestamp {stage} before requestReceivedTimestamp {received}"
        ));
    }
    if event["stage"] == json!("RequestReceived") && stage != received {
        diffs.push(format!("RequestReceived's stageTimestamp {stage} is not its requestReceivedTimestamp {received}"));
    }
    for name in ["requestReceivedTimestamp", "stageTimestamp"] {
        if event.get(name).is_some() {
            event[name] = json!("<time>");
        }
    }
}

/// kube's x509 authenticator's `userInfo.extra` key.
const CREDENTIAL_ID: &str = "authentication.kubernetes.io/credential-id";

/// `event` without what differs from server to server.
fn masked(mut event: Value, client_chose_id: bool, diffs: &mut Vec<String>) -> Value {
    mask_times(&mut event, diffs);
    if !client_chose_id && event.get("auditID").is_some() {
        event["auditID"] = json!("<audit id>");
    }
    let user = &mut event["user"];
    if user["extra"].get(CREDENTIAL_ID).is_some() {
        // A certificate user: the reference's `admin`, our dev `dev-admin`.
        user["username"] = json!("<certificate user>");
        user["extra"][CREDENTIAL_ID] = json!(["<certificate digest>"]);
    }
    if let Some(reference) = event.get_mut("objectRef") {
        for key in ["uid", "resourceVersion"] {
            if reference.get(key).is_some() {
                reference[key] = json!("<volatile>");
            }
        }
    }
    for key in ["requestObject", "responseObject", "responseStatus"] {
        if let Some(object) = event.get_mut(key) {
            mask_metadata(object);
        }
    }
    if let Some(Value::Object(annotations)) = event.get_mut("annotations") {
        annotations.retain(|k, _| !k.starts_with(LATENCY));
        if annotations.is_empty() {
            event.as_object_mut().map(|e| e.remove("annotations"));
        }
    }
    event
}

/// kube's latency annotations, written only when a request took over 500 ms: timing, not
/// behaviour.
const LATENCY: &str = "apiserver.latency.k8s.io/";

/// Each difference between our event lines and the recorded ones of one request; their
/// fields' order too when `ordered` (the lines are as written, not re-encoded).
pub fn differences(
    ours: &[String],
    recorded: &[String],
    client_chose_id: bool,
    ordered: bool,
) -> Vec<String> {
    let mut diffs = Vec::new();
    let stages = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap_or(Value::Null);
                v["stage"].as_str().unwrap_or("<no stage>").to_string()
            })
            .collect()
    };
    if stages(ours) != stages(recorded) {
        diffs.push(format!(
            "stages {:?}, want {:?}",
            stages(ours),
            stages(recorded)
        ));
        return diffs;
    }
    for (i, (ours, theirs)) in ours.iter().zip(recorded).enumerate() {
        let at = format!("event {i}");
        match (key_orders(ours), key_orders(theirs)) {
            _ if !ordered => {}
            (Ok(a), Ok(b)) => {
                for ((name, a), (_, b)) in a.iter().zip(&b) {
                    if a != b {
                        diffs.push(format!("{at}: {name} fields in order {a:?}, want {b:?}"));
                    }
                }
            }
            (Err(e), _) => diffs.push(format!("{at}: {e}: {ours}")),
            (_, Err(e)) => panic!("recorded event unreadable: {e}"),
        }
        let ours = serde_json::from_str(ours).unwrap_or(Value::Null);
        let theirs = serde_json::from_str(theirs).unwrap();
        let mut event_diffs = Vec::new();
        let ours = masked(ours, client_chose_id, &mut event_diffs);
        let theirs = masked(theirs, client_chose_id, &mut Vec::new());
        json_diff(&at, &ours, &theirs, &mut event_diffs);
        diffs.extend(event_diffs.into_iter().map(|d| format!("{at}: {d}")));
    }
    diffs
}

/// Each difference between our legacy-format lines and the recorded ones: the leading
/// timestamp (checked for Go's RFC3339Nano form), the id (unless the client chose it) and the
/// certificate user's name are masked.
pub fn legacy_differences(
    ours: &[String],
    recorded: &[String],
    client_chose_id: bool,
) -> Vec<String> {
    let mask = |line: &str| -> String {
        let (time, rest) = line.split_once(' ').unwrap_or(("", line));
        let time_ok = is_rfc3339_nano(time);
        let mut rest = rest.to_string();
        if let (false, Some(start)) = (client_chose_id, rest.find("id=\"")) {
            let end = rest[start + 4..]
                .find('"')
                .map_or(rest.len(), |e| start + 4 + e);
            rest.replace_range(start + 4..end, "<audit id>");
        }
        let rest = rest
            .replacen(" user=\"admin\" ", " user=\"<certificate user>\" ", 1)
            .replacen(" user=\"dev-admin\" ", " user=\"<certificate user>\" ", 1);
        format!("{} {rest}", if time_ok { "<time>" } else { time })
    };
    let ours: Vec<String> = ours.iter().map(|l| mask(l)).collect();
    let theirs: Vec<String> = recorded.iter().map(|l| mask(l)).collect();
    let mut diffs = Vec::new();
    if ours.len() != theirs.len() {
        diffs.push(format!("{} lines, want {}", ours.len(), theirs.len()));
    }
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        if a != b {
            diffs.push(format!("line {i}:\n   ours {a}\n   want {b}"));
        }
    }
    diffs
}

#[test]
fn micro_time_form_is_checked() {
    assert!(is_micro_time("2026-12-07T13:49:21.156182Z"));
    assert!(!is_micro_time("2026-12-07T13:49:21.156Z"));
    assert!(!is_micro_time("2026-12-07T13:49:21.156182000Z"));
    assert!(!is_micro_time("2026-12-07 13:49:21.156182Z"));
    assert!(is_rfc3339_nano("2026-12-07T14:14:38.02603658Z"));
    assert!(is_rfc3339_nano("2026-12-07T14:14:38.767367347Z"));
    assert!(is_rfc3339_nano("2026-12-07T14:14:38Z"));
    assert!(!is_rfc3339_nano("2026-12-07T14:14:38.026036580Z"));
    assert!(!is_rfc3339_nano("2026-12-07T14:14:38.0260365801Z"));
}

#[test]
fn key_order_difference_is_reported() {
    let theirs = r#"{"kind":"Event","level":"Metadata","stage":"ResponseComplete","requestReceivedTimestamp":"2026-12-07T13:49:21.156182Z","stageTimestamp":"2026-12-07T13:49:21.156182Z","user":{"username":"a","groups":["g"]}}"#;
    let ours = r#"{"level":"Metadata","kind":"Event","stage":"ResponseComplete","requestReceivedTimestamp":"2026-12-07T13:49:21.156182Z","stageTimestamp":"2026-12-07T13:49:21.156182Z","user":{"groups":["g"],"username":"a"}}"#;
    let diffs = differences(&[ours.into()], &[theirs.into()], false, true);
    assert_eq!(diffs.len(), 2, "{diffs:?}");
    assert!(differences(&[ours.into()], &[theirs.into()], false, false).is_empty());
    assert!(differences(&[theirs.into()], &[theirs.into()], false, true).is_empty());
}
