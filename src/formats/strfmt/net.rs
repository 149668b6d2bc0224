//! Formats `ipv4`, `ipv6`, `cidr`, `mac` and `uri`, read as Go reads them: k8s.io/utils
//! `ParseIPSloppy`/`ParseCIDRSloppy` (pre-Go-1.17 rules), `net/netip`, `net.ParseMAC` and
//! `net/url.ParseRequestURI`.

/// Which of Go's two IP grammars applies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// k8s.io/utils' fork of Go 1.16 `net`: leading zeros and long hex groups allowed.
    Sloppy,
    /// `net/netip`: no leading zeros in IPv4 parts, at most four hex digits a group.
    Strict,
}

/// `ipv4`: `ParseIPSloppy` succeeds and the text has a dot (so `::ffff:1.2.3.4` counts).
pub(super) fn is_ipv4(value: &str) -> bool {
    let parsed = match value.bytes().find(|b| matches!(b, b'.' | b':')) {
        Some(b'.') => ipv4(value, Dialect::Sloppy).is_some(),
        Some(_) => ipv6(value, Dialect::Sloppy).is_some(),
        None => false,
    };
    parsed && value.contains('.')
}

/// `ipv6`: Go's `net.ParseIP` succeeds and the text has a colon.
pub(super) fn is_ipv6(value: &str) -> bool {
    value.contains(':') && parse_ip(value).is_some()
}

/// `cidr`: `ParseCIDRSloppy`, an address, `/` and a decimal prefix length in range.
pub(super) fn is_cidr(value: &str) -> bool {
    let Some((addr, mask)) = value.split_once('/') else {
        return false;
    };
    let bits = if ipv4(addr, Dialect::Sloppy).is_some() {
        32
    } else if ipv6(addr, Dialect::Sloppy).is_some() {
        128
    } else {
        return false;
    };
    !mask.is_empty() && mask.bytes().all(|b| b.is_ascii_digit()) && decimal(mask) <= bits
}

/// Go's `net.ParseIP`: an IPv4 or IPv6 address without zone, as 16 bytes (IPv4 mapped).
pub(super) fn parse_ip(value: &str) -> Option<[u8; 16]> {
    parse_addr(value)
        .filter(|addr| !addr.zoned)
        .map(|addr| addr.bytes)
}

/// An address as `netip.ParseAddr` reads it.
struct Addr {
    bytes: [u8; 16],
    is4: bool,
    zoned: bool,
}

fn parse_addr(value: &str) -> Option<Addr> {
    match value.bytes().find(|b| matches!(b, b'.' | b':' | b'%'))? {
        b'.' => ipv4(value, Dialect::Strict).map(|v4| {
            let mut bytes = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0];
            bytes[12..].copy_from_slice(&v4);
            Addr {
                bytes,
                is4: true,
                zoned: false,
            }
        }),
        b':' => {
            let (addr, zoned) = match value.split_once('%') {
                Some((_, "")) => return None,
                Some((addr, _)) => (addr, true),
                None => (value, false),
            };
            ipv6(addr, Dialect::Strict).map(|bytes| Addr {
                bytes,
                is4: false,
                zoned,
            })
        }
        _ => None,
    }
}

/// Four dot-separated decimal fields of at most 255.
fn ipv4(text: &str, dialect: Dialect) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut fields = text.split('.');
    for slot in &mut out {
        let field = fields.next()?;
        let leading_zero = field.len() > 1 && field.starts_with('0');
        if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if dialect == Dialect::Strict && leading_zero {
            return None;
        }
        *slot = u8::try_from(decimal(field)).ok()?;
    }
    fields.next().is_none().then_some(out)
}

/// A decimal run's value, saturating (callers only compare it with small limits).
fn decimal(digits: &str) -> u32 {
    digits.bytes().fold(0u32, |n, b| {
        n.saturating_mul(10).saturating_add(u32::from(b - b'0'))
    })
}

