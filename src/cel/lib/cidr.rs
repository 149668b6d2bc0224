//! kube's CIDR library (k8s.io/apiserver `pkg/cel/library/cidr.go`): `cidr(string)`,
//! `isCIDR`, `containsIP`, `containsCIDR`, `ip()`, `prefixLength`, `masked` and
//! `string(cidr)`, on `net.CIDR` values with Go `net/netip` prefix semantics.

use std::any::Any;

use super::argv;
use super::ip::netip::{self, Prefix};
use super::ip::{IP_TYPE, Ip};
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, Opaque, Value};

pub const CIDR_TYPE: &str = "net.CIDR";

/// A `net.CIDR` value: the address as written (not masked) and the prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr(pub Prefix);

impl Opaque for Cidr {
    fn type_name(&self) -> &'static str {
        CIDR_TYPE
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<Cidr>() == Some(self)
    }

    fn try_equals(&self, other: Option<&dyn Opaque>) -> Result<bool, EvalError> {
        super::argv::same_type_equals(self, other)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    /// kube's `Size`, the prefix length in bytes, rounded up.
    fn size(&self) -> Option<i64> {
        Some(i64::from(self.0.bits.div_ceil(8)))
    }
}

/// kube's `parseCIDR`: a prefix whose address is not IPv4-mapped IPv6, or kube's text.
fn parse_cidr(raw: &str) -> Result<Prefix, String> {
    let prefix = netip::parse_prefix(raw)
        .map_err(|e| format!("network address parse error during conversion from string: {e}"))?;
    if prefix.addr.is4in6() {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            crate::gofmt::quote(raw)
        ));
    }
    Ok(prefix)
}

pub fn library() -> Library {
    let cidr = || Type::Opaque(CIDR_TYPE);
    let ip = || Type::Opaque(IP_TYPE);
    Library {
        decls: vec![
            Decl::global("string_to_cidr", "cidr", vec![Type::String], cidr()),
            Decl::member(
                "cidr_contains_ip_string",
                "containsIP",
                vec![cidr(), Type::String],
                Type::Bool,
            ),
            Decl::member(
                "cidr_contains_ip_ip",
                "containsIP",
                vec![cidr(), ip()],
                Type::Bool,
            ),
            Decl::member(
                "cidr_contains_cidr_string",
                "containsCIDR",
                vec![cidr(), Type::String],
                Type::Bool,
            ),
            Decl::member(
                "cidr_contains_cidr",
                "containsCIDR",
                vec![cidr(), cidr()],
                Type::Bool,
            ),
            Decl::member("cidr_ip", "ip", vec![cidr()], ip()),
            Decl::member(
                "cidr_prefix_length",
                "prefixLength",
                vec![cidr()],
                Type::Int,
            ),
            Decl::member("cidr_masked", "masked", vec![cidr()], cidr()),
            Decl::global("is_cidr", "isCIDR", vec![Type::String], Type::Bool),
            Decl::global("cidr_to_string", "string", vec![cidr()], Type::String),
        ],
        impls: vec![
            ("string_to_cidr", Impl::Unary(string_to_cidr)),
            ("cidr_contains_ip_string", Impl::Binary(contains_ip_string)),
            ("cidr_contains_ip_ip", Impl::Binary(contains_ip)),
            (
                "cidr_contains_cidr_string",
                Impl::Binary(contains_cidr_string),
            ),
            ("cidr_contains_cidr", Impl::Binary(contains_cidr)),
            ("cidr_ip", Impl::Unary(cidr_ip)),
            ("cidr_prefix_length", Impl::Unary(prefix_length)),
            ("cidr_masked", Impl::Unary(masked)),
            ("is_cidr", Impl::Unary(is_cidr)),
            ("cidr_to_string", Impl::Unary(cidr_to_string)),
        ],
    }
}

fn cidr_of(value: &Value<'_>) -> Result<Prefix, EvalError> {
    argv::opaque::<Cidr>(value).map(|c| c.0)
}

fn string_to_cidr<'a>(arg: &Value<'a>) -> Outcome<'a> {
    let prefix = parse_cidr(argv::string(arg)?).map_err(|e| {
        EvalError::new(format!(
            "network address parse error during conversion from string: {e}"
        ))
    })?;
    Ok(argv::wrap(Cidr(prefix)))
}

/// kube converts the string with `ip()` and, when that fails, reports the mismatch it
/// then meets as `no such overload` (its parse error is lost).
fn contains_ip_string<'a>(cidr: &Value<'a>, ip: &Value<'a>) -> Outcome<'a> {
    let prefix = cidr_of(cidr)?;
    match super::ip::parse_ip(argv::string(ip)?) {
        Ok(addr) => Ok(Value::Bool(prefix.contains(addr))),
        Err(_) => Err(argv::no_such_overload()),
    }
}

fn contains_ip<'a>(cidr: &Value<'a>, ip: &Value<'a>) -> Outcome<'a> {
    let addr = argv::opaque::<Ip>(ip)?.0;
    Ok(Value::Bool(cidr_of(cidr)?.contains(addr)))
}

fn contains_cidr_string<'a>(cidr: &Value<'a>, other: &Value<'a>) -> Outcome<'a> {
    let other = string_to_cidr(other)?;
    contains_cidr(cidr, &other)
}

/// Overlapping and at least as long a prefix.
fn contains_cidr<'a>(cidr: &Value<'a>, other: &Value<'a>) -> Outcome<'a> {
    let (outer, inner) = (cidr_of(cidr)?, cidr_of(other)?);
    Ok(Value::Bool(
        outer.overlaps(inner) && outer.bits <= inner.bits,
    ))
}

fn cidr_ip<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(argv::wrap(Ip(cidr_of(arg)?.addr)))
}

fn prefix_length<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Int(i64::from(cidr_of(arg)?.bits)))
}

fn masked<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(argv::wrap(Cidr(cidr_of(arg)?.masked())))
}

fn is_cidr<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(parse_cidr(argv::string(arg)?).is_ok()))
}

fn cidr_to_string<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(Value::string(cidr_of(arg)?.to_string()))
}

#[cfg(test)]
mod tests;
