//! kube's run-time costs of its library calls (k8s.io/apiserver `library/cost.go`
//! `CallCost`), chosen by function name, and its `traversalCost` of values.

use super::arith::{
    LIST_CREATE_BASE_COST, REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR,
    STRUCT_CREATE_BASE_COST,
};
use super::runtime::sizer_size;
use crate::cel::decl::{DeclKind, DeclType};
use crate::cel::value::{List, Map, Value};

const TRAVERSAL: f64 = STRING_TRAVERSAL_COST_FACTOR;

/// Go's `uint64(math.Ceil(x))`.
fn ceil(x: f64) -> u64 {
    x.ceil() as u64
}

/// kube's cost of a call, `None` where kube leaves it to cel-go.
pub(super) fn call_cost(
    function: &str,
    overload_id: &str,
    args: &[Value],
    result: &Value,
) -> Option<u64> {
    let size = |i: usize| args.get(i).map(sizer_size);
    let cost = match function {
        "check" => 350_000,
        "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace" | "name"
        | "allowed" | "reason" | "error" | "errored" => 1,
        "fieldSelector" | "labelSelector" if args.len() >= 2 => selector_cost(size(1)?),
        "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" => {
            args.first().map_or(0, traversal_cost)
        }
        "url"
        | "lowerAscii"
        | "upperAscii"
        | "substring"
        | "trim"
        | "jsonpatch.escapeKey"
        | "cidr"
        | "isIP"
        | "isCIDR"
        | "quantity"
        | "isQuantity"
        | "semver"
        | "isSemver" => ceil(size(0)? as f64 * TRAVERSAL),
        // Traversal plus building the result; Go multiplies by 2 first, then by 0.1.
        "replace" | "split" | "ip.isCanonical" => ceil(size(0)? as f64 * 2.0 * TRAVERSAL),
        "join" if !args.is_empty() => ceil(sizer_size(result) as f64 * 2.0 * TRAVERSAL),
        "find" | "findAll" if args.len() >= 2 => regex_cost(size(0)?, size(1)? as f64),
        "ip" if !args.is_empty() && overload_id == "cidr_ip" => 1,
        "ip" => ceil(size(0)? as f64 * TRAVERSAL),
        "masked"
        | "prefixLength"
        | "family"
        | "isUnspecified"
        | "isLoopback"
        | "isLinkLocalMulticast"
        | "isLinkLocalUnicast"
        | "isGlobalUnicast" => 1,
        "containsIP" | "containsCIDR" if args.len() >= 2 => {
            let (cidr, other) = (size(0)?, size(1)?);
            // Comparing up to the prefix bytes of both addresses.
            let mut cost = ceil((cidr + cidr) as f64 * TRAVERSAL);
            if function == "containsCIDR" {
                // Masking the base CIDR and comparing the prefix bits.
                cost += ceil(cidr as f64 * TRAVERSAL) + 1;
            }
            if matches!(
                overload_id,
                "cidr_contains_ip_string" | "cidr_contains_cidr_string"
            ) {
                cost += ceil(other as f64 * TRAVERSAL);
            }
            cost
        }
        "validate" if args.len() >= 2 => {
            let Value::Opaque(format) = &args[0] else {
                return None;
            };
            regex_cost(size(1)?, format.max_regex_size()? as f64)
        }
        "format.named" | "sign" | "asInteger" | "isInteger" | "asApproximateFloat"
        | "isGreaterThan" | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor"
        | "patch" | "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath"
        | "getQuery" => 1,
        // Equality of kube's library values is O(1).
        "_==_" if matches!(args, [Value::Opaque(_), _]) => 1,
        _ => return None,
    };
    Some(cost)
}

/// The cost of a regex over a string: `ceil((1 + len) × 0.1) × ceil(pattern × 0.25)`.
fn regex_cost(str_size: u64, regex_size: f64) -> u64 {
    let str_cost = ceil((1.0 + str_size as f64) * TRAVERSAL);
    let re_cost = ceil(regex_size * REGEX_STRING_LENGTH_COST_FACTOR);
    str_cost.wrapping_mul(re_cost)
}

