//! Go's `net/netip` as kube's IP and CIDR libraries use it: `ParseAddr` and `ParsePrefix`
//! with Go's error texts, `Addr.String`/`Prefix.String`, the address class predicates,
//! `Prefix.Contains`, `Overlaps` and `Masked`.

use crate::gofmt::quote;

/// An address without zone (kube refuses zones). IPv4 is kept as Go keeps it: the
/// IPv4-mapped 128-bit value, marked `is4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addr {
    bits: u128,
    is4: bool,
}

/// An address and a prefix length; the address is not masked (`Prefix` equality in Go
/// compares both as given).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefix {
    pub addr: Addr,
    pub bits: u8,
}

const V4_MAPPED: u128 = 0xffff << 32;

impl Addr {
    fn from4(octets: [u8; 4]) -> Addr {
        Addr {
            bits: V4_MAPPED | u128::from(u32::from_be_bytes(octets)),
            is4: true,
        }
    }

    fn from16(octets: [u8; 16]) -> Addr {
        Addr {
            bits: u128::from_be_bytes(octets),
            is4: false,
        }
    }

    pub fn is4(self) -> bool {
        self.is4
    }

    /// An IPv6 address of the form `::ffff:a.b.c.d`.
    pub fn is4in6(self) -> bool {
        !self.is4 && self.bits >> 32 == 0xffff
    }

    pub fn bit_len(self) -> u8 {
        if self.is4 { 32 } else { 128 }
    }

    fn octet4(self, i: u32) -> u8 {
        (self.bits >> ((3 - i) * 8)) as u8
    }

    fn group(self, i: u32) -> u16 {
        (self.bits >> ((7 - i) * 16)) as u16
    }

    pub fn is_unspecified(self) -> bool {
        if self.is4 {
            self.bits == V4_MAPPED
        } else {
            self.bits == 0
        }
    }

    pub fn is_loopback(self) -> bool {
        if self.is4 {
            self.octet4(0) == 127
        } else {
            self.bits == 1
        }
    }

    fn is_multicast(self) -> bool {
        if self.is4 {
            self.octet4(0) & 0xf0 == 0xe0
        } else {
            self.bits >> 120 == 0xff
        }
    }

    pub fn is_link_local_multicast(self) -> bool {
        if self.is4 {
            self.octet4(0) == 224 && self.octet4(1) == 0 && self.octet4(2) == 0
        } else {
            self.group(0) & 0xff0f == 0xff02
        }
    }

    pub fn is_link_local_unicast(self) -> bool {
        if self.is4 {
            self.octet4(0) == 169 && self.octet4(1) == 254
        } else {
            self.group(0) & 0xffc0 == 0xfe80
        }
    }

    pub fn is_global_unicast(self) -> bool {
        let broadcast = self.is4 && self.bits == V4_MAPPED | 0xffff_ffff;
        !broadcast
            && !self.is_unspecified()
            && !self.is_loopback()
            && !self.is_multicast()
            && !self.is_link_local_unicast()
    }

    /// The address with all but the first `bits` bits cleared.
    fn masked(self, bits: u8) -> Addr {
        let effective = u32::from(bits) + if self.is4 { 96 } else { 0 };
        let mask = match effective {
            0 => 0,
            n => u128::MAX << (128 - n.min(128)),
        };
        Addr {
            bits: self.bits & mask,
            is4: self.is4,
        }
    }
}

impl std::fmt::Display for Addr {
    /// Go's `Addr.String`: dotted decimal, or RFC 5952 hex groups with the first longest
    /// run of two or more zero groups written `::`, and `::ffff:a.b.c.d` for mapped IPv4.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is4 {
            let o: Vec<String> = (0..4).map(|i| self.octet4(i).to_string()).collect();
            return f.write_str(&o.join("."));
        }
        if self.is4in6() {
            let v4 = Addr {
                bits: self.bits,
                is4: true,
            };
            return write!(f, "::ffff:{v4}");
        }
        let (mut zero_start, mut zero_end) = (8u32, 8u32);
        for i in 0..8 {
            let mut j = i;
            while j < 8 && self.group(j) == 0 {
                j += 1;
            }
            if j - i >= 2 && (zero_start == 8 || j - i > zero_end - zero_start) {
                (zero_start, zero_end) = (i, j);
            }
        }
        let mut i = 0;
        while i < 8 {
            if i == zero_start {
                f.write_str("::")?;
                i = zero_end;
                if i >= 8 {
                    break;
                }
            } else if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{:x}", self.group(i))?;
            i += 1;
        }
        Ok(())
    }
}

impl Prefix {
    /// Go's `Prefix.Masked`.
    pub fn masked(self) -> Prefix {
        Prefix {
            addr: self.addr.masked(self.bits),
            bits: self.bits,
        }
    }

    /// Go's `Prefix.Contains`: same family and the first `bits` bits agree.
    pub fn contains(self, ip: Addr) -> bool {
        self.addr.is4 == ip.is4 && self.addr.masked(self.bits) == ip.masked(self.bits)
    }

    /// Go's `Prefix.Overlaps`.
    pub fn overlaps(self, other: Prefix) -> bool {
        if self.addr.is4 != other.addr.is4 {
            return false;
        }
        let min = self.bits.min(other.bits);
        self.addr.masked(min) == other.addr.masked(min)
    }
}

impl std::fmt::Display for Prefix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.addr, self.bits)
    }
}

