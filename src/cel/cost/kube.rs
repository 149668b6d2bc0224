//! kube's static estimates of its library functions (k8s.io/apiserver
//! `pkg/cel/library/cost.go` `EstimateCallCost`), chosen by function name as kube does:
//! lists, regex, strings, URLs, IP and CIDR, quantity, semver, format, authz, and
//! equality of library types.

use std::ops::Add;

use super::arith::{
    CostEstimate, LIST_CREATE_BASE_COST, REGEX_STRING_LENGTH_COST_FACTOR,
    STRING_TRAVERSAL_COST_FACTOR, STRUCT_CREATE_BASE_COST, SizeEstimate,
};
use super::calls::{Call, CallEstimate};
use super::estimator::{Coster, Node};
use crate::cel::ast::{ExprKind, Literal};
use crate::cel::types::Type;

const TRAVERSAL: f64 = STRING_TRAVERSAL_COST_FACTOR;
/// k8s `cel.MaxFormatSize`.
pub const MAX_FORMAT_SIZE: u64 = 64;
/// k8s `cel.MaxNameFormatRegexSize`.
pub const MAX_NAME_FORMAT_REGEX_SIZE: u64 = 128;

/// kube's estimate for a call, `None` where kube has none.
pub(super) fn estimate_call(c: &Coster, call: &Call) -> Option<CallEstimate> {
    let (target, args) = (call.target, call.args);
    let size = |n: &Node| c.node_size(n);
    let estimate = match call.function {
        // An authorization check is priced to allow two per expression.
        "check" => CallEstimate::fixed(350_000),
        "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace" | "name"
        | "allowed" | "reason" | "error" | "errored" => CallEstimate::fixed(1),
        "fieldSelector" | "labelSelector" => match args {
            [selector] => CallEstimate::cost(selector_cost(size(selector))),
            _ => return None,
        },
        "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" => {
            list_traversal(c, target?)
        }
        "url" | "jsonpatch.escapeKey" => match args {
            [s] => transform(size(s), TRAVERSAL),
            _ => return None,
        },
        "lowerAscii" | "upperAscii" | "substring" | "trim" => transform(size(target?), TRAVERSAL),
        "replace" if args.len() >= 2 => replace(size(target?), size(&args[0]), size(&args[1])),
        "split" => {
            let sz = size(target?);
            let max = match args.get(1).and_then(|n| n.expr).map(|e| &e.kind) {
                // A negative literal limit wraps, as Go's uint64 conversion does.
                Some(ExprKind::Literal(Literal::Int(i))) => *i as u64,
                _ => sz.max,
            };
            let cost = sz.multiply_by_cost_factor(2.0 * TRAVERSAL);
            CallEstimate::sized(cost, SizeEstimate { min: 0, max })
        }
        "join" => join(c, target?, args.first()),
        "find" | "findAll" => {
            let (target, pattern) = (target?, args.first()?);
            let sz = size(target);
            let str_cost = sz
                .add(SizeEstimate::fixed(1))
                .multiply_by_cost_factor(TRAVERSAL);
            let re_cost = size(pattern).multiply_by_cost_factor(REGEX_STRING_LENGTH_COST_FACTOR);
            // At worst every character is a separate match.
            let result = SizeEstimate {
                min: 0,
                max: sz.max,
            };
            CallEstimate::sized(str_cost.multiply(re_cost), result)
        }
        "cidr" | "isIP" | "isCIDR" | "quantity" | "isQuantity" | "semver" | "isSemver" => {
            CallEstimate::cost(size(args.first()?).multiply_by_cost_factor(TRAVERSAL))
        }
        // The IP of a CIDR is a field access.
        "ip" if call.overload == "cidr_ip" => CallEstimate::fixed(1),
        "ip" => CallEstimate::cost(size(args.first()?).multiply_by_cost_factor(TRAVERSAL)),
        // Parsed, then compared with the original: twice a parse.
        "ip.isCanonical" => {
            CallEstimate::cost(size(args.first()?).multiply_by_cost_factor(2.0 * TRAVERSAL))
        }
        "masked"
        | "prefixLength"
        | "family"
        | "isUnspecified"
        | "isLoopback"
        | "isLinkLocalMulticast"
        | "isLinkLocalUnicast"
        | "isGlobalUnicast" => CallEstimate::fixed(1),
        "containsIP" => contains(c, call, false)?,
        "containsCIDR" => contains(c, call, true)?,
        "validate" => {
            let per_char = size(args.first()?).multiply_by_cost_factor(TRAVERSAL);
            let regex = (MAX_NAME_FORMAT_REGEX_SIZE as f64) * REGEX_STRING_LENGTH_COST_FACTOR;
            CallEstimate::cost(per_char.multiply_by_cost_factor(regex))
        }
        "format.named" | "sign" | "asInteger" | "isInteger" | "asApproximateFloat"
        | "isGreaterThan" | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor"
        | "patch" | "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath"
        | "getQuery" => CallEstimate::fixed(1),
        "_==_" => equality(args)?,
        _ => return None,
    };
    Some(estimate)
}

