//! Schema defaults checked when definitions load, as kube's `defaulting.ValidateDefaults`:
//! a default must already be pruned, its embedded resources must be well-formed and it
//! must validate against its own node's schema.

use serde_json::Value;

use super::{Schema, prune, validate};
use crate::error::FieldError;

/// Default-validation errors of the `openAPIV3Schema` at `path`, in kube's walk order
/// (items, then properties by name), over the schema compiled once here.
///
/// Defaults under `apiVersion`, `kind` or `metadata` of a resource are not checked here:
/// kube validates those as object meta of the surrounding resource.
pub fn errors(schema: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    walk(&Schema::parse(schema), path, true, false, &mut errors);
    errors
}

/// kube's `defaulting.validate`: `root` is the schema root, which kube treats as an
/// embedded resource; below an embedded resource's `apiVersion`, `kind` and `metadata`
/// the walk is `inside_meta`.
fn walk(node: &Schema, path: &str, root: bool, inside_meta: bool, out: &mut Vec<FieldError>) {
    let resource = root || node.embedded_resource;
    let inside_meta = inside_meta && !node.embedded_resource;
    if let Some(default) = node.default.as_ref().filter(|_| !inside_meta) {
        check_default(node, resource, default, &format!("{path}.default"), out);
    }
    // additionalProperties is not followed: defaults are forbidden there.
    if let Some(items) = &node.items {
        walk(items, &format!("{path}.items"), false, inside_meta, out);
    }
    for (key, child) in &node.properties {
        let meta = resource && matches!(key.as_str(), "metadata" | "apiVersion" | "kind");
        let child_path = format!("{path}.properties[{key}]");
        walk(child, &child_path, false, inside_meta || meta, out);
    }
}

/// One default: pruned already, then (kube's chain) well-formed embedded resources, else
/// valid against its node.
fn check_default(
    node: &Schema,
    resource: bool,
    default: &Value,
    path: &str,
    out: &mut Vec<FieldError>,
) {
    let mut pruned = default.clone();
    prune::prune_value(&mut pruned, node, resource);
    if &pruned != default {
        out.push(FieldError::invalid(
            path,
            default,
            "must not have unknown fields",
        ));
    }
    let embedded = validate::embedded_errors(node, default);
    if !embedded.is_empty() {
        out.extend(embedded.into_iter().map(|mut e| {
            e.field = format!("{path}.{}", e.field);
            e
        }));
        return;
    }
    out.extend(validate::schema_errors_at(node, default, path));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn errors_match_reference_server_for_bad_defaults() {
        // The reference apiextensions-apiserver's causes for this schema (order aside).
        let schema = json!({"type": "object", "properties": {"spec": {
        "type": "object", "default": {"replicas": "x", "bogus": 1},
        "properties": {
            "replicas": {"type": "integer", "default": "abc", "maximum": 5},
            "obj": {"type": "object", "properties": {"a": {"type": "string"}}, "default": {"a": "x", "b": 2}},
            "num": {"type": "integer", "maximum": 5, "default": 7},
            "list": {"type": "array", "items": {"type": "string", "default": 5}},
            "emb": {"type": "object", "x-kubernetes-embedded-resource": true,
                    "x-kubernetes-preserve-unknown-fields": true,
                    "default": {"apiVersion": "v1", "kind": "bad kind", "metadata": {"name": "Bad_Name"}}}
        }}}});
        let at = "spec.validation.openAPIV3Schema.properties[spec]";
        let mut got: Vec<String> = errors(&schema, "spec.validation.openAPIV3Schema")
            .iter()
            .map(FieldError::message)
            .collect();
        got.sort();
        let mut want = vec![
            format!(
                "{at}.default: Invalid value: {{\"bogus\":1,\"replicas\":\"x\"}}: must not have unknown fields"
            ),
            format!(
                "{at}.default.replicas: Invalid value: \"string\": replicas in body must be of type integer: \"string\""
            ),
            format!(
                "{at}.properties[num].default: Invalid value: 7:  in body should be less than or equal to 5"
            ),
            format!(
                "{at}.properties[obj].default: Invalid value: {{\"a\":\"x\",\"b\":2}}: must not have unknown fields"
            ),
            format!(
                "{at}.properties[replicas].default: Invalid value: \"string\":  in body must be of type integer: \"string\""
            ),
            format!(
                "{at}.properties[emb].default.kind: Invalid value: \"bad kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
            ),
            format!(
                "{at}.properties[list].items.default: Invalid value: \"integer\":  in body must be of type string: \"integer\""
            ),
        ];
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn errors_walk_items_then_properties_and_skip_meta_defaults() {
        let schema = json!({"type": "object", "properties": {
            "e": {"type": "object", "x-kubernetes-embedded-resource": true,
                  "properties": {"metadata": {"type": "object", "default": {"bogus": 1}}}},
            "spec": {"type": "object", "default": {"bogus": 1}, "properties": {
                "list": {"type": "array", "items": {"type": "string", "default": 5}},
                "replicas": {"type": "integer", "default": "x"}}}}});
        let fields: Vec<String> = errors(&schema, "p").into_iter().map(|e| e.field).collect();
        assert_eq!(
            fields,
            vec![
                "p.properties[spec].default",
                "p.properties[spec].properties[list].items.default",
                "p.properties[spec].properties[replicas].default",
            ]
        );
    }

    #[test]
    fn errors_valid_defaults_report_nothing() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"cronSpec": {"type": "string", "default": "5 0 * * *"},
                           "replicas": {"type": "integer", "minimum": 1, "default": 1}}}}});
        assert!(errors(&schema, "spec.validation.openAPIV3Schema").is_empty());
    }
}
