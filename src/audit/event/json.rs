//! An event in the log backend's `json` format, byte for byte as kube writes it: Go's
//! `json.Encoder` (HTML-safe escapes, one line, a newline after it), the embedded request
//! and response objects compacted and escaped as Go re-encodes a `json.Marshaler`'s output,
//! and timestamps as `metav1.MicroTime` (see `time`).

use std::io::{self, Write};

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;
use serde_json::ser::Formatter;

use super::Event;

/// Appends the event as the log backend's `json` format writes it: one line and `\n`.
pub fn write_line(event: &Event, out: &mut Vec<u8>) {
    let mut ser = serde_json::Serializer::with_formatter(&mut *out, GoFormatter);
    // Serializing an Event into memory cannot fail: every map key is a string.
    if event.serialize(&mut ser).is_ok() {
        out.push(b'\n');
    }
}

/// [`write_line`] into a new buffer.
pub fn line(event: &Event) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    write_line(event, &mut out);
    out
}

/// serde_json's compact output with Go's differences: `<`, `>`, `&`, U+2028 and U+2029
/// escaped in strings, raw values compacted and escaped the same way.
struct GoFormatter;

impl Formatter for GoFormatter {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        write_escaped(writer, fragment.as_bytes(), false)
    }

    fn write_raw_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        write_escaped(writer, fragment.as_bytes(), true)
    }
}

/// Writes `bytes` with Go's HTML-safe escapes; with `compact`, whitespace outside strings
/// is dropped (Go's `compact` over a Marshaler's output).
fn write_escaped<W: ?Sized + Write>(writer: &mut W, bytes: &[u8], compact: bool) -> io::Result<()> {
    let (mut start, mut in_string, mut escaped) = (0, false, false);
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let replacement: Option<&[u8]> = match b {
            b'<' => Some(b"\\u003c"),
            b'>' => Some(b"\\u003e"),
            b'&' => Some(b"\\u0026"),
            0xE2 if bytes.get(i + 1) == Some(&0x80) => match bytes.get(i + 2) {
                Some(0xA8) => Some(b"\\u2028"),
                Some(0xA9) => Some(b"\\u2029"),
                _ => None,
            },
            b' ' | b'\t' | b'\n' | b'\r' if compact && !in_string => Some(b""),
            _ => None,
        };
        if compact {
            match (in_string, escaped, b) {
                (true, true, _) => escaped = false,
                (true, false, b'\\') => escaped = true,
                (_, _, b'"') => in_string = !in_string,
                _ => {}
            }
        }
        let Some(replacement) = replacement else {
            i += 1;
            continue;
        };
        writer.write_all(&bytes[start..i])?;
        writer.write_all(replacement)?;
        i += if b == 0xE2 { 3 } else { 1 };
        start = i;
    }
    writer.write_all(&bytes[start..])
}

/// A struct inside `responseStatus`, for Go's field order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `metav1.Status`: optional fields left out when empty, `metadata` always.
    Status,
    ListMeta,
    StatusDetails,
    StatusCause,
    /// Anything else: keys sorted, as Go writes maps.
    Map,
}

impl Shape {
    fn order(self) -> &'static [&'static str] {
        match self {
            Shape::Status => &[
                "kind",
                "apiVersion",
                "metadata",
                "status",
                "message",
                "reason",
                "details",
                "code",
            ],
            Shape::ListMeta => &[
                "selfLink",
                "resourceVersion",
                "continue",
                "remainingItemCount",
            ],
            Shape::StatusDetails => &[
                "name",
                "group",
                "kind",
                "uid",
                "causes",
                "retryAfterSeconds",
            ],
            Shape::StatusCause => &["reason", "message", "field"],
            Shape::Map => &[],
        }
    }

    /// The shape of a field's value (of each element, for a list).
    fn child(self, key: &str) -> Shape {
        match (self, key) {
            (Shape::Status, "metadata") => Shape::ListMeta,
            (Shape::Status, "details") => Shape::StatusDetails,
            (Shape::StatusDetails, "causes") => Shape::StatusCause,
            _ => Shape::Map,
        }
    }
}

/// `responseStatus` as Go writes a `*metav1.Status`: its fields in Go's order, empty
/// optional ones left out, `metadata` always (a struct is never omitted).
pub fn serialize_status<S: serde::Serializer>(
    status: &Option<Value>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match status {
        Some(value) => Ordered {
            value,
            shape: Shape::Status,
        }
        .serialize(serializer),
        None => serializer.serialize_none(),
    }
}

/// A value written with its shape's keys first, in Go's order, then the others sorted.
struct Ordered<'a> {
    value: &'a Value,
    shape: Shape,
}

impl Serialize for Ordered<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let shape = self.shape;
        let map = match self.value {
            Value::Object(map) => map,
            Value::Array(items) => {
                let items: Vec<Ordered> =
                    items.iter().map(|value| Ordered { value, shape }).collect();
                return items.serialize(serializer);
            }
            other => return other.serialize(serializer),
        };
        let status = shape == Shape::Status;
        let mut out = serializer.serialize_map(None)?;
        let empty = Value::Object(Default::default());
        for key in shape.order() {
            let value = match map.get(*key) {
                None if status && *key == "metadata" => &empty,
                Some(v) if status && *key != "metadata" && is_empty(v) => continue,
                Some(v) => v,
                None => continue,
            };
            out.serialize_entry(
                key,
                &Ordered {
                    value,
                    shape: shape.child(key),
                },
            )?;
        }
        for (key, value) in map
            .iter()
            .filter(|(k, _)| !shape.order().contains(&k.as_str()))
        {
            out.serialize_entry(
                key,
                &Ordered {
                    value,
                    shape: shape.child(key),
                },
            )?;
        }
        out.end()
    }
}

/// Go's `omitempty` emptiness for the values a Status holds.
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Bool(b) => !b,
        Value::Array(items) => items.is_empty(),
        Value::Object(_) => false,
    }
}
