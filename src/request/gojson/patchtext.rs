//! The text of evanphx/json-patch v4 (`gopkg.in/evanphx/json-patch.v4`, what kube's
//! mutating webhook dispatcher applies a webhook's patch with) for an operation that does
//! not apply, which kube answers as `Internal error occurred: <text>`. Judged on the
//! document as the operation found it, as the library's `findObject` walks it; a failure
//! it does not describe keeps the patch crate's text.

use json_patch::PatchOperation;
use serde_json::Value;

/// The library's `ErrMissing`, `ErrInvalidIndex` and `ErrTestFailed`.
const MISSING: &str = "missing value";
const INVALID_INDEX: &str = "invalid index referenced";
const TEST_FAILED: &str = "test failed";

/// evanphx's text for `op` failing on `doc`; `fallback` when it has none to match.
pub fn failure(doc: &Value, op: &PatchOperation, fallback: String) -> String {
    let text = match op {
        PatchOperation::Add(o) => add(doc, o.path.as_str()),
        PatchOperation::Remove(o) => remove(doc, o.path.as_str()),
        PatchOperation::Replace(o) => replace(doc, o.path.as_str()),
        PatchOperation::Test(o) => test(doc, o.path.as_str()),
        PatchOperation::Move(o) => moved(doc, o.from.as_str(), o.path.as_str()),
        PatchOperation::Copy(o) => copied(doc, o.from.as_str(), o.path.as_str()),
    };
    text.unwrap_or(fallback)
}

fn add(doc: &Value, path: &str) -> Option<String> {
    let Some((parent, key)) = find_object(doc, path) else {
        return Some(format!(
            "add operation does not apply: doc is missing path: \"{path}\": {MISSING}"
        ));
    };
    let Value::Array(items) = parent else {
        return None;
    };
    let wrap = |e: String| Some(format!("error in add for path: '{path}': {e}"));
    match key.parse::<usize>() {
        _ if key == "-" => None,
        Ok(i) if i > items.len() => wrap(invalid_index(i)),
        Ok(_) => None,
        Err(_) => wrap(format!(
            "value was not a proper array index: '{key}': strconv.Atoi: parsing \"{key}\": invalid syntax"
        )),
    }
}

fn remove(doc: &Value, path: &str) -> Option<String> {
    let Some((parent, key)) = find_object(doc, path) else {
        return Some(format!(
            "remove operation does not apply: doc is missing path: \"{path}\": {MISSING}"
        ));
    };
    let wrap = |e: String| Some(format!("error in remove for path: '{path}': {e}"));
    match parent {
        Value::Object(map) if !map.contains_key(&key) => wrap(format!(
            "Unable to remove nonexistent key: {key}: {MISSING}"
        )),
        Value::Array(items) => match key.parse::<usize>() {
            Ok(i) if i >= items.len() => wrap(invalid_index(i)),
            _ => None,
        },
        _ => None,
    }
}

fn replace(doc: &Value, path: &str) -> Option<String> {
    let missing = |what: &str| {
        Some(format!(
            "replace operation does not apply: doc is missing {what}: {path}: {MISSING}"
        ))
    };
    match find_object(doc, path) {
        None => missing("path"),
        Some((Value::Array(items), key)) => match key.parse::<usize>() {
            Ok(i) if i < items.len() => None,
            _ => missing("key"),
        },
        Some(_) => None,
    }
}

fn test(doc: &Value, path: &str) -> Option<String> {
    match find_object(doc, path) {
        None => Some(format!(
            "test operation does not apply: is missing path: {path}: {MISSING}"
        )),
        Some(_) => Some(format!("testing value {path} failed: {TEST_FAILED}")),
    }
}

