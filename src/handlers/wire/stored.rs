//! The stored form of an object — the storage version's apiVersion, no resourceVersion —
//! serialized straight from the object a write produced, without copying it first.
//!
//! The bytes are those of the copy-and-edit it replaces (`apiVersion` set, then
//! `metadata.resourceVersion` removed through `set_meta`, which makes a missing or
//! non-object metadata `{}`): members come out in the map's order, with the two edited
//! members at their sorted places.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// `object` in its stored form, for `serde_json` to write.
pub struct Stored<'a> {
    pub object: &'a Map<String, Value>,
    pub api_version: &'a str,
}

/// The members the stored form edits, in the map's (sorted) order.
const EDITED: [&str; 2] = ["apiVersion", "metadata"];

impl Serialize for Stored<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        let mut edited = EDITED.iter().peekable();
        for (key, value) in self.object {
            // Edited members the object lacks go where they sort.
            while let Some(missing) = edited.next_if(|name| **name < key.as_str()) {
                self.entry(&mut map, missing, None)?;
            }
            match edited.next_if(|name| **name == key.as_str()) {
                Some(name) => self.entry(&mut map, name, Some(value))?,
                None => map.serialize_entry(key, value)?,
            }
        }
        for missing in edited {
            self.entry(&mut map, missing, None)?;
        }
        map.end()
    }
}

impl Stored<'_> {
    fn entry<M: SerializeMap>(
        &self,
        map: &mut M,
        name: &str,
        value: Option<&Value>,
    ) -> Result<(), M::Error> {
        match (name, value) {
            ("apiVersion", _) => map.serialize_entry(name, self.api_version),
            (_, Some(Value::Object(meta))) => map.serialize_entry(name, &WithoutVersion(meta)),
            _ => map.serialize_entry(name, &Map::new()),
        }
    }
}

/// Metadata without its resourceVersion.
struct WithoutVersion<'a>(&'a Map<String, Value>);

impl Serialize for WithoutVersion<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.0 {
            if key != "resourceVersion" {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::meta::object as obj;

    /// The copy-and-edit the stored form replaces.
    fn edited_copy(object: &Value, api_version: &str) -> String {
        let mut stored = object.clone();
        if let Some(map) = stored.as_object_mut() {
            map.insert("apiVersion".into(), json!(api_version));
        }
        obj::set_meta(&mut stored, "resourceVersion", None);
        stored.to_string()
    }

    #[test]
    fn stored_same_bytes_as_edited_copy() {
        let cases = [
            (
                "usual",
                json!({"apiVersion": "g/v2", "kind": "K",
                "metadata": {"name": "a", "resourceVersion": "5", "uid": "u"}, "spec": {"x": 1}}),
            ),
            (
                "no_resource_version",
                json!({"apiVersion": "g/v1", "metadata": {"name": "a"}}),
            ),
            (
                "no_api_version",
                json!({"kind": "K", "metadata": {"name": "a"}}),
            ),
            ("no_metadata", json!({"apiVersion": "g/v1", "kind": "K"})),
            (
                "metadata_not_an_object",
                json!({"metadata": [1], "spec": {}}),
            ),
            ("empty", json!({})),
            (
                "keys_before_and_after_edited",
                json!({"Zed": 1, "a": 2, "apiVersionX": 3,
                "b": {"resourceVersion": "7"}, "metadata": {"resourceVersion": "9"}, "z": 4}),
            ),
        ];
        for (name, object) in cases {
            let map = object.as_object().unwrap();
            let stored = Stored {
                object: map,
                api_version: "g/v1",
            };
            assert_eq!(
                serde_json::to_string(&stored).unwrap(),
                edited_copy(&object, "g/v1"),
                "{name}"
            );
        }
    }
}