/// `selectorCostEstimate`: parse the string, then a struct and a list per requirement
/// (at most one per 2 characters).
fn selector_cost(length: SizeEstimate) -> CostEstimate {
    let parse = length.multiply_by_cost_factor(TRAVERSAL);
    let requirements = length.multiply_by_cost_factor(0.5);
    let per_requirement = (LIST_CREATE_BASE_COST + STRUCT_CREATE_BASE_COST) as f64;
    CostEstimate::fixed(LIST_CREATE_BASE_COST)
        .add(parse)
        .add(requirements.multiply_by_cost_factor(per_requirement))
}

fn transform(sz: SizeEstimate, factor: f64) -> CallEstimate {
    CallEstimate::sized(sz.multiply_by_cost_factor(factor), sz)
}

/// kube's `listElementNode`: the first type parameter, at the `@items` path.
fn element_node<'e>(list: &Node<'e>) -> Option<Node<'e>> {
    let ty = match &list.ty {
        Type::List(t) | Type::Optional(t) | Type::Type(t) | Type::Map(t, _) => (**t).clone(),
        _ => return None,
    };
    let mut path = list.path.clone();
    if !path.is_empty() {
        path.push("@items".to_string());
    }
    Some(Node {
        expr: None,
        path,
        ty,
        computed: None,
    })
}

/// One comparison per element, plus traversing strings and bytes; a string target
/// (`indexOf`, `lastIndexOf`) is one traversal.
fn list_traversal(c: &Coster, target: &Node) -> CallEstimate {
    let Some(elem) = element_node(target) else {
        return CallEstimate::cost(c.node_size(target).multiply_by_cost_factor(TRAVERSAL));
    };
    let mut elem_cost = CostEstimate::fixed(1);
    if matches!(elem.ty, Type::String | Type::Bytes) {
        elem_cost = elem_cost.add(c.node_size(&elem).multiply_by_cost_factor(TRAVERSAL));
    }
    CallEstimate::cost(c.node_size(target).multiply_by_cost(elem_cost))
}

fn join(c: &Coster, target: &Node, separator: Option<&Node>) -> CallEstimate {
    let list = c.node_size(target);
    let mut sz = match element_node(target) {
        Some(elem) => list.multiply(c.node_size(&elem)),
        None => SizeEstimate { min: 0, max: 0 },
    };
    if let Some(sep) = separator {
        let separators = SizeEstimate {
            min: list.min.saturating_sub(1),
            max: list.max.saturating_sub(1),
        };
        sz = sz.add(c.node_size(sep).multiply(separators));
    }
    CallEstimate::sized(sz.multiply_by_cost_factor(TRAVERSAL), sz)
}

