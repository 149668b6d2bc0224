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

/// The scheme a webhook client decodes answers with (client-go's, built per review kind).
pub struct Scheme {
    /// Its name in texts (`pkg/util/webhook/client.go:<line>`).
    pub name: &'static str,
    /// The review's group and kind (`admission.k8s.io`, `AdmissionReview`).
    pub group: &'static str,
    pub kind: &'static str,
    /// The other kinds it registers in that group (v1 and v1beta1).
    pub also: &'static [&'static str],
}

/// The decoder's error for an answer of another kind than the review sent (`actual`:
/// group, version, kind as sniffed): a kind of the scheme is decoded and then fails
/// conversion to the review sent at `sent_version`; any other is not registered.
pub fn not_the_review(
    scheme: &Scheme,
    (group, version, kind): (&str, &str, &str),
    sent_version: &str,
    body: &[u8],
) -> String {
    if version.is_empty() {
        return format!(
            "Object 'apiVersion' is missing in '{}'",
            String::from_utf8_lossy(body)
        );
    }
    let group_version = match group {
        "" => version.to_string(),
        g => format!("{g}/{version}"),
    };
    let in_scheme = kind == scheme.kind || kind == "WatchEvent" || scheme.also.contains(&kind);
    let meta = [
        "Status",
        "APIVersions",
        "APIGroupList",
        "APIGroup",
        "APIResourceList",
    ];
    let registered = match (group, version) {
        (g, v @ ("v1" | "v1beta1")) if g == scheme.group && in_scheme => {
            Some(format!("{v}.{kind}"))
        }
        ("", "v1") if meta.contains(&kind) => Some(format!("v1.{kind}")),
        _ => None,
    };
    match registered {
        Some(source) => format!(
            "converting ({source}) to ({sent_version}.{}): unknown conversion",
            scheme.kind
        ),
        None => format!(
            "no kind {} is registered for version {} in scheme {}",
            crate::gofmt::quote(kind),
            crate::gofmt::quote(&group_version),
            crate::gofmt::quote(scheme.name)
        ),
    }
}
