//! Go's `url.Parse` (net/url, as of Go 1.26): the parts kube's webhook URL checks read
//! (`k8s.io/apiserver/pkg/util/webhook.ValidateWebhookURL`) and its error texts,
//! `parse "<url>": <reason>`.
//!
//! Not ported: the texts of `netip.ParseAddr` for a bracketed host that is not an IP
//! address; those are refused with `invalid host: ParseAddr("<host>"): <reason>` where
//! `<reason>` is Go's only for "unable to parse IP" and "missing IPv6 address".

use super::quote;

/// The parsed parts of a URL, unescaped as Go keeps them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Url {
    /// Lower-cased.
    pub scheme: String,
    /// `scheme:opaque` (no `//` after the scheme).
    pub opaque: String,
    /// `Userinfo.String()`: `user` or `user:password`, re-escaped; `None` without `@`.
    pub user: Option<String>,
    /// `host[:port]`.
    pub host: String,
    pub path: String,
    /// The query without `?`, still escaped.
    pub raw_query: String,
    pub fragment: String,
}

/// `url.Parse(raw)`.
pub fn parse_url(raw: &str) -> Result<Url, String> {
    let (before_fragment, fragment) = match raw.split_once('#') {
        Some((u, f)) => (u, f),
        None => (raw, ""),
    };
    let mut url = parse(before_fragment).map_err(|e| failed(before_fragment, &e))?;
    if !fragment.is_empty() {
        url.fragment = unescape(fragment, Mode::Fragment).map_err(|e| failed(raw, &e))?;
    }
    Ok(url)
}

fn failed(url: &str, reason: &str) -> String {
    format!("parse {}: {reason}", quote(url))
}

/// Which part of a URL a text is in (Go's `encoding`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    Fragment,
}

fn parse(raw: &str) -> Result<Url, String> {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = "*".into();
        return Ok(url);
    }
    let (scheme, mut rest) = scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest = &rest[..rest.len() - 1];
    } else if let Some((before, query)) = rest.split_once('?') {
        rest = before;
        url.raw_query = query.to_string();
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest.to_string();
            return Ok(url);
        }
        if rest.split('/').next().is_some_and(|s| s.contains(':')) {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let after = &rest[2..];
        let (authority, path) = after.split_at(after.find('/').unwrap_or(after.len()));
        let (user, host) = parse_authority(&url.scheme, authority)?;
        url.user = user;
        url.host = host;
        rest = path;
    }
    url.path = unescape(rest, Mode::Path)?;
    Ok(url)
}

/// `scheme:rest` when `raw` starts with `[a-zA-Z][a-zA-Z0-9+.-]*:`, else `("", raw)`.
fn scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".into()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

fn parse_authority(scheme: &str, authority: &str) -> Result<(Option<String>, String), String> {
    let at = authority.rfind('@');
    let host = parse_host(scheme, at.map_or(authority, |i| &authority[i + 1..]))?;
    let Some(at) = at else {
        return Ok((None, host));
    };
    let userinfo = &authority[..at];
    if !userinfo.chars().all(valid_userinfo_char) {
        return Err("net/url: invalid userinfo".into());
    }
    let user = match userinfo.split_once(':') {
        None => escape(&unescape(userinfo, Mode::UserPassword)?, Mode::UserPassword),
        Some((name, password)) => format!(
            "{}:{}",
            escape(&unescape(name, Mode::UserPassword)?, Mode::UserPassword),
            escape(&unescape(password, Mode::UserPassword)?, Mode::UserPassword)
        ),
    };
    Ok((Some(user), host))
}

/// RFC 3986 userinfo characters, plus `%` (checked by unescaping) and `@` (Go allows it).
fn valid_userinfo_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c)
}

fn parse_host(scheme: &str, host: &str) -> Result<String, String> {
    match host.rfind('[') {
        Some(open) if open > 0 => Err("invalid IP-literal".into()),
        Some(_) => parse_ip_literal(host),
        None => {
            if let Some(first) = host.find(':') {
                let last = host.rfind(':').unwrap_or(first);
                // Go enforces one colon only for http and https (go.dev/issue/75223).
                let strict = scheme == "http" || scheme == "https";
                let colon = if strict { first } else { last };
                let port = &host[colon..];
                if !valid_optional_port(port) {
                    return Err(format!("invalid port {} after host", quote(port)));
                }
            }
            unescape(host, Mode::Host)
        }
    }
}

