//! The static cost of calls (cel-go `costCall` and `functionCost`): library estimators
//! first (cel-go extensions by overload id, then kube's by function name), then cel-go's
//! own rules for string, list, regex and logical operators, else 1 plus the arguments.

use std::ops::Add;

use super::arith::{
    CostEstimate, REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR, SizeEstimate,
};
use super::estimator::{Coster, Node};
use super::{ext, kube};
use crate::cel::ast::{Expr, ExprKind};
use crate::cel::checked::Reference;

/// A call's cost and, for strings, bytes, lists and maps, its result size.
pub(super) struct CallEstimate {
    pub cost: CostEstimate,
    pub result_size: Option<SizeEstimate>,
}

impl CallEstimate {
    pub fn cost(cost: CostEstimate) -> CallEstimate {
        CallEstimate {
            cost,
            result_size: None,
        }
    }

    pub fn fixed(cost: u64) -> CallEstimate {
        CallEstimate::cost(CostEstimate::fixed(cost))
    }

    pub fn sized(cost: CostEstimate, size: SizeEstimate) -> CallEstimate {
        CallEstimate {
            cost,
            result_size: Some(size),
        }
    }
}

/// One call, as the function estimators see it.
pub(super) struct Call<'n, 'e> {
    pub expr: &'e Expr,
    pub function: &'e str,
    pub overload: &'e str,
    pub target: Option<&'n Node<'e>>,
    pub args: &'n [Node<'e>],
    pub arg_costs: &'n [CostEstimate],
}

impl<'a> Coster<'a> {
    pub(super) fn cost_call(&mut self, e: &'a Expr) -> CostEstimate {
        let ExprKind::Call {
            function,
            target,
            args,
        } = &e.kind
        else {
            return CostEstimate::default();
        };
        // `dyn` only disables type checking: 1 plus its argument, sizes passed through.
        if function == "dyn"
            && let [arg] = args.as_slice()
        {
            let arg_cost = self.cost(arg);
            self.copy_size_estimates(e, arg);
            return CostEstimate::fixed(1).add(arg_cost);
        }
        let mut arg_costs = Vec::with_capacity(args.len());
        let mut arg_nodes = Vec::with_capacity(args.len());
        for arg in args {
            arg_costs.push(self.cost(arg));
            arg_nodes.push(self.node(arg));
        }
        let overloads = match self.checked.refs.get(&e.id) {
            Some(Reference::Overloads(ids)) if !ids.is_empty() => ids.clone(),
            _ => return CostEstimate::default(),
        };
        let mut sum = CostEstimate::default();
        let target_node = match target {
            Some(t) => {
                sum = sum.add(self.cost(t));
                Some(self.node(t))
            }
            None => None,
        };
        let mut fn_cost = CostEstimate {
            min: u64::MAX,
            max: 0,
        };
        let mut result_size: Option<SizeEstimate> = None;
        for overload in overloads {
            let call = Call {
                expr: e,
                function,
                overload,
                target: target_node.as_ref(),
                args: &arg_nodes,
                arg_costs: &arg_costs,
            };
            let estimate = self.function_cost(&call);
            fn_cost = fn_cost.union(estimate.cost);
            if let Some(size) = estimate.result_size {
                result_size = Some(result_size.map_or(size, |r| r.union(size)));
            }
            let step = match overload {
                "index_list" => "@items",
                "index_map" => "@values",
                _ => "",
            };
            if let (false, Some(container)) = (step.is_empty(), args.first()) {
                result_size = self.compute_entry_size(container).map(|entry| entry.val);
                let mut path = self.path(container);
                path.push(step.to_string());
                self.add_path(e.id, path);
            }
            if result_size.is_none() {
                result_size = self.compute_size(e);
            }
        }
        self.set_size(e.id, result_size);
        sum.add(fn_cost)
    }

    fn function_cost(&mut self, call: &Call) -> CallEstimate {
        let arg_sum = call
            .arg_costs
            .iter()
            .fold(CostEstimate::default(), |sum, c| sum.add(*c));
        let library = ext::estimate_call(self, call).or_else(|| kube::estimate_call(self, call));
        if let Some(estimate) = library {
            return CallEstimate {
                cost: estimate.cost.add(arg_sum),
                result_size: estimate.result_size,
            };
        }
        match self.builtin_cost(call, arg_sum) {
            Some(estimate) => estimate,
            // Everything else is O(1).
            None => CallEstimate::cost(CostEstimate::fixed(1).add(arg_sum)),
        }
    }

