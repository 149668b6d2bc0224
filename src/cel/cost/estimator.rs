//! The static estimator's walk (cel-go `checker/cost.go` `coster`): costs of idents,
//! selects, literals, list and map creation and comprehensions, with cel-go's tracking of
//! field paths, local variables and computed sizes. Calls are in [`super::calls`].

use std::ops::Add;

use std::collections::HashMap;

use super::SizeEstimator;
use super::arith::{
    CostEstimate, LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST, SELECT_AND_IDENT_COST,
    STRUCT_CREATE_BASE_COST, SizeEstimate,
};
use super::sizes::EntrySize;
use crate::cel::ast::{Comprehension, Expr, ExprKind, Id, Literal};
use crate::cel::checked::Checked;
use crate::cel::types::Type;

/// cel-go's accumulator names (`parser.AccumulatorName`, `parser.HiddenAccumulatorName`).
const ACCUMULATOR_NAME: &str = "__result__";
const HIDDEN_ACCUMULATOR_NAME: &str = "@result";

/// A field path: the root variable, then field names, `@items`, `@values`, `@keys`,
/// `@indices`. Empty when the node is not reachable from a variable.
pub(super) type Path = Vec<String>;

/// What function estimators see of an argument or target (cel-go `AstNode`).
pub(super) struct Node<'e> {
    pub expr: Option<&'e Expr>,
    /// The path, without paths rooted at accumulator variables.
    pub path: Path,
    pub ty: Type,
    pub computed: Option<SizeEstimate>,
}

pub(super) struct Local {
    pub path: Path,
    pub size: Option<SizeEstimate>,
    pub entry: Option<EntrySize>,
}

pub(super) struct Coster<'a> {
    pub checked: &'a Checked,
    pub(super) sizer: &'a dyn SizeEstimator,
    pub(super) paths: HashMap<Id, Path>,
    pub(super) locals: HashMap<String, Vec<Local>>,
    pub(super) sizes: HashMap<Id, SizeEstimate>,
    pub(super) entry_sizes: HashMap<Id, EntrySize>,
}

