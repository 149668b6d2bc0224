//! List continue tokens, in kube's format: base64url of
//! `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key relative to the list prefix>"}`,
//! decoded as apiserver's `storage.DecodeContinue` decodes them, with its error texts.

use base64::Engine;
use base64::alphabet::URL_SAFE;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::ApiError;
use crate::request::gojson::{self, Flavor};

const VERSION: &str = "meta.k8s.io/v1";

#[derive(Serialize)]
struct Token<'a> {
    v: &'a str,
    rv: i64,
    start: &'a str,
}

/// Go's `base64.RawURLEncoding`: no padding, and bits after the last byte not checked.
const RAW_URL: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireNone),
);

/// Encodes where the next page starts and the revision every page is read at.
pub fn encode(revision: i64, next_relative_key: &str) -> String {
    let token = Token {
        v: VERSION,
        rv: revision,
        start: next_relative_key,
    };
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).unwrap_or_default())
}

/// Decodes a token into (revision, next key relative to the list prefix); a 400
/// `invalid continue token: continue key is not valid…` as kube words it otherwise.
pub fn decode(token: &str) -> Result<(i64, String), ApiError> {
    decode_token(token).map_err(|why| {
        ApiError::BadRequest(format!(
            "invalid continue token: continue key is not valid{why}"
        ))
    })
}

/// `DecodeContinue`; the error is what follows kube's "continue key is not valid".
fn decode_token(token: &str) -> Result<(i64, String), String> {
    let bytes = RAW_URL
        .decode(token)
        .map_err(|e| format!(": {}", base64_error(token, &e)))?;
    let (v, rv, start) = unmarshal(&bytes).map_err(|e| format!(": {e}"))?;
    if v != VERSION {
        return Err(format!(
            ": server does not recognize this encoded version {v}"
        ));
    }
    if rv == 0 {
        return Err(": incorrect encoded start resourceVersion (version meta.k8s.io/v1)".into());
    }
    if start.is_empty() {
        return Err(": encoded start key empty (version meta.k8s.io/v1)".into());
    }
    // path.Clean must leave the key as it is: no `..`, `.` or `//` climbing out of the list.
    let key = match start.starts_with('/') {
        true => start.clone(),
        false => format!("/{start}"),
    };
    if !is_clean(&key) {
        return Err(format!(": {start}"));
    }
    Ok((rv, key[1..].to_string()))
}

/// Go's `base64.CorruptInputError` text (without padding, `=` is an illegal byte there).
fn base64_error(token: &str, err: &base64::DecodeError) -> String {
    let offset = match err {
        base64::DecodeError::InvalidByte(at, _) | base64::DecodeError::InvalidLastSymbol(at, _) => {
            *at
        }
        base64::DecodeError::InvalidLength(len) => len.saturating_sub(1),
        base64::DecodeError::InvalidPadding => token.find('=').unwrap_or_default(),
    };
    format!("illegal base64 data at input byte {offset}")
}

/// Whether Go's `path.Clean` leaves a rooted path unchanged.
fn is_clean(key: &str) -> bool {
    if key == "/" {
        return true;
    }
    !key.ends_with('/')
        && key[1..]
            .split('/')
            .all(|segment| !matches!(segment, "" | "." | ".."))
}