    /// cel-go's own estimates of O(n) and O(nm) standard functions and of the logical
    /// operators; `None` for O(1) calls.
    fn builtin_cost(&mut self, call: &Call, arg_sum: CostEstimate) -> Option<CallEstimate> {
        let size = |n: &Node| n.computed.unwrap_or(SizeEstimate::UNKNOWN);
        let traversal = STRING_TRAVERSAL_COST_FACTOR;
        let args = call.args;
        let estimate = match (call.overload, call.target, args) {
            ("string_format", Some(target), _) => {
                CallEstimate::cost(size(target).multiply_by_cost_factor(traversal).add(arg_sum))
            }
            ("string_to_bytes", _, [arg]) => {
                let sz = size(arg);
                let result = SizeEstimate {
                    min: sz.min,
                    max: sz.max.wrapping_mul(4),
                };
                CallEstimate::sized(sz.multiply_by_cost_factor(traversal).add(arg_sum), result)
            }
            ("bytes_to_string", _, [arg]) => {
                let sz = size(arg);
                let result = SizeEstimate {
                    min: sz.min / 4,
                    max: sz.max,
                };
                CallEstimate::sized(sz.multiply_by_cost_factor(traversal).add(arg_sum), result)
            }
            ("strings_quote", _, [arg]) => {
                let sz = size(arg);
                let result = SizeEstimate {
                    min: sz.min.wrapping_add(2),
                    max: sz.max.wrapping_mul(2).wrapping_add(2),
                };
                CallEstimate::sized(sz.multiply_by_cost_factor(traversal).add(arg_sum), result)
            }
            ("starts_with_string" | "ends_with_string", _, [arg]) => {
                CallEstimate::cost(size(arg).multiply_by_cost_factor(traversal).add(arg_sum))
            }
            ("in_list", _, [_, list]) => {
                CallEstimate::cost(size(list).multiply_by_cost_factor(1.0).add(arg_sum))
            }
            ("matches_string", Some(s), [re]) | ("matches", None, [s, re]) => {
                let str_cost = size(s)
                    .add(SizeEstimate::fixed(1))
                    .multiply_by_cost_factor(traversal);
                let re_cost = size(re).multiply_by_cost_factor(REGEX_STRING_LENGTH_COST_FACTOR);
                CallEstimate::cost(str_cost.multiply(re_cost).add(arg_sum))
            }
            ("contains_string", Some(target), [sub]) => {
                let str_cost = size(target).multiply_by_cost_factor(traversal);
                let sub_cost = size(sub).multiply_by_cost_factor(traversal);
                CallEstimate::cost(str_cost.multiply(sub_cost).add(arg_sum))
            }
            ("logical_or" | "logical_and", _, _) if call.arg_costs.len() >= 2 => {
                // Short-circuiting: at least the left side, at most both.
                let (lhs, rhs) = (call.arg_costs[0], call.arg_costs[1]);
                CallEstimate::cost(CostEstimate {
                    min: lhs.min,
                    max: lhs.add(rhs).max,
                })
            }
            ("conditional", _, [_, if_true, if_false]) => {
                let result = size(if_true).union(size(if_false));
                let entry = match (if_true.expr, if_false.expr) {
                    (Some(t), Some(f)) => self.union_entry_sizes(t, f),
                    _ => None,
                };
                self.set_entry_size(call.expr.id, entry);
                let costs = call.arg_costs;
                let cost = costs[0].add(costs[1].union(costs[2]));
                CallEstimate::sized(cost, result)
            }
            ("add_string" | "add_bytes" | "add_list", _, [lhs, rhs]) => {
                let result = size(lhs).add(size(rhs));
                if let (Some(l), Some(r)) = (lhs.expr, rhs.expr) {
                    let entry = self.union_entry_sizes(l, r);
                    self.set_entry_size(call.expr.id, entry);
                }
                let cost = match call.overload {
                    // List concatenation is O(1); handled here for the result size.
                    "add_list" => CostEstimate::fixed(1),
                    _ => result.multiply_by_cost_factor(traversal),
                };
                CallEstimate::sized(cost.add(arg_sum), result)
            }
            (
                "less_string"
                | "greater_string"
                | "less_equals_string"
                | "greater_equals_string"
                | "less_bytes"
                | "greater_bytes"
                | "less_equals_bytes"
                | "greater_equals_bytes"
                | "equals"
                | "not_equals",
                _,
                [lhs, rhs, ..],
            ) => {
                let smallest_max = size(lhs).max.min(size(rhs).max);
                let min = u64::from(smallest_max > 0);
                let cost = CostEstimate {
                    min,
                    max: smallest_max,
                };
                CallEstimate::cost(cost.multiply_by_cost_factor(traversal).add(arg_sum))
            }
            _ => return None,
        };
        Some(estimate)
    }
}
