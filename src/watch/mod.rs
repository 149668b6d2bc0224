//! Watch stage: storage events into kube watch events (`ADDED`, `MODIFIED`, `DELETED`,
//! `BOOKMARK`, `ERROR`), with selector transitions handled as kube's watch cache does.

pub mod limit;
pub mod queue;

use serde_json::{Value, json};

use crate::storage::{Event, KeyValue};

/// The type field of a watch event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
            EventType::Bookmark => "BOOKMARK",
            EventType::Error => "ERROR",
        }
    }
}

/// One storage event seen through a selector: what the watcher receives, if anything.
///
/// An update that makes an object start matching is `ADDED`, one that makes it stop
/// matching is `DELETED` (with the new state), as kube's watch cache reports them.
pub fn classify(
    event: &Event,
    matches: &dyn Fn(&Value) -> bool,
    decode: &dyn Fn(&[u8], i64) -> Option<Value>,
) -> Option<(EventType, Value)> {
    match event {
        Event::Put { kv, prev_value } => {
            let object = decode(&kv.value, kv.mod_revision)?;
            let now = matches(&object);
            // The previous state, at this event's revision (kube's DELETED for an object
            // leaving the selector carries the old state).
            let before = prev_value
                .as_deref()
                .and_then(|p| decode(p, kv.mod_revision));
            match (before.map(|p| (matches(&p), p)), now) {
                (None, true) | (Some((false, _)), true) => Some((EventType::Added, object)),
                (Some((true, _)), true) => Some((EventType::Modified, object)),
                (Some((true, old)), false) => Some((EventType::Deleted, old)),
                (_, false) => None,
            }
        }
        Event::Delete { kv } => {
            let object = decode(&kv.value, kv.mod_revision)?;
            matches(&object).then_some((EventType::Deleted, object))
        }
        Event::Progress { .. } => None,
    }
}

/// A BOOKMARK's object: only kind, apiVersion and the resourceVersion.
pub fn bookmark(api_version: &str, kind: &str, revision: i64, initial_events_end: bool) -> Value {
    let mut metadata = json!({"resourceVersion": revision.to_string()});
    if initial_events_end {
        metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    json!({"kind": kind, "apiVersion": api_version, "metadata": metadata})
}

/// One line of the watch stream: `{"type":…,"object":…}` and a newline.
pub fn encode(event_type: EventType, object: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(&json!({"type": event_type.as_str(), "object": object}))
        .unwrap_or_default();
    line.push(b'\n');
    line
}

/// The key of a KeyValue relative to a prefix (for continue tokens and logs).
pub fn relative_key<'a>(kv: &'a KeyValue, prefix: &str) -> &'a str {
    kv.key.strip_prefix(prefix).unwrap_or(&kv.key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(value: Value, rev: i64) -> KeyValue {
        KeyValue {
            key: "/k".into(),
            value: serde_json::to_vec(&value).unwrap().into(),
            create_revision: 1,
            mod_revision: rev,
            memo: Default::default(),
            stale: false,
        }
    }

    #[test]
    fn classify_selector_transitions_match_kube() {
        let matches = |o: &Value| o["l"] == "yes";
        let decode = |b: &[u8], _rev: i64| serde_json::from_slice::<Value>(b).ok();
        let put = |prev: Option<Value>, now: Value| Event::Put {
            kv: kv(now, 5),
            prev_value: prev.map(|p| serde_json::to_vec(&p).unwrap().into()),
        };
        let yes = json!({"l": "yes"});
        let no = json!({"l": "no"});
        let cases = [
            (
                "create matching",
                put(None, yes.clone()),
                Some(EventType::Added),
            ),
            ("create not matching", put(None, no.clone()), None),
            (
                "update both match",
                put(Some(yes.clone()), yes.clone()),
                Some(EventType::Modified),
            ),
            (
                "starts matching",
                put(Some(no.clone()), yes.clone()),
                Some(EventType::Added),
            ),
            (
                "stops matching",
                put(Some(yes.clone()), no.clone()),
                Some(EventType::Deleted),
            ),
            ("never matches", put(Some(no.clone()), no.clone()), None),
            (
                "delete matching",
                Event::Delete {
                    kv: kv(yes.clone(), 6),
                },
                Some(EventType::Deleted),
            ),
            (
                "delete not matching",
                Event::Delete {
                    kv: kv(no.clone(), 6),
                },
                None,
            ),
            ("progress", Event::Progress { revision: 7 }, None),
        ];
        for (name, event, want) in cases {
            assert_eq!(
                classify(&event, &matches, &decode).map(|(t, _)| t),
                want,
                "{name}"
            );
        }
    }
}
