//! An event's written forms as the backends use them, over the event's own writers
//! (`audit::event::json`, `audit::event::legacy`): the log's JSON and legacy lines, an
//! EventList item (without `kind` and `apiVersion`, as kube's list items are), and the
//! size the truncating backend measures.

use crate::audit::Event;
use crate::audit::event::{json, legacy};

/// The event as one JSON line, newline included (kube's JSON encoder ends with one).
pub fn json_line(event: &Event) -> Vec<u8> {
    json::line(event)
}

/// kube's `audit.EventString`, without the newline.
pub fn legacy_line(event: &Event) -> String {
    legacy::event_string(event)
}

/// The bytes of [`json_line`] (kube's truncating backend sizes the encoded event).
pub fn json_size(event: &Event) -> u64 {
    json::line(event).len() as u64
}

/// Appends the event as an item of an EventList: its JSON without `kind`, `apiVersion`
/// and the newline.
pub fn write_list_item(out: &mut Vec<u8>, event: &Event) -> Result<(), String> {
    let start = out.len();
    json::write_line(event, out);
    if out.last() != Some(&b'\n') {
        out.truncate(start);
        return Err(format!("encoding audit event {:?}", event.audit_id));
    }
    out.pop();
    let quoted = |text: &str| serde_json::to_string(text).map_err(|e| e.to_string());
    let prefix = match (event.kind.as_str(), event.api_version.as_str()) {
        ("", "") => return Ok(()),
        ("", api_version) => format!("{{\"apiVersion\":{},", quoted(api_version)?),
        (kind, "") => format!("{{\"kind\":{},", quoted(kind)?),
        (kind, api_version) => format!(
            "{{\"kind\":{},\"apiVersion\":{},",
            quoted(kind)?,
            quoted(api_version)?
        ),
    };
    if out[start..].starts_with(prefix.as_bytes()) {
        out.drain(start + 1..start + prefix.len());
    }
    Ok(())
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
