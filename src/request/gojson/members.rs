//! The top-level members of a JSON body in document order, duplicates included, as Go's
//! decoder meets them (serde_json's maps keep one member per name, sorted).

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// One member: its name, and its value for strings and null, an empty stand-in of the
/// value's kind otherwise.
#[derive(Debug)]
pub struct Member {
    pub name: String,
    pub value: Value,
}

/// A body's top level: its members when it is an object, else a stand-in of its kind.
pub type Top = Result<Vec<Member>, Value>;

/// The top level of a JSON body Go's syntax check accepted.
pub fn members(body: &[u8]) -> Top {
    let read = |text: &str| serde_json::Deserializer::from_str(text).deserialize_any(TopVisitor);
    match super::read_as_go(body, read) {
        Ok(top) => top,
        // Only serde's own limits (depth, number range) fail here; Go reads on.
        Err(_) => Ok(Vec::new()),
    }
}

/// The top level of a decoded value (a YAML body: sigs.k8s.io/yaml sorts the names).
pub fn values_members(value: &Value) -> Top {
    match value {
        Value::Object(map) => Ok(map
            .iter()
            .map(|(k, v)| Member {
                name: k.clone(),
                value: v.clone(),
            })
            .collect()),
        other => Err(other.clone()),
    }
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
        let mut out = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            let value = map.next_value::<StandIn>()?.0;
            out.push(Member { name, value });
        }
        Ok(Ok(out))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Top, A::Error> {
        StandInVisitor.visit_seq(seq).map(|v| Err(v.0))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Top, E> {
        Ok(Err(Value::Null))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Top, E> {
        Ok(Err(Value::Bool(false)))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Top, E> {
        Ok(Err(Value::Number(Number::from(0))))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Top, E> {
        Ok(Err(Value::Number(Number::from(0))))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Top, E> {
        Ok(Err(Value::Number(Number::from(0))))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Top, E> {
        Ok(Err(Value::String(s.to_string())))
    }
}

/// A value kept only as far as [`Member`] keeps it.
struct StandIn(Value);

impl<'de> de::Deserialize<'de> for StandIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StandInVisitor)
    }
}

struct StandInVisitor;

impl<'de> Visitor<'de> for StandInVisitor {
    type Value = StandIn;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StandIn, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(StandIn(Value::Object(Map::new())))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StandIn, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(StandIn(Value::Array(Vec::new())))
    }

    fn visit_unit<E: de::Error>(self) -> Result<StandIn, E> {
        Ok(StandIn(Value::Null))
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<StandIn, E> {
        Ok(StandIn(Value::Bool(b)))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<StandIn, E> {
        Ok(StandIn(Value::Number(Number::from(0))))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<StandIn, E> {
        Ok(StandIn(Value::Number(Number::from(0))))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<StandIn, E> {
        Ok(StandIn(Value::Number(Number::from(0))))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<StandIn, E> {
        Ok(StandIn(Value::String(s.to_string())))
    }
}