fn moved(doc: &Value, from: &str, path: &str) -> Option<String> {
    let Some((parent, key)) = find_object(doc, from) else {
        return Some(format!(
            "move operation does not apply: doc is missing from path: {from}: {MISSING}"
        ));
    };
    if let Value::Object(map) = parent
        && !map.contains_key(&key)
    {
        return Some(format!(
            "error in move for path: '{key}': Unable to remove nonexistent key: {key}: {MISSING}"
        ));
    }
    destination("move", doc, path)
}

fn copied(doc: &Value, from: &str, path: &str) -> Option<String> {
    if find_object(doc, from).is_none() {
        return Some(format!(
            "copy operation does not apply: doc is missing from path: {from}: {MISSING}"
        ));
    }
    destination("copy", doc, path)
}

fn destination(verb: &str, doc: &Value, path: &str) -> Option<String> {
    find_object(doc, path).is_none().then(|| {
        format!(
            "{verb} operation does not apply: doc is missing destination path: {path}: {MISSING}"
        )
    })
}

fn invalid_index(i: usize) -> String {
    format!("Unable to access invalid index: {i}: {INVALID_INDEX}")
}

/// evanphx's `findObject`: the container holding the path's last token, and that token
/// (`~1` and `~0` decoded); `None` when a token before it reaches nothing or no container.
fn find_object<'d>(doc: &'d Value, path: &str) -> Option<(&'d Value, String)> {
    let mut tokens: Vec<String> = path.split('/').map(decode).collect();
    if tokens.len() < 2 {
        return None;
    }
    let key = tokens.pop()?;
    let mut at = doc;
    for token in &tokens[1..] {
        at = match at {
            Value::Object(map) => map.get(token)?,
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    matches!(at, Value::Object(_) | Value::Array(_)).then_some((at, key))
}

fn decode(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn failure_operations_evanphx_v4_texts() {
        let doc = json!({"kind": "CronTab", "spec": {"a": 1, "list": [1, 2]}});
        let cases = [
            (
                json!({"op": "replace", "path": "/spec/nope/deeper", "value": 1}),
                "replace operation does not apply: doc is missing path: /spec/nope/deeper: missing value",
            ),
            (
                json!({"op": "replace", "path": "/spec/list/5", "value": 1}),
                "replace operation does not apply: doc is missing key: /spec/list/5: missing value",
            ),
            (
                json!({"op": "add", "path": "/metadata/labels/x", "value": 1}),
                "add operation does not apply: doc is missing path: \"/metadata/labels/x\": missing value",
            ),
            (
                json!({"op": "add", "path": "/spec/list/3", "value": 1}),
                "error in add for path: '/spec/list/3': Unable to access invalid index: 3: invalid index referenced",
            ),
            (
                json!({"op": "remove", "path": "/spec/b"}),
                "error in remove for path: '/spec/b': Unable to remove nonexistent key: b: missing value",
            ),
            (
                json!({"op": "remove", "path": "/x/b"}),
                "remove operation does not apply: doc is missing path: \"/x/b\": missing value",
            ),
            (
                json!({"op": "test", "path": "/spec/a", "value": 2}),
                "testing value /spec/a failed: test failed",
            ),
            (
                json!({"op": "move", "from": "/x/a", "path": "/b"}),
                "move operation does not apply: doc is missing from path: /x/a: missing value",
            ),
            (
                json!({"op": "copy", "from": "/spec/a", "path": "/x/b"}),
                "copy operation does not apply: doc is missing destination path: /x/b: missing value",
            ),
        ];
        for (op, want) in cases {
            let op: PatchOperation = serde_json::from_value(op.clone()).unwrap();
            assert_eq!(failure(&doc, &op, "fallback".into()), want, "{op:?}");
        }
    }

    #[test]
    fn failure_undescribed_keeps_fallback() {
        let op: PatchOperation =
            serde_json::from_value(json!({"op": "move", "from": "/spec", "path": "/spec/a/b"}))
                .unwrap();
        let doc = json!({"spec": {"a": {}}});
        assert_eq!(failure(&doc, &op, "fallback".into()), "fallback");
    }
}