/// `replace`: the result is bounded by replacing the smallest matches with the largest
/// replacement as often as possible (and the reverse for the minimum).
fn replace(sz: SizeEstimate, to_replace: SizeEstimate, with: SizeEstimate) -> CallEstimate {
    let mut count = SizeEstimate { min: 0, max: 0 };
    let mut retained = SizeEstimate { min: 0, max: 0 };
    if to_replace.min == 0 {
        count.max = if sz.max < u64::MAX {
            sz.max + 1
        } else {
            sz.max
        };
        retained.max = sz.max;
    } else if with.max <= to_replace.min {
        retained.max = sz.max;
    } else {
        count.max = go_float_to_u64((sz.max as f64 / to_replace.min as f64).ceil());
    }
    if to_replace.max == 0 {
        count.min = if sz.min < u64::MAX {
            sz.min + 1
        } else {
            sz.min
        };
        retained.min = sz.min;
    } else if to_replace.max <= with.min {
        retained.min = sz.min;
    } else {
        count.min = go_float_to_u64((sz.min as f64 / to_replace.max as f64).ceil());
    }
    let result = count.multiply(with).add(retained);
    CallEstimate::sized(sz.multiply_by_cost_factor(2.0 * TRAVERSAL), result)
}

/// Go's `uint64(f)` on amd64 for the values reachable here (at most 2^64).
fn go_float_to_u64(f: f64) -> u64 {
    if f >= 9_223_372_036_854_775_808.0 {
        // amd64 converts out-of-int64-range floats to 1<<63.
        1 << 63
    } else {
        f as u64
    }
}

/// `containsIP` / `containsCIDR`: comparing 4 to 16 address bytes, masking for CIDRs,
/// and parsing a string argument.
fn contains(c: &Coster, call: &Call, cidr: bool) -> Option<CallEstimate> {
    let arg = call.args.first()?;
    let address = SizeEstimate { min: 4, max: 16 };
    let mut cost = address.add(address).multiply_by_cost_factor(TRAVERSAL);
    if cidr {
        cost = cost
            .add(address.multiply_by_cost_factor(TRAVERSAL))
            .add(CostEstimate::fixed(1));
    }
    if matches!(
        call.overload,
        "cidr_contains_ip_string" | "cidr_contains_cidr_string"
    ) {
        let parse = CostEstimate::from_size(c.node_size(arg)).multiply_by_cost_factor(TRAVERSAL);
        cost = cost.add(parse);
    }
    Some(CallEstimate::cost(cost))
}

/// Equality of two values of the same library type.
fn equality(args: &[Node]) -> Option<CallEstimate> {
    let [lhs, rhs] = args else {
        return None;
    };
    if !lhs.ty.same(&rhs.ty) {
        return None;
    }
    let Type::Opaque(name) = &lhs.ty else {
        return None;
    };
    match *name {
        "net.IP"
        | "net.CIDR"
        | "kubernetes.Quantity"
        | "kubernetes.Semver"
        | "kubernetes.authorization.Authorizer"
        | "kubernetes.authorization.PathCheck"
        | "kubernetes.authorization.GroupCheck"
        | "kubernetes.authorization.ResourceCheck"
        | "kubernetes.authorization.Decision" => Some(CallEstimate::fixed(1)),
        "kubernetes.NamedFormat" => {
            let cost = CostEstimate {
                min: 1,
                max: MAX_FORMAT_SIZE,
            };
            Some(CallEstimate::cost(cost.multiply_by_cost_factor(TRAVERSAL)))
        }
        "kubernetes.URL" => {
            // kube reads the right-hand size twice (for both sides).
            let size = rhs.computed.unwrap_or(SizeEstimate::fixed(1));
            let cost = CostEstimate {
                min: 1,
                max: size.max,
            };
            Some(CallEstimate::cost(cost.multiply_by_cost_factor(TRAVERSAL)))
        }
        _ => None,
    }
}
