//! cel-go's `OptOptimize` folding of constant list and map literals at plan time: built
//! once, free to evaluate.

use crate::cel::value::{EvalError, Value};

use super::CostTracker;
use super::exec::Frame;
use super::konst::Const;
use super::node::Node;

/// Evaluates a node without variables (plan-time folding).
pub(super) fn run_constant(node: &Node) -> Result<Value<'static>, EvalError> {
    let mut tracker = CostTracker {
        actual: 0,
        limit: None,
    };
    let mut frame = Frame {
        slots: super::exec::Slots::with_capacity(0, || None),
        tracker: &mut tracker,
        presence_test_has_cost: false,
        lazy: None,
    };
    frame.eval(node)
}

/// cel-go's constant list and map literals: built once, free to evaluate.
pub(super) fn fold_constant(node: Node) -> Node {
    let all_const = match &node {
        Node::List { elements, .. } => elements.iter().all(|e| e.as_const().is_some()),
        Node::Map { entries } => entries
            .iter()
            .all(|(k, v, _)| k.as_const().is_some() && v.as_const().is_some()),
        _ => false,
    };
    if !all_const {
        return node;
    }
    match run_constant(&node)
        .ok()
        .as_ref()
        .and_then(Const::from_value)
    {
        Some(c) => Node::Const(c),
        None => node,
    }
}
