//! A webhook's 2xx answer as client-go's decoder first reads it, for every review kind
//! (AdmissionReview, ConversionReview): JSON when it starts with `{`, else YAML, and the
//! `apiVersion` kube's serializer sniffs, with the decoder's error texts.

use serde_json::Value;

use crate::request::body::decode_yaml_value;
use crate::request::gojson::{self, Flavor, ParseError};

/// The decoded value and the apiVersion kube's serializer sniffs from it
/// (`SimpleMetaFactory.Interpret`); JSON when the body starts with `{`, else YAML.
pub fn sniff(body: &[u8]) -> Result<(Value, String), String> {
    let json = body.trim_ascii_start().starts_with(b"{");
    let value = if json {
        gojson::parse(body, Flavor::V2).map_err(|e| match e {
            ParseError::Syntax(text) | ParseError::Other(text) => {
                format!("couldn't get version/kind; json parse error: {text}")
            }
            ParseError::TooDeep => {
                "couldn't get version/kind; json parse error: exceeded max depth".into()
            }
        })?
    } else {
        decode_yaml_value(body, false)
            .map(|(value, _)| value)
            .map_err(|e| {
                let text = e.to_string();
                text.strip_prefix("error decoding YAML: ")
                    .map_or(text.clone(), str::to_string)
            })?
    };
    let api_version = match json {
        true => gojson::sniff(gojson::members(body))?,
        false => gojson::sniff(gojson::values_members(&value))?,
    };
    Ok((value, api_version))
}