/// A leading hex group: its value and length.
fn hex_group(text: &str, dialect: Dialect) -> Option<(u16, usize)> {
    let len = text.bytes().take_while(u8::is_ascii_hexdigit).count();
    if len == 0 || (dialect == Dialect::Strict && len > 4) {
        return None;
    }
    let value = text[..len].chars().fold(0u32, |n, c| {
        n.saturating_mul(16)
            .saturating_add(c.to_digit(16).unwrap_or(0))
    });
    Some((u16::try_from(value).ok()?, len))
}

/// Go's IPv6 text grammar (shared by both dialects): hex groups, one `::`, and an
/// optional trailing IPv4 address.
fn ipv6(text: &str, dialect: Dialect) -> Option<[u8; 16]> {
    let mut ip = [0u8; 16];
    let mut s = text;
    let mut ellipsis = None;
    if let Some(rest) = s.strip_prefix("::") {
        ellipsis = Some(0);
        s = rest;
        if s.is_empty() {
            return Some(ip);
        }
    }
    let mut i = 0;
    while i < 16 {
        let (group, len) = hex_group(s, dialect)?;
        if s.as_bytes().get(len) == Some(&b'.') {
            if (ellipsis.is_none() && i != 12) || i + 4 > 16 {
                return None;
            }
            ip[i..i + 4].copy_from_slice(&ipv4(s, dialect)?);
            s = "";
            i += 4;
            break;
        }
        ip[i..i + 2].copy_from_slice(&group.to_be_bytes());
        i += 2;
        s = &s[len..];
        if s.is_empty() {
            break;
        }
        s = s.strip_prefix(':').filter(|rest| !rest.is_empty())?;
        if let Some(rest) = s.strip_prefix(':') {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            s = rest;
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return None;
    }
    match ellipsis {
        Some(at) if i < 16 => {
            let gap = 16 - i;
            ip.copy_within(at..i, at + gap);
            ip[at..at + gap].fill(0);
            Some(ip)
        }
        None if i == 16 => Some(ip),
        _ => None,
    }
}

/// `mac`: `net.ParseMAC`, 6, 8 or 20 bytes as `aa:bb:..`, `aa-bb-..`, `aabb.ccdd..`
/// (separators consistent) or bare hex.
pub(super) fn is_mac(value: &str) -> bool {
    let b = value.as_bytes();
    let sizes = |n: usize| matches!(n, 6 | 8 | 20);
    let hex = |chunk: &[u8]| chunk.iter().all(u8::is_ascii_hexdigit);
    if b.len() < 12 {
        return false;
    }
    if b[2] == b':' || b[2] == b'-' {
        (b.len() + 1).is_multiple_of(3)
            && sizes((b.len() + 1) / 3)
            && b.chunks(3)
                .all(|c| hex(&c[..2]) && c.get(2).is_none_or(|sep| *sep == b[2]))
    } else if b[4] == b'.' {
        (b.len() + 1).is_multiple_of(5)
            && sizes(2 * (b.len() + 1) / 5)
            && b.chunks(5)
                .all(|c| hex(&c[..4]) && c.get(4).is_none_or(|sep| *sep == b'.'))
    } else {
        b.len().is_multiple_of(2) && sizes(b.len() / 2) && hex(b)
    }
}

/// `uri`: `url.ParseRequestURI` — an absolute URI or an absolute path.
pub(super) fn is_request_uri(value: &str) -> bool {
    if value.is_empty() || value.bytes().any(|b| b < b' ' || b == 0x7f) {
        return false;
    }
    if value == "*" {
        return true;
    }
    let Some((scheme, rest)) = split_scheme(value) else {
        return false;
    };
    let rest = match rest.strip_suffix('?') {
        Some(stripped) if !stripped.contains('?') => stripped,
        _ => rest.split_once('?').map_or(rest, |(before, _)| before),
    };
    if !rest.starts_with('/') {
        return !scheme.is_empty();
    }
    let mut path = rest;
    if let Some(after) = rest.strip_prefix("//").filter(|_| !scheme.is_empty()) {
        let (authority, tail) = after.split_at(after.find('/').unwrap_or(after.len()));
        if !is_authority(authority) {
            return false;
        }
        path = tail;
    }
    unescape(path, Escape::Plain).is_some()
}

/// Go's `getScheme`: `None` for a leading `:`, an empty scheme when there is none.
fn split_scheme(raw: &str) -> Option<(&str, &str)> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return None,
            b':' => return Some((&raw[..i], &raw[i + 1..])),
            _ => return Some(("", raw)),
        }
    }
    Some(("", raw))
}

