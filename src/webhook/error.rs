//! A failed call in kube's words (admission's `failed to call webhook: …`, or the bare
//! cause for CRD conversion): Go's `*url.Error`
//! (`Post "<url>": <cause>`) for transport faults, client-go's errors for answers that
//! are not a success.

use serde_json::Value;

/// client-go's cap on the body text quoted in an unstructured error.
const MAX_UNSTRUCTURED_TEXT: usize = 2048;

/// Why a call failed; displays what follows `failed calling webhook "<name>": `
/// (admission's words); [`CallError::cause`] is the same without admission's
/// `failed to call webhook: ` (CRD conversion's `conversion webhook for <gvk> failed: <cause>`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// No answer: Go's `Post "<url>": <cause>`.
    #[error("failed to call webhook: {}", self.cause())]
    Post { url: String, cause: String },
    /// An answer that is no success (client-go's `StatusError`), with its code.
    #[error("failed to call webhook: {}", self.cause())]
    Status {
        code: u16,
        reason: String,
        message: String,
    },
    /// A 2xx answer without a body.
    #[error("failed to call webhook: {}", self.cause())]
    Empty { code: u16, content_type: String },
    /// An answer longer than this server buffers (kube reads without a bound).
    #[error("failed to call webhook: {}", self.cause())]
    TooLarge { url: String, limit: usize },
    /// The webhook cannot be called as configured (bad URL, unusable caBundle or
    /// credentials): kube's `could not get REST client: …`.
    #[error("{}", self.cause())]
    Client(String),
}

impl CallError {
    /// client-go's error text alone: Go's `*url.Error`, the `StatusError`'s message, the
    /// empty answer's text (admission's Display adds `failed to call webhook: `).
    pub fn cause(&self) -> String {
        match self {
            CallError::Post { url, cause } => {
                format!("Post {}: {cause}", crate::gofmt::quote(url))
            }
            CallError::Status { message, .. } => message.clone(),
            CallError::Empty { code, content_type } => format!(
                "0-length response with status code: {code} and content type: {content_type}"
            ),
            CallError::TooLarge { url, limit } => format!(
                "Post {}: the webhook's response body exceeds {limit} bytes",
                crate::gofmt::quote(url)
            ),
            CallError::Client(text) => format!("could not get REST client: {text}"),
        }
    }
}

/// client-go's error for a non-success answer: a `Status` of `Failure` in the body is
/// taken as it is, else apimachinery's `NewGenericServerResponse` text.
pub fn status_error(code: u16, content_type: Option<&str>, body: &[u8]) -> CallError {
    if let Some(error) = failure_status(body) {
        return error;
    }
    let text = match content_type.map(|c| c.split(';').next().unwrap_or_default().trim()) {
        None => true,
        Some(media) => media.starts_with("text/"),
    };
    let message = match text {
        true => String::from_utf8_lossy(&body[..body.len().min(MAX_UNSTRUCTURED_TEXT)])
            .trim()
            .to_string(),
        false => "unknown".into(),
    };
    let (reason, message) = generic(code, message);
    CallError::Status {
        code,
        reason: reason.into(),
        message,
    }
}

fn failure_status(body: &[u8]) -> Option<CallError> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let field = |name: &str| value.get(name).and_then(Value::as_str).unwrap_or_default();
    let version_ok = matches!(field("apiVersion"), "" | "v1");
    if field("kind") != "Status" || !version_ok || field("status") != "Failure" {
        return None;
    }
    let code = value.get("code").and_then(Value::as_u64).unwrap_or(0);
    Some(CallError::Status {
        code: u16::try_from(code).unwrap_or(0),
        reason: field("reason").into(),
        message: field("message").into(),
    })
}

/// apimachinery's `NewGenericServerResponse` (no resource named): reason and message.
fn generic(code: u16, server: String) -> (&'static str, String) {
    match code {
        409 => ("AlreadyExists", "the server reported a conflict".into()),
        404 => ("NotFound", "the server could not find the requested resource".into()),
        400 => ("BadRequest", "the server rejected our request for an unknown reason".into()),
        401 => ("Unauthorized", "the server has asked for the client to provide credentials".into()),
        403 => ("Forbidden", server),
        406 if server.is_empty() || server == "unknown" => (
            "NotAcceptable",
            "the server was unable to respond with a content type that the client supports".into(),
        ),
        406 => ("NotAcceptable", server),
        415 => ("UnsupportedMediaType", server),
        405 => ("MethodNotAllowed", "the server does not allow this method on the requested resource".into()),
        422 => ("Invalid", "the server rejected our request due to an error in our request".into()),
        503 => ("ServiceUnavailable", "the server is currently unable to handle the request".into()),
        504 => (
            "Timeout",
            "the server was unable to return a response in the time allotted, but may still be processing the request".into(),
        ),
        429 => (
            "TooManyRequests",
            "the server has received too many requests and has asked us to try again later".into(),
        ),
        c if c >= 500 => (
            "InternalError",
            format!(
                "an error on the server ({}) has prevented the request from succeeding",
                crate::gofmt::quote(&server)
            ),
        ),
        c => ("", format!("the server responded with the status code {c} but did not return more information")),
    }
}