/// `[address%25zone]:port`: only an IPv6 address may be bracketed.
fn parse_ip_literal(host: &str) -> Result<String, String> {
    let Some(close) = host.rfind(']') else {
        return Err("missing ']' in host".into());
    };
    let port = &host[close + 1..];
    if !valid_optional_port(port) {
        return Err(format!("invalid port {} after host", quote(port)));
    }
    let hostname = &host[1..close];
    let unescaped = match hostname.find("%25") {
        Some(zone) => {
            let address = unescape(&hostname[..zone], Mode::Host)?;
            address + &unescape(&hostname[zone..], Mode::Zone)?
        }
        None => unescape(hostname, Mode::Host)?,
    };
    match parse_addr(&unescaped) {
        Ok(Family::V4) => Err("invalid IP-literal".into()),
        Ok(Family::V6) => Ok(format!("[{unescaped}]{port}")),
        Err(reason) => Err(format!(
            "invalid host: ParseAddr({}): {reason}",
            quote(&unescaped)
        )),
    }
}

enum Family {
    V4,
    V6,
}

/// `netip.ParseAddr` as far as its verdict goes (see the module note on its texts).
fn parse_addr(text: &str) -> Result<Family, &'static str> {
    let invalid = "invalid IP address";
    match text.bytes().find(|b| matches!(b, b'.' | b':' | b'%')) {
        Some(b'.') => text
            .parse::<std::net::Ipv4Addr>()
            .map(|_| Family::V4)
            .map_err(|_| invalid),
        Some(b':') => {
            let (address, zone) = text.split_once('%').unwrap_or((text, "x"));
            match (address.parse::<std::net::Ipv6Addr>(), zone.is_empty()) {
                (Ok(_), false) => Ok(Family::V6),
                _ => Err(invalid),
            }
        }
        Some(_) => Err("missing IPv6 address"),
        None => Err("unable to parse IP"),
    }
}

/// Empty, or `:` followed by digits only.
fn valid_optional_port(port: &str) -> bool {
    match port.strip_prefix(':') {
        Some(digits) => digits.bytes().all(|b| b.is_ascii_digit()),
        None => port.is_empty(),
    }
}

/// Go's `unescape`: `%XX` decoded; in hosts only non-ASCII may be escaped and the
/// characters Go would escape are refused. Bytes that are not UTF-8 become U+FFFD.
fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let escape = bytes.get(i..i + 3).filter(|e| {
                    e.len() == 3 && e[1].is_ascii_hexdigit() && e[2].is_ascii_hexdigit()
                });
                let Some(escape) = escape else {
                    let end = bytes.len().min(i + 3);
                    return Err(escape_error(&bytes[i..end]));
                };
                let value = (hex(escape[1]) << 4) | hex(escape[2]);
                let percent25 = escape == b"%25";
                if mode == Mode::Host && hex(escape[1]) < 8 && !percent25 {
                    return Err(escape_error(escape));
                }
                if mode == Mode::Zone
                    && !percent25
                    && value != b' '
                    && should_escape(value, Mode::Host)
                {
                    return Err(escape_error(escape));
                }
                out.push(value);
                i += 3;
            }
            c => {
                let host_like = matches!(mode, Mode::Host | Mode::Zone);
                if host_like && c < 0x80 && should_escape(c, mode) {
                    let text = quote(&char::from(c).to_string());
                    return Err(format!("invalid character {text} in host name"));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn hex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c.wrapping_sub(b'A').wrapping_add(10),
    }
}

/// `invalid URL escape "%zz"`, the bytes quoted as Go quotes a string that may not be UTF-8.
fn escape_error(bytes: &[u8]) -> String {
    let mut quoted = String::from("\"");
    for chunk in bytes.utf8_chunks() {
        let valid = quote(chunk.valid());
        quoted.push_str(&valid[1..valid.len() - 1]);
        for b in chunk.invalid() {
            quoted.push_str(&format!("\\x{b:02x}"));
        }
    }
    quoted.push('"');
    format!("invalid URL escape {quoted}")
}

/// Go's `escape` for the modes used here: `%XX` (upper-case hex) for every byte
/// [`should_escape`] names.
fn escape(s: &str, mode: Mode) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if should_escape(b, mode) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(char::from(b));
        }
    }
    out
}

/// Go's `shouldEscape` (RFC 3986 with net/url's exceptions).
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    let host_like = matches!(mode, Mode::Host | Mode::Zone);
    if host_like && b"!$&'()*+,;=:[]<>\"".contains(&c) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => c == b'?',
            Mode::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::Fragment => false,
            Mode::Host | Mode::Zone => true,
        },
        b'!' | b'(' | b')' | b'*' if mode == Mode::Fragment => false,
        _ => true,
    }
}

#[cfg(test)]
#[path = "url_tests.rs"]
mod tests;
