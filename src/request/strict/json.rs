//! A JSON body decoded into a value and its duplicate fields in one pass, the way
//! sigs.k8s.io/json's strict decoder reports them (`duplicate field "spec.a"`).

use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::gofmt::quote;

/// kube's strict JSON decoder keeps at most this many errors (sigs.k8s.io/json
/// `saveStrictError`).
pub(super) const MAX_ERRORS: usize = 100;

/// Bytes of duplicate-field errors kept at most (plus the one crossing it): a deliberate
/// deviation from kube, whose only cap is [`MAX_ERRORS`], so that a megabyte-long key
/// above many duplicated fields is not copied into a hundred errors.
const MAX_ERROR_BYTES: usize = 1 << 20;

/// `text` decoded as `serde_json::from_str` decodes it (the last of duplicate keys
/// wins), with the duplicate fields in document order when `report` is set.
pub fn decode(text: &str, report: bool) -> Result<(Value, Vec<String>), serde_json::Error> {
    let mut found = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let node = Node {
        path: &Path::Root,
        found: report.then_some(&mut found),
    };
    let value = node.deserialize(&mut de)?;
    de.end()?;
    Ok((value, found))
}

/// The field stack of the decoder, rendered only for a duplicate.
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

/// One JSON value at `path`; duplicates go to `found` when they are reported at all.
struct Node<'a, 'p> {
    path: &'a Path<'p>,
    found: Option<&'a mut Vec<String>>,
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        // serde_json's own visitor: a non-finite float (never produced by its parser) is null.
        Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut found = self.found;
        loop {
            let item = Node {
                path: &Path::Index(self.path, items.len()),
                found: found.as_deref_mut(),
            };
            match seq.next_element_seed(item)? {
                Some(value) => items.push(value),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        let mut found = self.found;
        // Keys of this map already reported: their path is rendered once.
        let mut reported = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = Path::Key(self.path, &key);
            // Go reports a duplicate as it meets the key, before its value's findings.
            if let Some(found) = found.as_deref_mut()
                && object.contains_key(&key)
                && has_room(found)
                && !reported.contains(&key)
            {
                let mut rendered = String::new();
                path.write(&mut rendered);
                let error = format!("duplicate field {}", quote(&rendered));
                if !found.contains(&error) {
                    found.push(error);
                }
                reported.insert(key.clone());
            }
            let value = map.next_value_seed(Node {
                path: &path,
                found: found.as_deref_mut(),
            })?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Whether another error may be kept: fewer than [`MAX_ERRORS`] and [`MAX_ERROR_BYTES`].
fn has_room(found: &[String]) -> bool {
    found.len() < MAX_ERRORS && found.iter().map(String::len).sum::<usize>() < MAX_ERROR_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_value_same_as_serde_json_with_and_without_report() {
        let bodies = [
            r#"{"a":1,"b":-2,"c":1.5,"d":18446744073709551615}"#,
            r#"{"s":"x\u00e9\n","n":null,"t":true,"l":[1,[2,{"k":[]}],{}]}"#,
            r#"{"a":1,"a":{"b":2},"a":{"c":3}}"#,
            r#"[{"a":1,"a":2},"x",0.1]"#,
            "\"plain\"",
            "12",
        ];
        for body in bodies {
            let want: Value = serde_json::from_str(body).unwrap();
            for report in [false, true] {
                assert_eq!(decode(body, report).unwrap().0, want, "{body} {report}");
            }
        }
    }

    #[test]
    fn decode_report_off_finds_nothing() {
        let (value, found) = decode(r#"{"a":1,"a":2}"#, false).unwrap();
        assert_eq!(value, serde_json::json!({"a": 2}));
        assert!(found.is_empty());
    }

    #[test]
    fn decode_invalid_or_trailing_errors_like_serde_json() {
        for body in [r#"{"a":1"#, r#"{"a":1} x"#, "", "[1,]", "1e400"] {
            let want = serde_json::from_str::<Value>(body).unwrap_err().to_string();
            assert_eq!(decode(body, true).unwrap_err().to_string(), want, "{body}");
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let got = decode(&deep, true).unwrap_err().to_string();
        assert!(got.starts_with("recursion limit exceeded"), "{got}");
    }
}