/// `selectorCostEstimate` for a known length: the maximum of its estimate.
fn selector_cost(length: u64) -> u64 {
    let parse = super::arith::safe_multiply_by_factor(length, TRAVERSAL);
    let requirements = super::arith::safe_multiply_by_factor(length, 0.5);
    let per_requirement = (LIST_CREATE_BASE_COST + STRUCT_CREATE_BASE_COST) as f64;
    let requirement_cost = super::arith::safe_multiply_by_factor(requirements, per_requirement);
    LIST_CREATE_BASE_COST
        .saturating_add(parse)
        .saturating_add(requirement_cost)
}

/// kube's `traversalCost`: strings and bytes by length (× 0.1, truncated), lists and maps
/// by their elements (keys too), anything else 1.
pub(super) fn traversal_cost(v: &Value) -> u64 {
    match v {
        Value::String(s) => text_cost(s.as_str().len()),
        Value::Bytes(b) => text_cost(b.len()),
        Value::List(List::Owned(items)) => items.iter().map(traversal_cost).sum(),
        Value::List(List::Json { items, decl }) => {
            let elem = list_elem(decl);
            items.iter().map(|i| json_cost(i, elem)).sum()
        }
        Value::Map(Map::Owned(entries)) => entries
            .iter()
            .map(|(k, v)| traversal_cost(k) + traversal_cost(v))
            .sum(),
        Value::Map(Map::Json { fields, decl }) => json_object_cost(fields, Some(decl)),
        Value::Map(Map::Untyped(fields)) => json_object_cost(fields, None),
        _ => 1,
    }
}

fn text_cost(len: usize) -> u64 {
    (len as f64 * TRAVERSAL) as u64
}

fn list_elem(decl: &DeclType) -> Option<&DeclType> {
    match &decl.kind {
        DeclKind::List { elem, .. } => Some(elem),
        _ => None,
    }
}

/// The traversal cost of a JSON value as kube converts it by its schema: `format: byte`
/// strings are their decoded bytes, dates and durations are scalars.
fn json_cost(v: &serde_json::Value, decl: Option<&DeclType>) -> u64 {
    use serde_json::Value as J;
    let kind = decl.map(|d| &d.kind);
    match (v, kind) {
        (J::String(s), Some(DeclKind::Bytes)) => text_cost(base64_decoded_len(s)),
        (J::String(_), Some(DeclKind::Timestamp | DeclKind::Duration)) => 1,
        (J::String(s), _) => text_cost(s.len()),
        (J::Array(items), _) => {
            let elem = decl.and_then(list_elem);
            items.iter().map(|i| json_cost(i, elem)).sum()
        }
        (J::Object(fields), _) => json_object_cost(fields, decl),
        _ => 1,
    }
}

/// Maps by key and value; objects by their declared properties under CEL names.
fn json_object_cost(
    fields: &serde_json::Map<String, serde_json::Value>,
    decl: Option<&DeclType>,
) -> u64 {
    let mut cost = 0;
    for (key, value) in fields {
        let (name, value_decl) = match decl.map(|d| &d.kind) {
            Some(DeclKind::Object { fields: declared }) => {
                let Some((cel_name, field)) = declared.iter().find(|(_, f)| f.json_name == *key)
                else {
                    continue;
                };
                (cel_name.as_str(), Some(&*field.decl))
            }
            Some(DeclKind::Map { value }) => (key.as_str(), Some(&**value)),
            _ => (key.as_str(), None),
        };
        cost += text_cost(name.len()) + json_cost(value, value_decl);
    }
    cost
}

/// The length of standard base64 once decoded.
fn base64_decoded_len(s: &str) -> usize {
    let padding = s.bytes().rev().take_while(|b| *b == b'=').count();
    (s.len() / 4 * 3).saturating_sub(padding)
}

/// Whether a JSON list's first element converts to a string or bytes.
pub(super) fn json_list_starts_with_text(items: &[serde_json::Value], decl: &DeclType) -> bool {
    let elem = list_elem(decl).map(|d| &d.kind);
    matches!(
        (items.first(), elem),
        (
            Some(serde_json::Value::String(_)),
            Some(DeclKind::String | DeclKind::Bytes | DeclKind::IntOrString) | None
        )
    )
}