/// `json.Unmarshal` into storage's `continueToken{v string; rv int64; start string}`:
/// Go's syntax errors, then its first type error; keys match case-insensitively and
/// nulls leave a field as it is.
fn unmarshal(bytes: &[u8]) -> Result<(String, i64, String), String> {
    // storage decodes with encoding/json (Go 1.27 phrasing).
    gojson::check(bytes, Flavor::V2)?;
    let value: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let map = match value {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type storage.continueToken",
                crate::request::gojson::kind(&other)
            ));
        }
    };
    let (mut v, mut rv, mut start) = (String::new(), 0i64, String::new());
    let mut first_error = None;
    for (key, value) in &map {
        let field = ["v", "rv", "start"]
            .into_iter()
            .find(|f| f.eq_ignore_ascii_case(key));
        let mismatch = |go_type: &str, field: &str| {
            format!(
                "json: cannot unmarshal {} into Go struct field continueToken.{field} of type {go_type}",
                crate::request::gojson::kind(value)
            )
        };
        let result = match (field, value) {
            (None, _) | (_, Value::Null) => Ok(()),
            (Some("rv"), Value::Number(n)) => match n.as_i64() {
                Some(n) => {
                    rv = n;
                    Ok(())
                }
                None => Err(format!(
                    "json: cannot unmarshal number {n} into Go struct field continueToken.rv of type int64"
                )),
            },
            (Some("rv"), _) => Err(mismatch("int64", "rv")),
            (Some(name), Value::String(s)) => {
                match name {
                    "v" => v = s.clone(),
                    _ => start = s.clone(),
                }
                Ok(())
            }
            (Some(name), _) => Err(mismatch("string", name)),
        };
        if let Err(e) = result {
            first_error.get_or_insert(e);
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok((v, rv, start)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(token: &str) -> String {
        decode(token).unwrap_err().to_string()
    }

    fn raw(json: &str) -> String {
        URL_SAFE_NO_PAD.encode(json)
    }

    #[test]
    fn continue_token_round_trips() {
        let t = encode(42, "default/b\u{0}");
        assert_eq!(decode(&t).unwrap(), (42, "default/b\u{0}".to_string()));
        let rooted = raw(r#"{"v":"meta.k8s.io/v1","rv":-1,"start":"/x"}"#);
        assert_eq!(decode(&rooted).unwrap(), (-1, "x".to_string()));
        let folded = raw(r#"{"V":"meta.k8s.io/v1","RV":3,"Start":"x","other":1}"#);
        assert_eq!(decode(&folded).unwrap(), (3, "x".to_string()));
    }

    #[test]
    fn continue_token_errors_as_kube_words_them() {
        let prefix = "invalid continue token: continue key is not valid";
        let cases = [
            (
                "garbage".to_string(),
                r": invalid character '\x81' looking for beginning of value",
            ),
            ("!!!".to_string(), ": illegal base64 data at input byte 0"),
            (
                "eyJ2Ijo=".to_string(),
                ": illegal base64 data at input byte 7",
            ),
            (String::new(), ": unexpected end of JSON input"),
            (
                raw("[1]"),
                ": json: cannot unmarshal array into Go value of type storage.continueToken",
            ),
            (
                raw(r#"{"v":"meta.k8s.io/v1","rv":"1","start":"x"}"#),
                ": json: cannot unmarshal string into Go struct field continueToken.rv of type int64",
            ),
            (
                raw(r#"{"v":"meta.k8s.io/v1","rv":1.5,"start":"x"}"#),
                ": json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64",
            ),
            (
                raw(r#"{"v":"x","rv":1,"start":"a"}"#),
                ": server does not recognize this encoded version x",
            ),
            (
                raw(r#"{"v":"meta.k8s.io/v1","rv":0,"start":"a"}"#),
                ": incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
            ),
            (
                raw(r#"{"v":"meta.k8s.io/v1","rv":1,"start":""}"#),
                ": encoded start key empty (version meta.k8s.io/v1)",
            ),
            (
                raw(r#"{"v":"meta.k8s.io/v1","rv":1,"start":"../etc"}"#),
                ": ../etc",
            ),
            (
                raw(r#"{"v":"meta.k8s.io/v1","rv":1,"start":"a//b"}"#),
                ": a//b",
            ),
        ];
        for (token, want) in cases {
            let err = decode(&token).unwrap_err();
            assert_eq!(err.code(), 400, "{token}");
            assert_eq!(why(&token), format!("{prefix}{want}"), "{token}");
        }
    }
}
