//! Request bodies: JSON or YAML into a JSON value, with kube's size and nesting limits.

use serde_json::Value;

use crate::error::ApiError;
use crate::request::negotiate::BodyFormat;
use crate::request::yamlerr;

/// kube-apiserver's request body limit (3 MiB).
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;
/// Deepest nesting accepted in a decoded body.
pub const MAX_NESTING: usize = 100;

/// Parser events (and nodes) a YAML body may produce: serde-saphyr's default of 250,000
/// nodes rejects bodies kube accepts (`"- 1\n" × 300000` is 1.2 MB). A node takes at
/// least one byte of input in every form but the densest (`{a,b}`: two per two bytes),
/// so twice the body limit admits every body within it; alias replays stay capped by
/// serde-saphyr's alias limits (1,000,000 replayed events) and are counted here too.
const YAML_MAX_EVENTS: usize = 2 * MAX_BODY_BYTES + 1_000_000;

/// Decodes an object body (create, update) in JSON or YAML.
pub fn decode_object(body: &[u8], format: BodyFormat) -> Result<Value, ApiError> {
    match decode_value(body, format)? {
        value @ Value::Object(_) => Ok(value),
        _ => Err(ApiError::BadRequest(
            "the body of the request must be a JSON or YAML object".into(),
        )),
    }
}

/// Decodes any JSON or YAML value, within the nesting limit.
pub fn decode_value(body: &[u8], format: BodyFormat) -> Result<Value, ApiError> {
    let value = match format {
        BodyFormat::Yaml => decode_yaml(body)?,
        _ => decode_json(body)?,
    };
    check_depth(&value, 0)?;
    Ok(value)
}

/// Decodes JSON; the error text is serde's (`line 1 column 5`), like Go's decoder position.
pub fn decode_json(body: &[u8]) -> Result<Value, ApiError> {
    // serde_json has its own recursion limit (128) that turns deep input into an error.
    serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRequest(format!("error decoding request body: {e}")))
}

fn decode_yaml(body: &[u8]) -> Result<Value, ApiError> {
    // kube's YAML decoding keeps the last of duplicate keys; fieldValidation reports them.
    let parse = |text: &str| {
        let options = serde_saphyr::options! {
            duplicate_keys: serde_saphyr::options::DuplicateKeyPolicy::LastWins,
            budget: serde_saphyr::budget! {
                max_events: YAML_MAX_EVENTS,
                max_nodes: YAML_MAX_EVENTS,
            },
        };
        serde_saphyr::from_str_with_options::<Value>(text, options)
    };
    // Apply's wording (patch.go around sigs.k8s.io/yaml.Unmarshal).
    yamlerr::decode(body, parse).map_err(|e| {
        ApiError::BadRequest(format!(
            "error decoding YAML: error converting YAML to JSON: {e}"
        ))
    })
}

/// The nesting limit applied to an object a patch produced: several JSON patch
/// operations can each add a nested value, so the result is checked again before any
/// recursive walk (pruning, validation, encoding) touches it.
pub fn check_nesting(value: &Value) -> Result<(), ApiError> {
    check_depth(value, 0)
}

/// The same limit for a depth already measured.
pub fn check_nesting_at(depth: usize) -> Result<(), ApiError> {
    if depth > MAX_NESTING {
        return Err(too_deep());
    }
    Ok(())
}

fn too_deep() -> ApiError {
    ApiError::BadRequest(format!(
        "error decoding request body: nesting deeper than {MAX_NESTING} levels"
    ))
}

fn check_depth(value: &Value, depth: usize) -> Result<(), ApiError> {
    if depth > MAX_NESTING {
        return Err(too_deep());
    }
    match value {
        Value::Array(items) => items.iter().try_for_each(|v| check_depth(v, depth + 1)),
        Value::Object(map) => map.values().try_for_each(|v| check_depth(v, depth + 1)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_object_formats_and_errors() {
        let cases: &[(&str, &str, BodyFormat, bool)] = &[
            ("json object", r#"{"a":1}"#, BodyFormat::Json, true),
            ("yaml object", "a: 1\nb: [x]\n", BodyFormat::Yaml, true),
            ("json array", "[1]", BodyFormat::Json, false),
            ("broken json", "{", BodyFormat::Json, false),
            ("yaml scalar", "hello", BodyFormat::Yaml, false),
        ];
        for (name, body, format, ok) in cases {
            assert_eq!(
                decode_object(body.as_bytes(), *format).is_ok(),
                *ok,
                "{name}"
            );
        }
    }

    #[test]
    fn decode_object_deep_nesting_rejected() {
        let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
        assert_eq!(
            decode_object(deep.as_bytes(), BodyFormat::Json)
                .unwrap_err()
                .code(),
            400
        );
        let yaml = format!("a: {}1{}", "[".repeat(500), "]".repeat(500));
        assert_eq!(
            decode_object(yaml.as_bytes(), BodyFormat::Yaml)
                .unwrap_err()
                .code(),
            400
        );
    }

    #[test]
    fn decode_object_yaml_beyond_default_node_budget_accepted() {
        let body = format!("a:\n{}", "- 1\n".repeat(300_000));
        let value = decode_object(body.as_bytes(), BodyFormat::Yaml).unwrap();
        assert_eq!(value["a"].as_array().map(Vec::len), Some(300_000));
    }

    #[test]
    fn decode_object_yaml_alias_bomb_rejected() {
        let mut body = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let prev = format!("*a{}", i - 1);
            body.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")));
        }
        let err = decode_object(body.as_bytes(), BodyFormat::Yaml).unwrap_err();
        assert_eq!(err.code(), 400);
    }
}
