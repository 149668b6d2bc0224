//! Request stage: duplicate fields of a request body, found as kube's strict decoders
//! find them (`fieldValidation=Strict` or `Warn`), in their exact words.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::gofmt::quote;

/// kube's strict JSON decoder keeps at most this many errors (sigs.k8s.io/json
/// `saveStrictError`).
const MAX_ERRORS: usize = 100;

/// Bytes of duplicate-field errors kept at most (plus the one crossing it): a deliberate
/// deviation from kube, whose only cap is [`MAX_ERRORS`], so that a megabyte-long key
/// above many duplicated fields is not copied into a hundred errors.
const MAX_ERROR_BYTES: usize = 1 << 20;

/// The strict-decoding errors for duplicate fields in `body`, to be joined with `", "`
/// after `strict decoding error: ` (unknown fields follow them):
///
/// - JSON: one `duplicate field "spec.replicas"` per duplicated path, in document order
///   (sigs.k8s.io/json);
/// - YAML: a single `yaml: unmarshal errors:\n  line 4: key "replicas" already set in map`
///   listing every duplicate key with the line of its second value (go-yaml v2 strict).
///
/// A body that does not parse yields nothing: decoding reports it.
pub fn duplicate_fields(body: &[u8], yaml: bool) -> Vec<String> {
    if yaml {
        yaml::duplicates(body)
    } else {
        json_duplicates(body)
    }
}

mod yaml;

fn json_duplicates(body: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let mut de = serde_json::Deserializer::from_slice(body);
    let node = Node {
        path: &Path::Root,
        found: &mut found,
    };
    match node.deserialize(&mut de).and_then(|()| de.end()) {
        Ok(()) => found,
        Err(_) => Vec::new(),
    }
}

/// The field stack of the JSON decoder, rendered only for a duplicate.
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn write(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Key(parent, key) => {
                parent.write(out);
                if !matches!(parent, Path::Root) {
                    out.push('.');
                }
                out.push_str(key);
            }
            Path::Index(parent, i) => {
                parent.write(out);
                out.extend(["[", &i.to_string(), "]"]);
            }
        }
    }
}

/// Walks one JSON value without building it.
struct Node<'a, 'p> {
    path: &'a Path<'p>,
    found: &'a mut Vec<String>,
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        loop {
            let item = Node {
                path: &Path::Index(self.path, i),
                found: &mut *self.found,
            };
            if seq.next_element_seed(item)?.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = Seen::default();
        // Keys of this map already reported: their path is rendered once.
        let mut reported = HashSet::new();
        while let Some(key) = map.next_key_seed(Key)? {
            let path = Path::Key(self.path, &key);
            let new = seen.is_new(&key);
            if !new && has_room(self.found) && reported.insert(key.clone()) {
                let mut rendered = String::new();
                path.write(&mut rendered);
                let error = format!("duplicate field {}", quote(&rendered));
                if !self.found.contains(&error) {
                    self.found.push(error);
                }
            }
            map.next_value_seed(Node {
                path: &path,
                found: &mut *self.found,
            })?;
            if new {
                seen.insert(key);
            }
        }
        Ok(())
    }
}

/// Whether another error may be kept: fewer than [`MAX_ERRORS`] and [`MAX_ERROR_BYTES`].
fn has_room(found: &[String]) -> bool {
    found.len() < MAX_ERRORS && found.iter().map(String::len).sum::<usize>() < MAX_ERROR_BYTES
}

/// The keys of one object so far: a list while short, a set beyond.
#[derive(Default)]
struct Seen<'de> {
    list: Vec<Cow<'de, str>>,
    set: HashSet<Cow<'de, str>>,
}

impl<'de> Seen<'de> {
    fn is_new(&self, key: &str) -> bool {
        !self.list.iter().any(|k| k == key) && !self.set.contains(key)
    }

    fn insert(&mut self, key: Cow<'de, str>) {
        if self.list.len() < 16 {
            self.list.push(key);
        } else {
            self.set.insert(key);
        }
    }
}

/// An object key, borrowed from the body unless it has escapes.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }

    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_fields_json_table() {
        let cases: &[(&str, &str, &[&str])] = &[
            ("json_no_duplicates_none", r#"{"a":1,"b":{"a":2}}"#, &[]),
            (
                "json_top_level_duplicate_reported",
                r#"{"a":1,"a":2}"#,
                &[r#"duplicate field "a""#],
            ),
            (
                "json_nested_duplicate_reported_with_path",
                r#"{"spec":{"replicas":1,"replicas":2}}"#,
                &[r#"duplicate field "spec.replicas""#],
            ),
            (
                "json_duplicate_in_array_item_reported_with_index",
                r#"{"spec":{"items":[{"a":1},{"a":1,"a":2}]}}"#,
                &[r#"duplicate field "spec.items[1].a""#],
            ),
            (
                "json_repeated_thrice_reported_once",
                r#"{"a":1,"a":2,"a":3}"#,
                &[r#"duplicate field "a""#],
            ),
            (
                "json_document_order_kept",
                r#"{"s":{"x":1},"s":{"y":1,"y":2},"b":1,"b":2}"#,
                &[
                    r#"duplicate field "s""#,
                    r#"duplicate field "s.y""#,
                    r#"duplicate field "b""#,
                ],
            ),
            (
                "json_escaped_key_quoted_like_go",
                r#"{"a\"b\n":1,"a\"b\n":2}"#,
                &[r#"duplicate field "a\"b\n""#],
            ),
            ("json_invalid_body_none", r#"{"a":1,"a":2"#, &[]),
            ("json_trailing_garbage_none", r#"{"a":1,"a":2} x"#, &[]),
        ];
        for (name, body, want) in cases {
            assert_eq!(duplicate_fields(body.as_bytes(), false), *want, "{name}");
        }
    }

    #[test]
    fn duplicate_fields_json_many_keys_found() {
        let keys: Vec<String> = (0..40).map(|i| format!(r#""k{i}":1"#)).collect();
        let body = format!("{{{},\"k39\":2}}", keys.join(","));
        assert_eq!(
            duplicate_fields(body.as_bytes(), false),
            [r#"duplicate field "k39""#]
        );
    }

    #[test]
    fn duplicate_fields_json_repeated_under_long_key_rendered_once() {
        let key = "k".repeat(1_500_000);
        let body = format!(r#"{{"{key}":{{{}}}}}"#, vec![r#""a":1"#; 50_000].join(","));
        let want = format!(r#"duplicate field "{key}.a""#);
        assert_eq!(duplicate_fields(body.as_bytes(), false), [want]);
    }

    #[test]
    fn duplicate_fields_json_capped_by_count_and_bytes() {
        let items = vec![r#"{"a":1,"a":2}"#; 300].join(",");
        let found = duplicate_fields(format!(r#"{{"l":[{items}]}}"#).as_bytes(), false);
        assert_eq!(found.len(), MAX_ERRORS);
        assert_eq!(found[99], r#"duplicate field "l[99].a""#);
        let key = "k".repeat(600_000);
        let found = duplicate_fields(format!(r#"{{"{key}":[{items}]}}"#).as_bytes(), false);
        assert_eq!(found.len(), 2);
        assert_eq!(found[1], format!(r#"duplicate field "{key}[1].a""#));
    }
}
