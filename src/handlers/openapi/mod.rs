//! OpenAPI endpoints, answered as kube-openapi's handlers do: `/openapi/v2`,
//! `/openapi/v3` (discovery) and `/openapi/v3/apis/<group>/<version>`, with quoted
//! SHA-512 ETags, `If-None-Match`/`If-Modified-Since` → 304, and the `hash` query of v3
//! URLs: a matching hash makes the answer immutable, a stale one redirects (301) to the
//! current URL. Only JSON is produced: a client accepting nothing but the protobuf
//! encodings gets 406, which kubectl treats as "no OpenAPI v2" and works without.

use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};

use crate::crd::openapi::{Document, Documents, server_relative_url};
use crate::error::ApiError;
use crate::handlers::{Call, Reply};

/// A complete OpenAPI answer: status, headers and body.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: Vec<(HeaderName, String)>,
    pub body: Bytes,
}

impl Answer {
    fn empty(status: StatusCode) -> Answer {
        Answer {
            status,
            headers: Vec::new(),
            body: Bytes::new(),
        }
    }

    fn with(mut self, name: HeaderName, value: impl Into<String>) -> Answer {
        self.headers.push((name, value.into()));
        self
    }

    pub fn header(&self, name: &HeaderName) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The HTTP response.
    pub fn into_response(self) -> http::Response<axum::body::Body> {
        let mut resp = http::Response::new(axum::body::Body::from(self.body));
        *resp.status_mut() = self.status;
        for (name, value) in self.headers {
            if let Ok(v) = HeaderValue::from_str(&value) {
                resp.headers_mut().append(name, v);
            }
        }
        resp
    }

    /// As a [`Reply`]: the whole response, headers included.
    fn into_reply(self) -> Reply {
        Reply::Raw(self.into_response())
    }
}

/// `GET /openapi/...`: `parts` are the path segments.
pub fn serve(call: &Call, parts: &[&str]) -> Result<Reply, ApiError> {
    let now = jiff::Timestamp::now();
    answer(
        call.catalog.openapi(),
        parts,
        call.query.pairs(),
        &call.headers,
        now,
    )
    .map(Answer::into_reply)
}

/// The answer for a path, query and request headers at `now` (pure: tested without HTTP).
pub fn answer(
    docs: &Documents,
    parts: &[&str],
    query: &[(String, String)],
    headers: &HeaderMap,
    now: jiff::Timestamp,
) -> Result<Answer, ApiError> {
    let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok());
    match parts {
        ["openapi", "v2"] => Ok(match accepts_json(accept) {
            true => content(docs.v2(), docs, headers),
            false => Answer::empty(StatusCode::NOT_ACCEPTABLE),
        }
        .with(header::VARY, "Accept")),
        ["openapi", "v3"] => Ok(content(docs.v3_root(), docs, headers)),
        ["openapi", "v3", rest @ ..] => {
            let path = rest.join("/");
            let doc = docs.v3(&path).ok_or(ApiError::PathNotFound)?;
            if !accepts_json(accept) {
                return Ok(Answer::empty(StatusCode::NOT_ACCEPTABLE).with(header::VARY, "Accept"));
            }
            let hash = query
                .iter()
                .find(|(k, _)| k == "hash")
                .map(|(_, v)| v.as_str());
            Ok(group_version(doc, docs, &path, hash, headers, now))
        }
        _ => Err(ApiError::PathNotFound),
    }
}

/// One group/version document; `hash` pins the content (`HandleGroupVersion`).
fn group_version(
    doc: &Document,
    docs: &Documents,
    path: &str,
    hash: Option<&str>,
    headers: &HeaderMap,
    now: jiff::Timestamp,
) -> Answer {
    match hash.filter(|h| !h.is_empty()) {
        Some(h) if h != doc.etag() => {
            let url = server_relative_url(path, doc.etag());
            let body = format!("<a href=\"{url}\">Moved Permanently</a>.\n\n");
            Answer {
                status: StatusCode::MOVED_PERMANENTLY,
                headers: Vec::new(),
                body: Bytes::from(body),
            }
            .with(header::VARY, "Accept")
            .with(header::ETAG, quoted(doc.etag()))
            .with(header::LOCATION, url)
            .with(header::CONTENT_TYPE, "text/html; charset=utf-8")
        }
        Some(_) => content(doc, docs, headers)
            .with(header::VARY, "Accept")
            .with(header::CACHE_CONTROL, "public, immutable")
            .with(header::EXPIRES, expires(now)),
        None => content(doc, docs, headers).with(header::VARY, "Accept"),
    }
}

/// `http.ServeContent` for a JSON document: ETag and Last-Modified, or 304 when the
/// client's copy is current.
fn content(doc: &Document, docs: &Documents, headers: &HeaderMap) -> Answer {
    let etag = quoted(doc.etag());
    let last_modified = http_date(docs.built_at());
    if not_modified(headers, &etag, docs.built_at()) {
        return Answer::empty(StatusCode::NOT_MODIFIED).with(header::ETAG, etag);
    }
    Answer {
        status: StatusCode::OK,
        headers: Vec::new(),
        body: doc.bytes().clone(),
    }
    .with(header::CONTENT_TYPE, "application/json")
    .with(header::ETAG, etag)
    .with(header::LAST_MODIFIED, last_modified)
}

fn quoted(etag: &str) -> String {
    format!("\"{etag}\"")
}

/// Go's `checkIfNoneMatch` (weak comparison, `*`), then `checkIfModifiedSince` when no
/// `If-None-Match` was sent.
fn not_modified(headers: &HeaderMap, etag: &str, modified: jiff::Timestamp) -> bool {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    if let Some(list) = text(header::IF_NONE_MATCH) {
        return list
            .split(',')
            .map(str::trim)
            .any(|candidate| candidate == "*" || candidate.trim_start_matches("W/") == etag);
    }
    let since = text(header::IF_MODIFIED_SINCE).and_then(|s| {
        jiff::fmt::rfc2822::DateTimeParser::new()
            .parse_timestamp(s)
            .ok()
    });
    since.is_some_and(|since| modified.as_second() <= since.as_second())
}

/// `Last-Modified`: an RFC 9110 date.
fn http_date(t: jiff::Timestamp) -> String {
    jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&t)
        .unwrap_or_default()
}

/// kube's `Expires` for hash-pinned documents: a year from now, Go's RFC 1123 in UTC.
fn expires(now: jiff::Timestamp) -> String {
    let next_year = now
        .to_zoned(jiff::tz::TimeZone::UTC)
        .checked_add(jiff::Span::new().years(1))
        .unwrap_or_else(|_| now.to_zoned(jiff::tz::TimeZone::UTC));
    next_year.strftime("%a, %d %b %Y %H:%M:%S UTC").to_string()
}

/// goautoneg matching as kube-openapi does it: is there a clause for `application/json`,
/// `application/*` or `*/*`? (No Accept header means `*/*`.)
fn accepts_json(accept: Option<&str>) -> bool {
    let accept = accept
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .unwrap_or("*/*");
    accept.split(',').any(|clause| {
        let media = clause.split(';').next().unwrap_or_default().trim();
        let (kind, sub) = media.split_once('/').unwrap_or((media, ""));
        matches!(kind, "application" | "*") && matches!(sub, "json" | "*")
    })
}

#[cfg(test)]
mod tests;