impl<'a> Coster<'a> {
    pub fn new(checked: &'a Checked, sizer: &'a dyn SizeEstimator) -> Coster<'a> {
        Coster {
            checked,
            sizer,
            paths: HashMap::new(),
            locals: HashMap::new(),
            sizes: HashMap::new(),
            entry_sizes: HashMap::new(),
        }
    }

    pub fn cost(&mut self, e: &'a Expr) -> CostEstimate {
        match &e.kind {
            ExprKind::Literal(_) => CostEstimate::default(),
            ExprKind::Ident(name) => {
                let path = match self.peek_local(name) {
                    Some(v) => v.path.clone(),
                    None => vec![name.clone()],
                };
                self.paths.insert(e.id, path);
                CostEstimate::fixed(SELECT_AND_IDENT_COST)
            }
            ExprKind::Select {
                operand,
                field,
                test,
            } => self.cost_select(e, operand, field, *test),
            ExprKind::Call { .. } => self.cost_call(e),
            ExprKind::List { elements, .. } => self.cost_create_list(e, elements),
            ExprKind::Map { entries } => {
                let mut sum = CostEstimate::default();
                let mut key = SizeEstimate {
                    min: u64::MAX,
                    max: 0,
                };
                let mut val = key;
                if entries.is_empty() {
                    (key.min, val.min) = (0, 0);
                }
                for entry in entries {
                    sum = sum.add(self.cost(&entry.key)).add(self.cost(&entry.value));
                    key = key.union(self.size_or_unknown(&entry.key));
                    val = val.union(self.size_or_unknown(&entry.value));
                }
                let entry = EntrySize {
                    list: false,
                    key,
                    val,
                };
                self.entry_sizes.insert(e.id, entry);
                sum.add(CostEstimate::fixed(MAP_CREATE_BASE_COST))
            }
            ExprKind::Struct { fields, .. } => {
                let mut sum = CostEstimate::default();
                for f in fields {
                    sum = sum.add(self.cost(&f.value));
                }
                sum.add(CostEstimate::fixed(STRUCT_CREATE_BASE_COST))
            }
            ExprKind::Comprehension(c) if is_bind(c) => self.cost_bind(e, c),
            ExprKind::Comprehension(c) => self.cost_comprehension(e, c),
        }
    }

    fn cost_select(
        &mut self,
        e: &Expr,
        operand: &'a Expr,
        field: &str,
        test: bool,
    ) -> CostEstimate {
        if test {
            // kube sets `PresenceTestHasCost(false)`: only the operand costs.
            return self.cost(operand);
        }
        let mut sum = self.cost(operand);
        if matches!(
            self.checked.type_of(operand.id),
            Type::Map(..) | Type::Object(_) | Type::Param(_)
        ) {
            sum = sum.add(CostEstimate::fixed(SELECT_AND_IDENT_COST));
        }
        let mut path = self.path(operand);
        path.push(field.to_string());
        self.paths.insert(e.id, path);
        sum
    }

    fn cost_create_list(&mut self, e: &Expr, elements: &'a [Expr]) -> CostEstimate {
        let mut sum = CostEstimate::default();
        let mut item = SizeEstimate {
            min: u64::MAX,
            max: 0,
        };
        if elements.is_empty() {
            item.min = 0;
        }
        for el in elements {
            sum = sum.add(self.cost(el));
            item = item.union(self.size_or_unknown(el));
        }
        let entry = EntrySize {
            list: true,
            key: SizeEstimate::fixed(1),
            val: item,
        };
        self.entry_sizes.insert(e.id, entry);
        sum.add(CostEstimate::fixed(LIST_CREATE_BASE_COST))
    }

    fn cost_comprehension(&mut self, e: &Expr, c: &'a Comprehension) -> CostEstimate {
        let mut sum = self.cost(&c.range).add(self.cost(&c.accu_init));
        self.push_local(&c.accu_var, &c.accu_init);
        match &c.iter_var2 {
            Some(var2) => {
                self.push_iter(&c.iter_var, &c.range, Iter::Key);
                self.push_iter(var2, &c.range, Iter::Value);
            }
            None => self.push_iter(&c.iter_var, &c.range, Iter::Single),
        }
        let loop_cost = self.cost(&c.loop_cond);
        let step_cost = self.cost(&c.loop_step);
        self.pop_local(&c.iter_var);
        if let Some(var2) = &c.iter_var2 {
            self.pop_local(var2);
        }
        sum = sum.add(self.cost(&c.result));
        self.pop_local(&c.accu_var);
        let range_count = self.size_or_unknown(&c.range);
        sum = sum.add(range_count.multiply_by_cost(step_cost.add(loop_cost)));
        match &c.accu_init.kind {
            ExprKind::Literal(_) => {
                if let Some(size) = self.compute_size(&c.accu_init) {
                    self.sizes.insert(e.id, size);
                }
            }
            ExprKind::List { .. } | ExprKind::Map { .. } => {
                self.sizes.insert(e.id, range_count);
                if let Some(entry) = self.compute_entry_size(&c.loop_step) {
                    self.entry_sizes.insert(e.id, entry);
                }
            }
            _ => {}
        }
        sum
    }

    /// `cel.bind`-shaped comprehensions are lazy: no loop, the binding costs once.
    fn cost_bind(&mut self, e: &Expr, c: &'a Comprehension) -> CostEstimate {
        let mut sum = self.cost(&c.range).add(self.cost(&c.accu_init));
        self.push_local(&c.accu_var, &c.accu_init);
        sum = sum.add(self.cost(&c.result));
        self.pop_local(&c.accu_var);
        self.copy_size_estimates(e, &c.result);
        sum
    }

    fn push_local(&mut self, name: &str, e: &Expr) {
        let local = Local {
            path: self.path(e),
            entry: self.compute_entry_size(e),
            size: self.compute_size(e),
        };
        self.locals.entry(name.to_string()).or_default().push(local);
    }

    fn push_iter(&mut self, name: &str, range: &Expr, iter: Iter) {
        let entry = self.compute_entry_size(range);
        let list = match entry {
            Some(entry) => entry.list,
            None => matches!(self.checked.type_of(range.id), Type::List(_)),
        };
        let (size, subpath) = match (iter, list) {
            (Iter::Single, true) | (Iter::Value, true) => (entry.map(|e| e.val), "@items"),
            (Iter::Single, false) | (Iter::Key, false) => (entry.map(|e| e.key), "@keys"),
            (Iter::Key, true) => (entry.map(|e| e.key), "@indices"),
            (Iter::Value, false) => (entry.map(|e| e.val), "@values"),
        };
        let mut path = self.path(range);
        path.push(subpath.to_string());
        let local = Local {
            path,
            size,
            entry: None,
        };
        self.locals.entry(name.to_string()).or_default().push(local);
    }

    pub(super) fn peek_local(&self, name: &str) -> Option<&Local> {
        self.locals.get(name).and_then(|stack| stack.last())
    }

    fn pop_local(&mut self, name: &str) {
        if let Some(stack) = self.locals.get_mut(name) {
            stack.pop();
        }
    }

    /// cel-go `getPath`: a local variable's path, else the node's recorded path.
    pub fn path(&self, e: &Expr) -> Path {
        if let ExprKind::Ident(name) = &e.kind
            && let Some(v) = self.peek_local(name)
        {
            return v.path.clone();
        }
        self.paths.get(&e.id).cloned().unwrap_or_default()
    }

    pub fn add_path(&mut self, id: Id, path: Path) {
        self.paths.insert(id, path);
    }

    /// cel-go `newAstNode`.
    pub fn node(&mut self, e: &'a Expr) -> Node<'a> {
        let mut path = self.path(e);
        if path
            .first()
            .is_some_and(|root| root == ACCUMULATOR_NAME || root == HIDDEN_ACCUMULATOR_NAME)
        {
            path.clear();
        }
        Node {
            expr: Some(e),
            path,
            ty: self.checked.type_of(e.id).clone(),
            computed: self.compute_size(e),
        }
    }
}

#[derive(Clone, Copy)]
enum Iter {
    Single,
    Key,
    Value,
}

/// cel-go `isBind`: an empty range, a `false` loop condition, and an accumulator that is
/// not the macros' `__result__`.
fn is_bind(c: &Comprehension) -> bool {
    matches!(&c.range.kind, ExprKind::List { elements, .. } if elements.is_empty())
        && matches!(c.loop_cond.kind, ExprKind::Literal(Literal::Bool(false)))
        && c.accu_var != ACCUMULATOR_NAME
}
