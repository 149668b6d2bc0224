//! Go's `net/url` as kube's URL library and `uri` format use it: `Parse`,
//! `ParseRequestURI` (with Go's error texts), `String`, `EscapedPath`, `Hostname`, `Port`
//! and `Query`, under the reference build's GODEBUG (`urlstrictcolons=0`,
//! `urlmaxqueryparams=0`). Components are bytes: Go strings need not be UTF-8.

mod escape;

use self::escape::{Mode, escape, unescape, valid_encoded};
use super::super::ip::netip;
use crate::gofmt::quote;

/// Go's `url.URL`, the fields kube reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Url {
    pub scheme: String,
    pub opaque: String,
    /// `(username, password)`; the password is `None` when no `:` was given.
    pub user: Option<(Vec<u8>, Option<Vec<u8>>)>,
    pub host: Vec<u8>,
    pub path: Vec<u8>,
    pub raw_path: String,
    pub raw_query: String,
    pub force_query: bool,
    pub omit_host: bool,
    pub fragment: Vec<u8>,
    pub raw_fragment: String,
}

/// Go's `url.Parse`: the part before `#` parsed, then the fragment.
pub fn parse(raw: &str) -> Result<Url, String> {
    let (before, fragment) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = parse_inner(before, false).map_err(|e| op_error(before, &e))?;
    if fragment.is_empty() {
        return Ok(url);
    }
    url.fragment = unescape(fragment.as_bytes(), Mode::Fragment).map_err(|e| op_error(raw, &e))?;
    url.raw_fragment = if escape(&url.fragment, Mode::Fragment) == fragment {
        String::new()
    } else {
        fragment.to_string()
    };
    Ok(url)
}

/// Go's `url.ParseRequestURI`: an absolute URI or an absolute path, no fragment.
pub fn parse_request_uri(raw: &str) -> Result<Url, String> {
    parse_inner(raw, true).map_err(|e| op_error(raw, &e))
}

/// Go's `url.Error` text.
fn op_error(url: &str, err: &str) -> String {
    format!("parse {}: {err}", quote(url))
}

/// Go's `getScheme`: `(scheme, rest)`.
fn split_scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".to_string()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// Go's `parse`.
fn parse_inner(raw: &str, via_request: bool) -> Result<Url, String> {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_string());
    }
    if raw.is_empty() && via_request {
        return Err("empty url".to_string());
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = b"*".to_vec();
        return Ok(url);
    }
    let (scheme, mut rest) = split_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        url.force_query = true;
        rest = &rest[..rest.len() - 1];
    } else if let Some((before, query)) = rest.split_once('?') {
        url.raw_query = query.to_string();
        rest = before;
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest.to_string();
            return Ok(url);
        }
        if via_request {
            return Err("invalid URI for request".to_string());
        }
        let segment = rest.split('/').next().unwrap_or("");
        if segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".to_string());
        }
    }
    let has_authority = (!url.scheme.is_empty() || (!via_request && !rest.starts_with("///")))
        && rest.starts_with("//");
    if has_authority {
        let authority = &rest[2..];
        let (authority, tail) = authority.split_at(authority.find('/').unwrap_or(authority.len()));
        let (user, host) = parse_authority(authority)?;
        url.user = user;
        url.host = host;
        rest = tail;
    } else if !url.scheme.is_empty() && rest.starts_with('/') {
        url.omit_host = true;
    }
    url.path = unescape(rest.as_bytes(), Mode::Path)?;
    url.raw_path = if escape(&url.path, Mode::Path) == rest {
        String::new()
    } else {
        rest.to_string()
    };
    Ok(url)
}

type User = Option<(Vec<u8>, Option<Vec<u8>>)>;

/// Go's `parseAuthority`: `[userinfo@]host`.
fn parse_authority(authority: &str) -> Result<(User, Vec<u8>), String> {
    let at = authority.rfind('@');
    let host = parse_host(at.map_or(authority, |i| &authority[i + 1..]))?;
    let Some(at) = at else {
        return Ok((None, host));
    };
    let userinfo = &authority[..at];
    let valid = userinfo
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c));
    if !valid {
        return Err("net/url: invalid userinfo".to_string());
    }
    let user = match userinfo.split_once(':') {
        None => (unescape(userinfo.as_bytes(), Mode::UserPassword)?, None),
        Some((name, password)) => (
            unescape(name.as_bytes(), Mode::UserPassword)?,
            Some(unescape(password.as_bytes(), Mode::UserPassword)?),
        ),
    };
    Ok((Some(user), host))
}

