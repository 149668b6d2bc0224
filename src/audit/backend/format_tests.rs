use super::*;
use crate::audit::Level;
use crate::audit::backend::testing::event;

#[test]
fn json_line_of_event_one_line_sized_exactly() {
    let event = event("a", Level::RequestResponse);
    let line = json_line(&event);
    assert_eq!(line.last(), Some(&b'\n'));
    assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1);
    assert_eq!(json_size(&event), line.len() as u64);
    let text = std::str::from_utf8(&line).expect("utf-8");
    assert!(
        text.starts_with(r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"id-a","stage":"ResponseComplete""#),
        "{text}"
    );
}

#[test]
fn write_list_item_of_events_drops_type_meta() {
    let typed = event("a", Level::Metadata);
    let mut blank = event("b", Level::Metadata);
    blank.kind.clear();
    blank.api_version.clear();
    let mut out = b"[".to_vec();
    write_list_item(&mut out, &typed).expect("encodes");
    out.push(b',');
    write_list_item(&mut out, &blank).expect("encodes");
    out.push(b']');
    let items: serde_json::Value = serde_json::from_slice(&out).expect("a JSON array");
    for (item, id) in items
        .as_array()
        .expect("array")
        .iter()
        .zip(["id-a", "id-b"])
    {
        assert!(
            item.get("kind").is_none() && item.get("apiVersion").is_none(),
            "{item}"
        );
        assert_eq!(item["auditID"], id);
    }
    let text = String::from_utf8(out).expect("utf-8");
    assert!(
        text.starts_with(r#"[{"level":"Metadata","auditID":"id-a","#),
        "{text}"
    );
    // The rest is the log's line, byte for byte.
    let line = String::from_utf8(json_line(&typed)).expect("utf-8");
    let rest = line
        .trim_end()
        .trim_start_matches(r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","#);
    assert!(text[2..].starts_with(rest), "{text}");
}