/// Go's `netip.ParseAddr`: the address and its zone (empty when none), or Go's error text.
pub fn parse_addr(s: &str) -> Result<(Addr, &str), String> {
    let err = |msg: &str, at: &str| Err(addr_error(s, msg, at));
    for b in s.bytes() {
        match b {
            b'.' => return parse_ipv4(s, s).map(|octets| (Addr::from4(octets), "")),
            b':' => return parse_ipv6(s),
            b'%' => return err("missing IPv6 address", ""),
            _ => {}
        }
    }
    err("unable to parse IP", "")
}

fn addr_error(input: &str, msg: &str, at: &str) -> String {
    if at.is_empty() {
        format!("ParseAddr({}): {msg}", quote(input))
    } else {
        format!("ParseAddr({}): {msg} (at {})", quote(input), quote(at))
    }
}

/// Go's `parseIPv4Fields` over `s`, a part of `input` (which errors name).
fn parse_ipv4(input: &str, s: &str) -> Result<[u8; 4], String> {
    let err = |msg: &str, at: &str| Err(addr_error(input, msg, at));
    let b = s.as_bytes();
    let mut fields = [0u8; 4];
    let (mut val, mut pos, mut digits) = (0u32, 0usize, 0);
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                if digits == 1 && val == 0 {
                    return err("IPv4 field has octet with leading zero", "");
                }
                val = val * 10 + u32::from(c - b'0');
                digits += 1;
                if val > 255 {
                    return err("IPv4 field has value >255", "");
                }
            }
            b'.' => {
                if i == 0 || i == b.len() - 1 || b[i - 1] == b'.' {
                    return err("IPv4 field must have at least one digit", &s[i..]);
                }
                if pos == 3 {
                    return err("IPv4 address too long", "");
                }
                fields[pos] = val as u8;
                pos += 1;
                val = 0;
                digits = 0;
            }
            _ => return err("unexpected character", &s[i..]),
        }
    }
    if pos < 3 {
        return err("IPv4 address too short", "");
    }
    fields[3] = val as u8;
    Ok(fields)
}

/// Go's `parseIPv6`, step by step so that each error names what Go names.
fn parse_ipv6(input: &str) -> Result<(Addr, &str), String> {
    let err = |msg: &str, at: &str| Err(addr_error(input, msg, at));
    let (mut s, zone) = match input.split_once('%') {
        Some((_, "")) => return err("zone must be a non-empty string", ""),
        Some((addr, zone)) => (addr, zone),
        None => (input, ""),
    };
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if let Some(rest) = s.strip_prefix("::") {
        ellipsis = Some(0);
        s = rest;
        if s.is_empty() {
            return Ok((Addr::from16(ip), zone));
        }
    }
    let mut i = 0;
    while i < 16 {
        let mut off = 0;
        let mut acc = 0u32;
        for &c in s.as_bytes() {
            let Some(d) = char::from(c).to_digit(16) else {
                break;
            };
            acc = (acc << 4) + d;
            if off > 3 {
                return err("each group must have 4 or less digits", s);
            }
            if acc > 0xffff {
                return err("IPv6 field has value >=2^16", s);
            }
            off += 1;
        }
        if off == 0 {
            return err("each colon-separated field must have at least one digit", s);
        }
        if s.as_bytes().get(off) == Some(&b'.') {
            if ellipsis.is_none() && i != 12 {
                return err(
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    s,
                );
            }
            if i + 4 > 16 {
                return err(
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    s,
                );
            }
            ip[i..i + 4].copy_from_slice(&parse_ipv4(input, s)?);
            s = "";
            i += 4;
            break;
        }
        ip[i..i + 2].copy_from_slice(&(acc as u16).to_be_bytes());
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return err("unexpected character, want colon", s);
        } else if s.len() == 1 {
            return err("colon must be followed by more characters", s);
        }
        s = &s[1..];
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return err("multiple :: in address", s);
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return err("trailing garbage after address", s);
    }
    match ellipsis {
        Some(at) if i < 16 => {
            let gap = 16 - i;
            ip.copy_within(at..i, at + gap);
            ip[at..at + gap].fill(0);
        }
        None if i < 16 => return err("address string too short", ""),
        Some(_) => return err("the :: must expand to at least one field of zeros", ""),
        None => {}
    }
    Ok((Addr::from16(ip), zone))
}

/// Go's `netip.ParsePrefix`, or Go's error text.
pub fn parse_prefix(s: &str) -> Result<Prefix, String> {
    let err = |msg: &str| Err(format!("netip.ParsePrefix({}): {msg}", quote(s)));
    let Some(slash) = s.rfind('/') else {
        return err("no '/'");
    };
    let (addr, zone) = match parse_addr(&s[..slash]) {
        Ok(parsed) => parsed,
        Err(e) => return err(&e),
    };
    if !addr.is4 && !zone.is_empty() {
        return err("IPv6 zones cannot be present in a prefix");
    }
    let bits_str = &s[slash + 1..];
    let bad_bits = || err(&format!("bad bits after slash: {}", quote(bits_str)));
    // Go refuses signs and leading zeros here, though `strconv.Atoi` would take them.
    let first_ok = bits_str.len() <= 1 || matches!(bits_str.as_bytes()[0], b'1'..=b'9');
    if !first_ok || !go_atoi_ok(bits_str) {
        return bad_bits();
    }
    match bits_str.parse::<u32>() {
        Ok(bits) if bits <= u32::from(addr.bit_len()) => Ok(Prefix {
            addr,
            bits: bits as u8,
        }),
        _ => err("prefix length out of range"),
    }
}

/// Whether Go's `strconv.Atoi` accepts the text (an optional sign, then decimal digits
/// that fit an int64). Only unsigned single digits or digits starting 1-9 reach here.
fn go_atoi_ok(s: &str) -> bool {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && s.parse::<i64>().is_ok()
}

#[cfg(test)]
mod tests;