/// Go's words for why a connection or exchange failed, found in the error chain.
pub fn go_cause(error: &(dyn std::error::Error + 'static), target: &str) -> String {
    let mut current = Some(error);
    let mut io_kind = None;
    while let Some(e) = current {
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return tls_cause(tls);
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            io_kind = Some(io.kind()); // the innermost, most specific, wins
            // An io::Error's `source()` skips the error it wraps (hyper-rustls wraps
            // tokio-rustls's io::Error, which wraps the rustls::Error): walk into it.
            if let Some(inner) = io.get_ref() {
                current = Some(inner as &(dyn std::error::Error + 'static));
                continue;
            }
        }
        if let Some(h) = e.downcast_ref::<hyper::Error>()
            && (h.is_incomplete_message() || h.is_closed() || h.is_canceled())
        {
            return "EOF".into();
        }
        current = e.source();
    }
    use std::io::ErrorKind::*;
    match io_kind {
        Some(ConnectionRefused) => format!("dial tcp {target}: connect: connection refused"),
        Some(ConnectionReset) => format!("read tcp {target}: read: connection reset by peer"),
        Some(UnexpectedEof) | Some(BrokenPipe) => "EOF".into(),
        Some(TimedOut) => format!("dial tcp {target}: i/o timeout"),
        _ if format!("{error:?}").contains("dns error") => {
            let host = target.rsplit_once(':').map_or(target, |(h, _)| h);
            format!("dial tcp: lookup {host}: no such host")
        }
        _ => error.to_string(),
    }
}

/// crypto/tls's texts for the verification failures Go names.
fn tls_cause(error: &rustls::Error) -> String {
    use rustls::CertificateError as C;
    let x509 = |text: &str| format!("tls: failed to verify certificate: x509: {text}");
    match error {
        rustls::Error::InvalidCertificate(C::UnknownIssuer) => {
            x509("certificate signed by unknown authority")
        }
        rustls::Error::InvalidCertificate(C::Expired | C::ExpiredContext { .. }) => {
            x509("certificate has expired or is not yet valid")
        }
        rustls::Error::InvalidCertificate(
            C::NotValidForName | C::NotValidForNameContext { .. },
        ) => x509("certificate is not valid for the requested name"),
        other => format!("tls: {other}"),
    }
}

/// An error with its sources, for a log line.
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_error_client_go_texts() {
        let status = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"nope","reason":"Forbidden","code":403}"#;
        let cases: &[(u16, Option<&str>, &[u8], &str)] = &[
            (
                403,
                Some("application/json"),
                status,
                "failed to call webhook: nope",
            ),
            (
                500,
                Some("text/plain; charset=utf-8"),
                b" boom \n",
                r#"failed to call webhook: an error on the server ("boom") has prevented the request from succeeding"#,
            ),
            (
                500,
                Some("application/json"),
                b"{}",
                r#"failed to call webhook: an error on the server ("unknown") has prevented the request from succeeding"#,
            ),
            (
                401,
                None,
                b"",
                "failed to call webhook: the server has asked for the client to provide credentials",
            ),
            (
                404,
                None,
                b"404 page not found",
                "failed to call webhook: the server could not find the requested resource",
            ),
            (
                302,
                None,
                b"",
                "failed to call webhook: the server responded with the status code 302 but did not return more information",
            ),
        ];
        for (code, ct, body, want) in cases {
            assert_eq!(status_error(*code, *ct, body).to_string(), *want, "{code}");
        }
    }

    #[test]
    fn cause_of_each_error_without_admission_prefix() {
        let url = "https://h:1/convert".to_string();
        let cases = [
            (
                CallError::Post {
                    url: url.clone(),
                    cause: "EOF".into(),
                },
                r#"Post "https://h:1/convert": EOF"#,
            ),
            (
                CallError::Status {
                    code: 403,
                    reason: "Forbidden".into(),
                    message: "nope".into(),
                },
                "nope",
            ),
            (
                CallError::Empty {
                    code: 200,
                    content_type: "application/json".into(),
                },
                "0-length response with status code: 200 and content type: application/json",
            ),
            (
                CallError::TooLarge { url, limit: 7 },
                r#"Post "https://h:1/convert": the webhook's response body exceeds 7 bytes"#,
            ),
            (
                CallError::Client("caBundle: no certificate found".into()),
                "could not get REST client: caBundle: no certificate found",
            ),
        ];
        for (error, want) in cases {
            assert_eq!(error.cause(), want);
            let admission = match &error {
                CallError::Client(_) => want.to_string(),
                _ => format!("failed to call webhook: {want}"),
            };
            assert_eq!(error.to_string(), admission);
        }
    }
}
