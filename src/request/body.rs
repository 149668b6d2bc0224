//! Request bodies: JSON or YAML into a JSON value, with kube's size and nesting limits.

use serde_json::Value;

use crate::error::ApiError;
use crate::request::gojson::{self, Flavor, ParseError};
use crate::request::negotiate::BodyFormat;
use crate::request::strict;
use crate::request::yaml_json;
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

/// Decodes an object body (the scale subresource's) in JSON or YAML.
pub fn decode_object(body: &[u8], format: BodyFormat) -> Result<Value, ApiError> {
    match decode_value(body, format)? {
        value @ Value::Object(_) => Ok(value),
        _ => Err(ApiError::BadRequest(
            "the body of the request must be a JSON or YAML object".into(),
        )),
    }
}

/// A Scale body kube cannot decode: its handler's error names the type it was given.
pub fn decode_scale(body: &[u8], format: BodyFormat) -> Result<Value, ApiError> {
    decode_object(body, format).map_err(|_| {
        ApiError::BadRequest(
            "no kind is registered for the type v1.Scale in scheme \"pkg/apiserver/customresource_handler.go:781\"".into(),
        )
    })
}

/// Decodes any JSON or YAML value, within the nesting limit.
pub fn decode_value(body: &[u8], format: BodyFormat) -> Result<Value, ApiError> {
    match format {
        BodyFormat::Yaml => decode_yaml_value(body, false).map(|(value, _)| value),
        _ => {
            let value = decode_json(body)?;
            check_depth(&value, 0)?;
            Ok(value)
        }
    }
}

/// Decodes a YAML value (an apply patch), within the nesting limit, with go-yaml's
/// duplicate-key error when `report` is set.
pub fn decode_yaml_value(body: &[u8], report: bool) -> Result<(Value, Vec<String>), ApiError> {
    let (value, found) = read_yaml(body, report).map_err(|e| {
        // Apply's wording (patch.go around sigs.k8s.io/yaml.Unmarshal).
        ApiError::BadRequest(format!(
            "error decoding YAML: error converting YAML to JSON: {e}"
        ))
    })?;
    check_depth(&value, 0)?;
    Ok((value, found))
}

/// Decodes JSON; the error text is serde's (`line 1 column 5`), like Go's decoder position.
pub fn decode_json(body: &[u8]) -> Result<Value, ApiError> {
    // serde_json has its own recursion limit (128) that turns deep input into an error.
    serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRequest(format!("error decoding request body: {e}")))
}

/// A YAML body's value, and go-yaml's duplicate-key error when `report` is set: compact
/// JSON (kubectl's apply patches) in one pass of the JSON decoder, which finds
/// duplicates as it goes; anything else, or any duplicate, through the YAML decoder and
/// go-yaml's scan.
fn read_yaml(body: &[u8], report: bool) -> Result<(Value, Vec<String>), String> {
    if let Some(value) = yaml_json::decode(body) {
        return Ok((value, Vec::new()));
    }
    let value = decode_yaml(body)?;
    let found = match report {
        true => strict::yaml::duplicates(body),
        false => Vec::new(),
    };
    Ok((value, found))
}

/// go-yaml's reading of a body, with its error text (`yaml: line 3: …`).
pub(crate) fn decode_yaml(body: &[u8]) -> Result<Value, String> {
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
    yamlerr::decode(body, parse)
}

/// A decoded request object with the duplicate fields of its body, in the strict
/// decoders' words (empty unless they were asked for).
#[derive(Debug)]
pub struct Decoded {
    pub object: Value,
    pub duplicates: Vec<String>,
}

/// Decodes a custom resource body (create, update) as kube's serializer does, with its
/// errors: `the object provided is unrecognized (must be of type CronTab): …` for what
/// is no object of any kind (Go's syntax and type errors, a missing kind), and
/// `<Kind> in version "<v>" cannot be handled as a <Kind>: …` for ObjectMeta that does
/// not decode. `kind` is the resource's kind. Duplicate fields are found when
/// `duplicates` is set: by the JSON decode itself (of a JSON body, or a YAML body that
/// is compact JSON), or go-yaml's scan of any other YAML body.
pub fn decode_resource(
    body: &[u8],
    format: BodyFormat,
    kind: &str,
    duplicates: bool,
) -> Result<Decoded, ApiError> {
    let unrecognized = |e: String| {
        ApiError::BadRequest(format!(
            "the object provided is unrecognized (must be of type {kind}): {e} ({})",
            gojson::summarize(body)
        ))
    };
    let (value, found) = match format {
        BodyFormat::Yaml => {
            let (value, found) = read_yaml(body, duplicates).map_err(unrecognized)?;
            gojson::sniff(gojson::values_members(&value)).map_err(unrecognized)?;
            (value, found)
        }
        _ => {
            // Go's syntax error, then the apiVersion/kind sniffing, then what only serde
            // refuses.
            let parsed = gojson::parse_reporting(body, Flavor::V2, duplicates);
            if let Err(ParseError::Syntax(e)) = &parsed {
                return Err(unrecognized(format!(
                    "couldn't get version/kind; json parse error: {e}"
                )));
            }
            gojson::sniff(gojson::members(body)).map_err(unrecognized)?;
            parsed.map_err(|e| json_error(e, unrecognized))?
        }
    };
    check_depth(&value, 0)?;
    let body_kind = value
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if body_kind.is_empty() {
        let text = gojson::lossy(body);
        return Err(unrecognized(format!(
            "Object 'Kind' is missing in '{text}'"
        )));
    }
    if let Some(e) = value
        .get("metadata")
        .and_then(|meta| gojson::unmarshal_error(meta, &gojson::OBJECT_META))
    {
        let api_version = value.get("apiVersion").and_then(Value::as_str);
        let (_, version) =
            gojson::parse_group_version(api_version.unwrap_or_default()).unwrap_or_default();
        return Err(ApiError::BadRequest(format!(
            "{body_kind} in version {version:?} cannot be handled as a {kind}: {e}"
        )));
    }
    Ok(Decoded {
        object: value,
        duplicates: found,
    })
}

/// A JSON body Go's check accepted, as a value; `other` words what only serde refuses.
pub fn parse_json(
    body: &[u8],
    flavor: Flavor,
    other: impl Fn(String) -> ApiError,
) -> Result<Value, ApiError> {
    parse_json_reporting(body, flavor, false, other).map(|(value, _)| value)
}

/// [`parse_json`], with the duplicate fields found by the same pass when `duplicates`
/// is set.
pub fn parse_json_reporting(
    body: &[u8],
    flavor: Flavor,
    duplicates: bool,
    other: impl Fn(String) -> ApiError,
) -> Result<(Value, Vec<String>), ApiError> {
    gojson::parse_reporting(body, flavor, duplicates).map_err(|e| json_error(e, other))
}

/// A JSON body's rejection: Go's syntax error or what only serde refuses, in `other`'s
/// words, or the nesting limit.
fn json_error(e: ParseError, other: impl Fn(String) -> ApiError) -> ApiError {
    match e {
        ParseError::Syntax(text) | ParseError::Other(text) => other(text),
        ParseError::TooDeep => too_deep(),
    }
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
mod tests;
