//! kube's IP library (k8s.io/apiserver `pkg/cel/library/ip.go`): `ip(string)`, `isIP`,
//! `ip.isCanonical`, `family`, the address class tests and `string(ip)`, on `net.IP`
//! values with Go `net/netip` semantics. IPv4-mapped IPv6 addresses and zones are refused.

pub(super) mod netip;

use std::any::Any;

use self::netip::Addr;
use super::argv;
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, Opaque, Value};

pub const IP_TYPE: &str = "net.IP";

/// A `net.IP` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ip(pub Addr);

impl Opaque for Ip {
    fn type_name(&self) -> &'static str {
        IP_TYPE
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<Ip>() == Some(self)
    }

    fn try_equals(&self, other: Option<&dyn Opaque>) -> Result<bool, EvalError> {
        super::argv::same_type_equals(self, other)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    /// kube's `Size`, the address length in bytes (4 or 16).
    fn size(&self) -> Option<i64> {
        Some(i64::from(self.0.bit_len() / 8))
    }
}

/// kube's `parseIPAddr`: a zone-free, non-mapped address, or kube's error text.
pub fn parse_ip(raw: &str) -> Result<Addr, String> {
    let (addr, zone) = netip::parse_addr(raw).map_err(|e| {
        format!(
            "IP Address {} parse error during conversion from string: {e}",
            crate::gofmt::quote(raw)
        )
    })?;
    if !zone.is_empty() {
        return Err(format!(
            "IP address {} with zone value is not allowed",
            crate::gofmt::quote(raw)
        ));
    }
    if addr.is4in6() {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            crate::gofmt::quote(raw)
        ));
    }
    Ok(addr)
}

pub fn library() -> Library {
    let ip = || Type::Opaque(IP_TYPE);
    let predicate = |id, name| Decl::member(id, name, vec![ip()], Type::Bool);
    Library {
        decls: vec![
            Decl::global("string_to_ip", "ip", vec![Type::String], ip()),
            Decl::member("ip_family", "family", vec![ip()], Type::Int),
            Decl::global(
                "ip_is_canonical",
                "ip.isCanonical",
                vec![Type::String],
                Type::Bool,
            ),
            predicate("ip_is_unspecified", "isUnspecified"),
            predicate("ip_is_loopback", "isLoopback"),
            predicate("ip_is_link_local_multicast", "isLinkLocalMulticast"),
            predicate("ip_is_link_local_unicast", "isLinkLocalUnicast"),
            predicate("ip_is_global_unicast", "isGlobalUnicast"),
            Decl::global("is_ip", "isIP", vec![Type::String], Type::Bool),
            Decl::global("ip_to_string", "string", vec![ip()], Type::String),
        ],
        impls: vec![
            ("string_to_ip", Impl::Unary(string_to_ip)),
            ("ip_family", Impl::Unary(family)),
            ("ip_is_canonical", Impl::Unary(is_canonical)),
            ("ip_is_unspecified", Impl::Unary(is_unspecified)),
            ("ip_is_loopback", Impl::Unary(is_loopback)),
            (
                "ip_is_link_local_multicast",
                Impl::Unary(is_link_local_multicast),
            ),
            (
                "ip_is_link_local_unicast",
                Impl::Unary(is_link_local_unicast),
            ),
            ("ip_is_global_unicast", Impl::Unary(is_global_unicast)),
            ("is_ip", Impl::Unary(is_ip)),
            ("ip_to_string", Impl::Unary(ip_to_string)),
        ],
    }
}

fn string_to_ip<'a>(arg: &Value<'a>) -> Outcome<'a> {
    let addr = parse_ip(argv::string(arg)?).map_err(EvalError::new)?;
    Ok(argv::wrap(Ip(addr)))
}

fn family<'a>(arg: &Value<'a>) -> Outcome<'a> {
    let ip = argv::opaque::<Ip>(arg)?;
    Ok(Value::Int(if ip.0.is4() { 4 } else { 6 }))
}

fn is_canonical<'a>(arg: &Value<'a>) -> Outcome<'a> {
    let raw = argv::string(arg)?;
    let addr = parse_ip(raw).map_err(EvalError::new)?;
    Ok(Value::Bool(addr.to_string() == raw))
}

fn is_ip<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(parse_ip(argv::string(arg)?).is_ok()))
}

fn ip_to_string<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(Value::string(argv::opaque::<Ip>(arg)?.0.to_string()))
}

fn test<'a>(arg: &Value<'a>, predicate: fn(Addr) -> bool) -> Outcome<'a> {
    Ok(Value::Bool(predicate(argv::opaque::<Ip>(arg)?.0)))
}

fn is_unspecified<'a>(arg: &Value<'a>) -> Outcome<'a> {
    test(arg, Addr::is_unspecified)
}

fn is_loopback<'a>(arg: &Value<'a>) -> Outcome<'a> {
    test(arg, Addr::is_loopback)
}

fn is_link_local_multicast<'a>(arg: &Value<'a>) -> Outcome<'a> {
    test(arg, Addr::is_link_local_multicast)
}

fn is_link_local_unicast<'a>(arg: &Value<'a>) -> Outcome<'a> {
    test(arg, Addr::is_link_local_unicast)
}

fn is_global_unicast<'a>(arg: &Value<'a>) -> Outcome<'a> {
    test(arg, Addr::is_global_unicast)
}

#[cfg(test)]
mod tests;