/// Go's `parseHost`: a bracketed IPv6 literal (optionally with a `%25` zone) or a name,
/// each with an optional `:port`.
fn parse_host(host: &str) -> Result<Vec<u8>, String> {
    match host.rfind('[') {
        Some(0) => {
            let Some(close) = host.rfind(']') else {
                return Err("missing ']' in host".to_string());
            };
            let colon_port = &host[close + 1..];
            if !valid_optional_port(colon_port) {
                return Err(format!("invalid port {} after host", quote(colon_port)));
            }
            let port = unescape(colon_port.as_bytes(), Mode::Host)?;
            let name = &host[1..close];
            let mut literal = match name.find("%25") {
                Some(zone) => {
                    let mut addr = unescape(&name.as_bytes()[..zone], Mode::Host)?;
                    addr.extend(unescape(&name.as_bytes()[zone..], Mode::Zone)?);
                    addr
                }
                None => unescape(name.as_bytes(), Mode::Host)?,
            };
            let text = String::from_utf8_lossy(&literal).into_owned();
            let (addr, _) = netip::parse_addr(&text).map_err(|e| format!("invalid host: {e}"))?;
            if addr.is4() {
                return Err("invalid IP-literal".to_string());
            }
            literal.insert(0, b'[');
            literal.push(b']');
            literal.extend(port);
            Ok(literal)
        }
        Some(_) => Err("invalid IP-literal".to_string()),
        None => {
            // Go reads the port after the last colon, except for http(s) under
            // `urlstrictcolons=1`; the reference build runs with 0.
            if let Some(last) = host.rfind(':') {
                let colon_port = &host[last..];
                if !valid_optional_port(colon_port) {
                    return Err(format!("invalid port {} after host", quote(colon_port)));
                }
            }
            unescape(host.as_bytes(), Mode::Host)
        }
    }
}

/// Empty, or `:` and digits.
fn valid_optional_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
}

impl Url {
    /// Go's `EscapedPath`: the raw path when it is a valid encoding of the path.
    pub fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path, Mode::Path)
            && unescape(self.raw_path.as_bytes(), Mode::Path).is_ok_and(|p| p == self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == b"*" {
            return "*".to_string();
        }
        escape(&self.path, Mode::Path)
    }

    fn escaped_fragment(&self) -> String {
        if !self.raw_fragment.is_empty()
            && valid_encoded(&self.raw_fragment, Mode::Fragment)
            && unescape(self.raw_fragment.as_bytes(), Mode::Fragment)
                .is_ok_and(|f| f == self.fragment)
        {
            return self.raw_fragment.clone();
        }
        escape(&self.fragment, Mode::Fragment)
    }

    /// Go's `splitHostPort` of the host: `(hostname, port)`.
    fn split_host_port(&self) -> (&[u8], &[u8]) {
        let mut host: &[u8] = &self.host;
        let mut port: &[u8] = b"";
        if let Some(colon) = host.iter().rposition(|&b| b == b':') {
            let tail = &host[colon + 1..];
            if tail.iter().all(u8::is_ascii_digit) {
                (host, port) = (&host[..colon], tail);
            }
        }
        if host.len() >= 2 && host.starts_with(b"[") && host.ends_with(b"]") {
            host = &host[1..host.len() - 1];
        }
        (host, port)
    }

    pub fn hostname(&self) -> &[u8] {
        self.split_host_port().0
    }

    pub fn port(&self) -> &[u8] {
        self.split_host_port().1
    }

    /// Go's `Query`: `ParseQuery` of the raw query, the pairs that parse, in order.
    pub fn query(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        self.raw_query
            .split('&')
            .filter(|pair| !pair.is_empty() && !pair.contains(';'))
            .filter_map(|pair| {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                let key = unescape(key.as_bytes(), Mode::QueryComponent).ok()?;
                let value = unescape(value.as_bytes(), Mode::QueryComponent).ok()?;
                Some((key, value))
            })
            .collect()
    }
}

impl std::fmt::Display for Url {
    /// Go's `URL.String`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut buf = String::new();
        if !self.scheme.is_empty() {
            buf.push_str(&self.scheme);
            buf.push(':');
        }
        if !self.opaque.is_empty() {
            buf.push_str(&self.opaque);
        } else {
            let has_user = self.user.is_some();
            let bare = self.omit_host && self.host.is_empty() && !has_user;
            if (!self.scheme.is_empty() || !self.host.is_empty() || has_user) && !bare {
                if !self.host.is_empty() || !self.path.is_empty() || has_user {
                    buf.push_str("//");
                }
                if let Some((name, password)) = &self.user {
                    buf.push_str(&escape(name, Mode::UserPassword));
                    if let Some(password) = password {
                        buf.push(':');
                        buf.push_str(&escape(password, Mode::UserPassword));
                    }
                    buf.push('@');
                }
                buf.push_str(&escape(&self.host, Mode::Host));
            }
            let mut path = self.escaped_path();
            if bare && path.starts_with("//") {
                buf.push_str("%2F");
                path.remove(0);
            }
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                buf.push('/');
            }
            if buf.is_empty() && path.split('/').next().is_some_and(|s| s.contains(':')) {
                buf.push_str("./");
            }
            buf.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            buf.push('?');
            buf.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            buf.push('#');
            buf.push_str(&self.escaped_fragment());
        }
        f.write_str(&buf)
    }
}

#[cfg(test)]
mod tests;
