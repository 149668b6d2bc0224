//! An event's two written forms: the JSON line (`--audit-log-format=json`, and each item
//! of a webhook's EventList) and kube's one-line text (`audit.EventString`, the `legacy`
//! format and the lines logged for events a plugin failed to record).

use std::io::Write;

use crate::audit::Event;
use crate::gofmt::quote;

/// The event as one JSON line, newline included (kube's JSON encoder ends with one).
pub fn json_line(event: &Event) -> Result<Vec<u8>, String> {
    let mut line = Vec::with_capacity(1024);
    write_json(&mut line, event)?;
    line.push(b'\n');
    Ok(line)
}

/// The event's JSON into `out` (no newline).
pub fn write_json(out: &mut impl Write, event: &Event) -> Result<(), String> {
    serde_json::to_writer(out, event).map_err(|e| e.to_string())
}

/// The event as an item of an EventList appended to `out`: without `kind` and
/// `apiVersion`, as kube's list items are (the list carries them).
pub fn write_list_item(out: &mut Vec<u8>, event: &Event) -> Result<(), String> {
    let start = out.len();
    write_json(out, event)?;
    let quoted = |text: &str| serde_json::to_string(text).map_err(|e| e.to_string());
    let (kind, api_version) = (quoted(&event.kind)?, quoted(&event.api_version)?);
    let prefix = format!("{{\"kind\":{kind},\"apiVersion\":{api_version},");
    if out[start..].starts_with(prefix.as_bytes()) {
        out.drain(start + 1..start + prefix.len());
    }
    Ok(())
}

/// The bytes of [`json_line`] without writing them (the truncating backend's sizer).
pub fn json_size(event: &Event) -> Result<u64, String> {
    let mut counter = Counter(0);
    write_json(&mut counter, event)?;
    Ok(counter.0 + 1)
}

struct Counter(u64);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// kube's `audit.EventString`, without the newline.
pub fn legacy_line(event: &Event) -> String {
    let (username, groups) = match event.user.username.as_str() {
        "" => ("<none>", "<none>".to_string()),
        name if event.user.groups.is_empty() => (name, "<none>".to_string()),
        name => (name, quoted_list(&event.user.groups)),
    };
    let (as_user, as_groups) = match &event.impersonated_user {
        None => ("<self>", "<lookup>".to_string()),
        // Go tells a nil groups slice from an empty one; an empty list reads as nil here.
        Some(user) if user.groups.is_empty() => (user.username.as_str(), "<lookup>".into()),
        Some(user) => (user.username.as_str(), quoted_list(&user.groups)),
    };
    let namespace = event
        .object_ref
        .as_ref()
        .map(|r| r.namespace.as_str())
        .filter(|ns| !ns.is_empty())
        .unwrap_or("<none>");
    let response = event
        .response_status
        .as_ref()
        .map(|status| status.get("code").and_then(|c| c.as_i64()).unwrap_or(0))
        .map_or_else(|| "<deferred>".to_string(), |code| code.to_string());
    let ip = event.source_ips.first().map_or("<unknown>", String::as_str);
    format!(
        "{} AUDIT: id={} stage={} ip={} method={} user={} groups={} as={} asgroups={} user-agent={} namespace={} uri={} response=\"{response}\"",
        rfc3339_nano(&event.request_received_timestamp),
        quote(&event.audit_id),
        quote(stage_name(event)),
        quote(ip),
        quote(&event.verb),
        quote(username),
        quote(&groups),
        quote(as_user),
        quote(&as_groups),
        quote(&event.user_agent),
        quote(namespace),
        quote(&event.request_uri),
    )
}

fn stage_name(event: &Event) -> &'static str {
    use crate::audit::Stage;
    match event.stage {
        Stage::RequestReceived => "RequestReceived",
        Stage::ResponseStarted => "ResponseStarted",
        Stage::ResponseComplete => "ResponseComplete",
        Stage::Panic => "Panic",
    }
}

/// kube's `auditStringSlice`: each `%q`, joined by commas.
fn quoted_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| quote(s)).collect();
    quoted.join(",")
}

/// A `metav1.MicroTime` (`…T15:04:05.000000Z`) as Go's `time.RFC3339Nano` writes it:
/// trailing zeros of the fraction dropped, and the dot with them.
fn rfc3339_nano(micro_time: &str) -> String {
    let Some((seconds, rest)) = micro_time.split_once('.') else {
        return micro_time.to_string();
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let (fraction, zone) = rest.split_at(digits);
    match fraction.trim_end_matches('0') {
        "" => format!("{seconds}{zone}"),
        kept => format!("{seconds}.{kept}{zone}"),
    }
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