/// `[userinfo@]host[:port]` as `parseAuthority` checks it.
fn is_authority(authority: &str) -> bool {
    let (userinfo, host) = match authority.rfind('@') {
        Some(at) => (Some(&authority[..at]), &authority[at + 1..]),
        None => (None, authority),
    };
    let userinfo_ok = userinfo.is_none_or(|info| {
        info.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c))
            && unescape(info, Escape::Plain).is_some()
    });
    userinfo_ok && is_host(host)
}

/// Go's `parseHost`: a bracketed IPv6 literal (optionally with a `%25` zone) or a
/// registered name, each with an optional `:port`.
fn is_host(host: &str) -> bool {
    match host.rfind('[') {
        Some(0) => {
            let Some(close) = host.rfind(']') else {
                return false;
            };
            let inner = &host[1..close];
            let unescaped = match inner.find("%25") {
                Some(zone) => unescape(&inner[..zone], Escape::Host)
                    .zip(unescape(&inner[zone..], Escape::Zone))
                    .map(|(mut addr, zone)| {
                        addr.extend(zone);
                        addr
                    }),
                None => unescape(inner, Escape::Host),
            };
            let literal = unescaped.and_then(|bytes| String::from_utf8(bytes).ok());
            is_port(&host[close + 1..])
                && literal.is_some_and(|text| parse_addr(&text).is_some_and(|addr| !addr.is4))
        }
        Some(_) => false,
        None => {
            // Go 1.26's `urlstrictcolons` would read http(s) ports from the first colon;
            // kube <= 1.35 and the reference build (GODEBUG urlstrictcolons=0) use the last.
            let port = host.rfind(':').map_or("", |last| &host[last..]);
            is_port(port) && unescape(host, Escape::Host).is_some()
        }
    }
}

/// Empty, or `:` and digits.
fn is_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
}

/// Which part of a URL `unescape` reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    /// Path and userinfo: only `%XX` must be well formed.
    Plain,
    /// Host: ASCII must be a host character and may not be `%`-escaped (except `%25`).
    Host,
    /// IPv6 zone: escapes only of bytes that could appear unescaped.
    Zone,
}

/// Go's `url.unescape`: the decoded bytes, or `None` when Go reports an error.
fn unescape(text: &str, mode: Escape) -> Option<Vec<u8>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            if mode != Escape::Plain && b[i] < 0x80 && !is_host_byte(b[i]) {
                return None;
            }
            out.push(b[i]);
            i += 1;
            continue;
        }
        let (hi, lo) = (hex_value(*b.get(i + 1)?)?, hex_value(*b.get(i + 2)?)?);
        let byte = hi << 4 | lo;
        let is_percent = byte == b'%';
        if (mode == Escape::Host && hi < 8 && !is_percent)
            || (mode == Escape::Zone && !is_percent && byte != b' ' && !is_host_byte(byte))
        {
            return None;
        }
        out.push(byte);
        i += 3;
    }
    Some(out)
}

fn hex_value(b: u8) -> Option<u8> {
    char::from(b)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

/// Bytes Go leaves unescaped in a host (`!shouldEscape(c, encodeHost)`).
fn is_host_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!$&'()*+,;=:[]<>\"-_.~".contains(&c)
}

#[cfg(test)]
mod tests;
