//! The planned form of a checked expression: a tree of resolved steps mirroring the
//! interpretables cel-go's planner builds (attributes with qualifiers, calls bound to
//! their implementations, folds), which is what makes run-time costs come out as
//! cel-go's observers count them.

use std::sync::Arc;

use crate::cel::functions::Impl;
use crate::cel::types::Type;

use super::konst::Const;

/// One step of a plan.
#[derive(Clone, Debug)]
pub(super) enum Node {
    /// A literal or a folded constant: no cost.
    Const(Const),
    /// A watched attribute (cel-go `evalWatchAttr`).
    Attr(Box<Attr>),
    Call(Box<Call>),
    /// `_==_` / `_!=_` (cel-go `evalEq` / `evalNe`), costed as calls `equals` / `not_equals`.
    Eq {
        lhs: Box<Node>,
        rhs: Box<Node>,
        negate: bool,
    },
    And(Vec<Node>),
    Or(Vec<Node>),
    List {
        elements: Vec<Node>,
        optional: Vec<bool>,
    },
    Map {
        entries: Vec<(Node, Node, bool)>,
    },
    Fold(Box<Fold>),
    /// `opt.or(alt)` / `opt.orValue(alt)` (cel-go `evalOptionalOr` / `evalOptionalOrValue`):
    /// `alt` evaluated only when `opt` is empty; no call cost.
    OptionalOr {
        lhs: Box<Node>,
        rhs: Box<Node>,
        /// `orValue`: the value, not the optional.
        value: bool,
    },
    /// `x in [constants]` after cel-go's set-membership optimization: no call cost.
    SetMembership {
        arg: Box<Node>,
        set: Vec<Const>,
    },
}

/// How an attribute's evaluation is observed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Watch {
    /// Costs 1 once resolved.
    Plain,
    /// A ternary: no cost of its own.
    Conditional,
    /// `has()`: costs 1 only when presence tests have a cost.
    TestOnly,
}

/// An attribute: a base and the qualifiers applied to it, in order.
#[derive(Clone, Debug)]
pub(super) struct Attr {
    pub base: Base,
    pub quals: Vec<Qual>,
    pub watch: Watch,
}

#[derive(Clone, Debug)]
pub(super) enum Base {
    /// A variable in a frame slot; resolving it alone costs nothing.
    Slot(usize),
    /// A comprehension accumulator, initialized by `init` on its first reference (cel-go's
    /// `folder.ResolveName`): an initializer no evaluation reads is never evaluated.
    LazySlot { slot: usize, init: Box<Node> },
    /// The root variable read through [`super::Lazy`] (kube's composited `variables`):
    /// its first qualifier names the field.
    Lazy,
    /// Any other expression, evaluated with its own costs.
    Relative(Node),
    /// `c ? t : f`: the branches are resolved without their own watch cost.
    Conditional {
        cond: Node,
        truthy: Box<Attr>,
        falsy: Box<Attr>,
    },
}

/// A qualifier: a field name or index; each application costs 1.
#[derive(Clone, Debug)]
pub(super) struct Qual {
    pub key: QualKey,
    /// `_?._` / `_[?_]`.
    pub optional: bool,
    /// The last qualifier of `has()`.
    pub test_only: bool,
}

#[derive(Clone, Debug)]
pub(super) enum QualKey {
    Const(Const),
    /// A computed key: an attribute resolved without its watch cost.
    Dynamic(Box<Attr>),
}

/// How a call finds its implementation.
#[derive(Clone, Debug)]
pub(super) enum Target {
    /// One overload, with a run-time type guard on its parameters.
    Single(Overload),
    /// Several candidates: the first whose parameters match the argument values.
    Dynamic(Vec<Overload>),
    /// `matches` with a constant pattern, compiled once.
    Regex(Arc<regex::Regex>),
    /// `@not_strictly_false`: errors count as true.
    NotStrictlyFalse,
    /// No implementation is bound.
    Missing,
}

#[derive(Clone, Debug)]
pub(super) struct Overload {
    pub implementation: Impl,
    pub params: Vec<Type>,
}

#[derive(Clone, Debug)]
pub(super) struct Call {
    pub function: String,
    /// The overload id cel-go reports to the cost tracker: empty when chosen at run time.
    pub overload: &'static str,
    pub args: Vec<Node>,
    pub target: Target,
    /// The call costs 1 whatever its arguments (`cost::fixed_cost`), known when planned.
    pub fixed_cost: bool,
}

/// A comprehension over slots: `iter` (and `iter2`) per element, `accu` for the
/// accumulator.
#[derive(Clone, Debug)]
pub(super) struct Fold {
    pub range: Node,
    pub iter: usize,
    pub iter2: Option<usize>,
    pub accu: usize,
    pub cond: Node,
    pub step: Node,
    pub result: Node,
}

impl Node {
    pub(super) fn as_const(&self) -> Option<&Const> {
        match self {
            Node::Const(c) => Some(c),
            _ => None,
        }
    }
}
