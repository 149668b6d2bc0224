//! Go's JSON decoding as kube's request handling sees it: which bodies Go rejects and in
//! which words (syntax errors of two Go decoders, `json: cannot unmarshal …` type errors),
//! the apiVersion/kind sniffing of kube's serializer, and apiserver's body summary.

pub mod jsonpatch;
mod members;
mod patched;
pub mod patchops;
mod patchtext;
mod quote;
mod scan;
#[cfg(test)]
mod tests;
mod types;

use serde_json::Value;

use crate::request::strict::json;

pub use members::{Member, Top, members, values_members};
pub use patched::marshal_patched;
pub use quote::lossy;
pub use scan::{Flavor, check};
pub use types::{
    GoType, JSON_PATCH, MERGE_PATCH, METAV1_STATUS, OBJECT_META, kind, unmarshal_error,
};

/// Why a body Go's syntax check accepted still does not decode.
#[derive(Debug)]
pub enum ParseError {
    /// Go's syntax error text.
    Syntax(String),
    /// Deeper than serde's recursion limit (Go would go on to 10,000 levels).
    TooDeep,
    /// What serde refuses and Go reads (numbers beyond float64, lone surrogates).
    Other(String),
}

/// Parses a body as Go's decoder `flavor` would: Go's syntax error when it has one, else
/// the value, invalid UTF-8 inside strings read as U+FFFD per byte as Go does.
pub fn parse(body: &[u8], flavor: Flavor) -> Result<Value, ParseError> {
    parse_reporting(body, flavor, false).map(|(value, _)| value)
}

/// [`parse`], with the duplicate fields when `duplicates` is set. The outcome is that of
/// Go's check followed by [`read`], in the other order: every text serde's grammar
/// accepts, Go's scanner accepts too (serde refuses more: numbers beyond float64, nesting
/// past 128), so the scan runs only to word a rejection and an accepted body is not read
/// twice.
pub fn parse_reporting(
    body: &[u8],
    flavor: Flavor,
    duplicates: bool,
) -> Result<(Value, Vec<String>), ParseError> {
    let read = read(body, duplicates);
    if read.is_err() {
        check(body, flavor).map_err(ParseError::Syntax)?;
    }
    read
}

/// Reads a body into its value and, when `duplicates` is set, the strict decoder's
/// duplicate fields, found in the same pass. Its errors are serde's: a rejection is worded
/// by Go's syntax check first when that fails too ([`parse_reporting`]).
pub fn read(body: &[u8], duplicates: bool) -> Result<(Value, Vec<String>), ParseError> {
    read_as_go(body, |text| json::decode(text, duplicates)).map_err(|e| match e.to_string() {
        text if text.starts_with("recursion limit exceeded") => ParseError::TooDeep,
        text => ParseError::Other(text),
    })
}

/// Runs a serde reading of a body on the text Go decodes: invalid UTF-8 as U+FFFD per
/// byte, and (when serde refuses them) lone surrogate escapes as U+FFFD too.
fn read_as_go<T>(
    body: &[u8],
    read: impl Fn(&str) -> Result<T, serde_json::Error>,
) -> Result<T, serde_json::Error> {
    let text = match std::str::from_utf8(body) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => std::borrow::Cow::Owned(lossy(body)),
    };
    read(&text).or_else(|e| match quote::lone_surrogates(&text) {
        Some(fixed) => read(&fixed),
        None => Err(e),
    })
}

/// kube's serializer reading apiVersion and kind (`SimpleMetaFactory.Interpret`): Go's
/// encoding/json into `struct { APIVersion, Kind string }`, names matched without regard
/// to case, then `schema.ParseGroupVersion`. Returns the apiVersion read.
pub fn interpret(top: &[Member]) -> Result<String, String> {
    let mut api_version = String::new();
    for member in top {
        let Some(field) = interpreted_field(&member.name) else {
            continue;
        };
        match &member.value {
            Value::Null => {}
            Value::String(s) if field == "apiVersion" => api_version = s.clone(),
            Value::String(_) => {}
            other => {
                return Err(format!(
                    "couldn't get version/kind; json parse error: json: cannot unmarshal {} into Go struct field .{} of type string",
                    kind(other),
                    member.name
                ));
            }
        }
    }
    parse_group_version(&api_version)?;
    Ok(api_version)
}

/// The serializer's apiVersion/kind sniffing of a body's top level: the apiVersion read,
/// or the error (a body that is no object and not null fails).
pub fn sniff(top: Top) -> Result<String, String> {
    match top {
        Ok(members) => interpret(&members),
        Err(Value::Null) => Ok(String::new()),
        Err(other) => Err(interpret_not_object(&other)),
    }
}

/// The text for a body that is no JSON object at all.
pub fn interpret_not_object(value: &Value) -> String {
    format!(
        "couldn't get version/kind; json parse error: json: cannot unmarshal {} into Go value of type struct {{ APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }}",
        kind(value)
    )
}

/// encoding/json's case-insensitive field match (Go folds `K` and `ſ` like `k` and `s`).
fn interpreted_field(name: &str) -> Option<&'static str> {
    let folded: String = name
        .chars()
        .map(|c| match c {
            '\u{212A}' => 'k',
            '\u{17F}' => 's',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    match folded.as_str() {
        "apiversion" => Some("apiVersion"),
        "kind" => Some("kind"),
        _ => None,
    }
}

/// `schema.ParseGroupVersion`: (group, version) of `group/version`, `version` or nothing.
pub fn parse_group_version(api_version: &str) -> Result<(&str, &str), String> {
    if api_version.is_empty() || api_version == "/" {
        return Ok(("", ""));
    }
    match api_version.split('/').collect::<Vec<_>>()[..] {
        [version] => Ok(("", version)),
        [group, version] => Ok((group, version)),
        _ => Err(format!("unexpected GroupVersion string: {api_version}")),
    }
}

/// apiserver's `summarizeData(body, 30)`: `<empty>`, the text when it starts with `{`,
/// else hex; cut to 30 bytes with ` ...`.
pub fn summarize(body: &[u8]) -> String {
    const MAX: usize = 30;
    let (head, more) = match body.len() > MAX {
        true => (&body[..MAX], " ..."),
        false => (body, ""),
    };
    match body.first() {
        None => "<empty>".into(),
        Some(b'{') => format!("{}{more}", lossy(head)),
        Some(_) => {
            let hex: String = head.iter().map(|b| format!("{b:02x}")).collect();
            format!("{hex}{more}")
        }
    }
}
