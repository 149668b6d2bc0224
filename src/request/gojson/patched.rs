//! A patched object as kube prints it in a patch's Invalid cause: the JSON that
//! evanphx/json-patch wrote, members in the stored object's (sorted) order and members the
//! patch added after them.

use serde_json::Value;

use crate::gofmt::{json_string, marshal};

/// `new` (the patched object) in Go's text, ordered against `old` (the stored object).
pub fn marshal_patched(new: &Value, old: &Value) -> String {
    let mut out = String::new();
    write(new, Some(old), &mut out);
    out
}

fn write(new: &Value, old: Option<&Value>, out: &mut String) {
    let (Value::Object(map), Some(Value::Object(before))) = (new, old) else {
        out.push_str(&marshal(new));
        return;
    };
    let kept = before.keys().filter(|k| map.contains_key(*k));
    let added = map.keys().filter(|k| !before.contains_key(*k));
    out.push('{');
    let members = kept.chain(added).filter_map(|k| Some((k, map.get(k)?)));
    for (i, (key, value)) in members.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&json_string(key));
        out.push(':');
        write(value, before.get(key), out);
    }
    out.push('}');
}
