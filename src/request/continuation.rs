//! List continue tokens, in kube's format: base64url of
//! `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key relative to the list prefix>"}`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;

#[derive(Serialize, Deserialize)]
struct Token {
    v: String,
    rv: i64,
    start: String,
}

/// Encodes where the next page starts and the revision every page is read at.
pub fn encode(revision: i64, next_relative_key: &str) -> String {
    let token = Token {
        v: "meta.k8s.io/v1".into(),
        rv: revision,
        start: next_relative_key.to_string(),
    };
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).unwrap_or_default())
}

/// Decodes a token into (revision, next key relative to the list prefix).
pub fn decode(token: &str) -> Result<(i64, String), ApiError> {
    let invalid = |why: &str| {
        ApiError::BadRequest(format!(
            "invalid continue token: continue key is not valid: {why}"
        ))
    };
    let bytes = URL_SAFE_NO_PAD
        .decode(token.trim_end_matches('='))
        .map_err(|_| invalid("incorrect encoded start resourceVersion (version meta.k8s.io/v1)"))?;
    let t: Token = serde_json::from_slice(&bytes)
        .map_err(|_| invalid("incorrect encoded start resourceVersion (version meta.k8s.io/v1)"))?;
    if t.v != "meta.k8s.io/v1" {
        return Err(invalid(&format!(
            "server does not recognize this encoding ({})",
            t.v
        )));
    }
    if t.rv == 0 {
        return Err(invalid(
            "incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
        ));
    }
    // A start key must stay inside the list's prefix.
    if t.start.starts_with('/') || t.start.split('/').any(|p| p == "..") {
        return Err(invalid(
            "continue key may not contain '..' or start with '/'",
        ));
    }
    Ok((t.rv, t.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_token_round_trips_and_rejects_garbage() {
        let t = encode(42, "default/b\u{0}");
        assert_eq!(decode(&t).unwrap(), (42, "default/b\u{0}".to_string()));
        for bad in [
            "",
            "!!!",
            &URL_SAFE_NO_PAD.encode(br#"{"v":"x","rv":1,"start":"a"}"#),
            &URL_SAFE_NO_PAD.encode(br#"{"v":"meta.k8s.io/v1","rv":1,"start":"/etc"}"#),
        ] {
            assert_eq!(decode(bad).unwrap_err().code(), 400, "{bad}");
        }
    }
}
