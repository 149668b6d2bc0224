//! kube's `validateStructuralCompleteness`: every property and `items` named inside the
//! root's `allOf`/`anyOf`/`oneOf`/`not` must also be specified structurally.

use serde_json::Value;

use super::access::{get, item_schema, list, properties, property};
use super::errors::required;
use crate::error::FieldError;

/// Completeness of the root schema's logical junctors.
pub(super) fn completeness(schema: &Value, path: &str) -> Vec<FieldError> {
    junctors(schema, Some(schema), path, path)
}

/// The junctors of `validation` checked against the structural node `structural`.
fn junctors(
    validation: &Value,
    structural: Option<&Value>,
    s_path: &str,
    v_path: &str,
) -> Vec<FieldError> {
    let mut clauses: Vec<(String, &Value)> = Vec::new();
    if let Some(not) = get(validation, "not") {
        clauses.push((format!("{v_path}.not"), not));
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for (i, clause) in list(validation, key).iter().enumerate() {
            clauses.push((format!("{v_path}.{key}[{i}]"), clause));
        }
    }
    clauses
        .into_iter()
        .flat_map(|(clause_path, clause)| nested(clause, structural, s_path, &clause_path))
        .collect()
}

fn nested(
    validation: &Value,
    structural: Option<&Value>,
    s_path: &str,
    v_path: &str,
) -> Vec<FieldError> {
    let Some(structural) = structural else {
        let detail = format!("because it is defined in {v_path}");
        return vec![required(s_path, &detail)];
    };
    let mut errors = junctors(validation, Some(structural), s_path, v_path);
    if let Some(items) = item_schema(validation) {
        errors.extend(nested(
            items,
            item_schema(structural),
            &format!("{s_path}.items"),
            &format!("{v_path}.items"),
        ));
    }
    for (key, child) in properties(validation) {
        let s_child = format!("{s_path}.properties[{key}]");
        let v_child = format!("{v_path}.properties[{key}]");
        match property(structural, key) {
            Some(field) => errors.extend(nested(child, Some(field), &s_child, &v_child)),
            None => errors.push(required(
                &s_child,
                &format!("because it is defined in {v_child}"),
            )),
        }
    }
    errors
}
