//! A rule's `fieldPath` as kube normalizes it (`ValidFieldPath`): `.name` and `['name']`
//! steps through properties become children, steps through additionalProperties keys.

use crate::schema::structural::rules::{tokenize, unquote};
use crate::schema::{Additional, Schema};

/// The path as kube's `field.Path` prints it (`a.b`, `labels[key]`); `None` when it does
/// not name a field of `schema` (the load-time check refuses those).
pub fn normalize(path: &str, schema: &Schema) -> Option<String> {
    let tokens = tokenize(path);
    let mut tokens = tokens.iter().map(String::as_str);
    let mut node = schema;
    let mut out = String::new();
    while let Some(token) = tokens.next() {
        let name = match token {
            "[" => {
                let name = unquote(tokens.next()?)?;
                if tokens.next()? != "]" {
                    return None;
                }
                name
            }
            "." => tokens.next()?.to_string(),
            _ => return None,
        };
        if !node.properties.is_empty() {
            node = node.properties.get(&name)?;
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&name);
        } else if let Some(Additional::Schema(values)) = &node.additional_properties {
            node = values;
            out.push_str(&format!("[{name}]"));
        } else {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalize_paths_print_as_kube_field_paths() {
        let schema = Schema::parse(&json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "a.b": {"type": "string"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}}}));
        let cases = [
            (".spec", Some("spec")),
            (".spec['a.b']", Some("spec.a.b")),
            (".spec.labels['x']", Some("spec.labels[x]")),
            (".spec.labels.y", Some("spec.labels[y]")),
            (".spec.missing", None),
            ("spec", None),
        ];
        for (path, want) in cases {
            assert_eq!(normalize(path, &schema).as_deref(), want, "{path}");
        }
    }
}
