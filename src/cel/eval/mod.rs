//! Evaluation of checked expressions with run-time cost accounting: a [`Plan`] is built
//! once per rule (shared between threads) and evaluated against [`Value`]s with
//! cel-go's semantics and costs as kube configures them (`OptOptimize`, cost tracking,
//! `PresenceTestHasCost(false)`).

mod constfold;
mod construct;
mod cost;
mod exec;
mod fold;
pub mod gotime;
pub mod json;
mod konst;
mod lazy;
mod node;
pub mod ops;
mod plan;
pub mod regex;
mod select;
mod small;

#[cfg(test)]
mod tests;

pub use json::{from_json, try_from_json};

use crate::cel::checked::Checked;
use crate::cel::env::Env;
use crate::cel::value::{EvalError, Value};

/// Values computed on demand by whoever evaluates a plan: kube's composited
/// `variables` (a lazily evaluated map, `pkg/cel/lazy`), each field computed on its
/// first access and kept for the rest of the evaluation context.
pub trait Lazy<'a> {
    /// The value of field `name`, computing it if needed; `None` if there is no such
    /// field. Its cost is the implementor's to account for, not the caller's tracker's.
    fn field(&mut self, name: &str) -> Option<Result<Value<'a>, EvalError>>;
}

/// A rule planned for evaluation.
#[derive(Debug)]
pub struct Plan {
    root: node::Node,
    roots: usize,
    slots: usize,
    presence_test_has_cost: bool,
}

/// The run-time cost of one evaluation, and the limit that stops it
/// (`operation cancelled: actual cost limit exceeded`).
#[derive(Clone, Debug, Default)]
pub struct CostTracker {
    pub actual: u64,
    pub limit: Option<u64>,
}

impl Plan {
    /// Plans a checked expression whose root variables are `vars`, in slot order.
    /// Fails as cel-go's program creation does (an invalid constant regex or a constant
    /// conversion that errors).
    pub fn new(checked: &Checked, env: &Env, vars: &[&str]) -> Result<Plan, String> {
        Plan::with_lazy(checked, env, vars, None)
    }

    /// As [`Plan::new`], with the root variable named `lazy` (one of `vars`) read
    /// through the [`Lazy`] given to [`Plan::evaluate_lazy`]: `lazy.<field>` asks it for
    /// the field (a qualifier's cost), other uses of the variable are errors.
    pub fn with_lazy(
        checked: &Checked,
        env: &Env,
        vars: &[&str],
        lazy: Option<&str>,
    ) -> Result<Plan, String> {
        let mut planner = plan::Planner::new(checked, env, vars);
        planner.lazy = lazy.and_then(|name| vars.iter().position(|v| *v == name));
        let root = planner.plan(&checked.ast.expr)?;
        Ok(Plan {
            root,
            roots: vars.len(),
            slots: planner.slots,
            presence_test_has_cost: false,
        })
    }

    /// cel-go's default (kube turns it off): `has()` costs 1.
    pub fn with_presence_test_cost(mut self, has_cost: bool) -> Plan {
        self.presence_test_has_cost = has_cost;
        self
    }

    /// Evaluates with the root variables' values in slot order, adding to `tracker`.
    pub fn evaluate<'a>(
        &self,
        vars: &[Value<'a>],
        tracker: &mut CostTracker,
    ) -> Result<Value<'a>, EvalError> {
        self.run(vars, tracker, None)
    }

    /// As [`Plan::evaluate`], the lazy variable's fields read from `lazy`.
    pub fn evaluate_lazy<'t, 'a>(
        &self,
        vars: &[Value<'a>],
        tracker: &'t mut CostTracker,
        lazy: &'t mut (dyn Lazy<'a> + 't),
    ) -> Result<Value<'a>, EvalError> {
        self.run(vars, tracker, Some(lazy))
    }

    fn run<'t, 'a>(
        &self,
        vars: &[Value<'a>],
        tracker: &'t mut CostTracker,
        lazy: Option<&'t mut (dyn Lazy<'a> + 't)>,
    ) -> Result<Value<'a>, EvalError> {
        let mut slots = exec::Slots::with_capacity(self.slots, || None);
        for v in vars.iter().take(self.roots) {
            slots.push(Some(Ok(v.clone())));
        }
        while slots.len() < self.slots {
            slots.push(None);
        }
        let mut frame = exec::Frame {
            slots,
            tracker,
            presence_test_has_cost: self.presence_test_has_cost,
            lazy,
        };
        frame.eval(&self.root)
    }
}
