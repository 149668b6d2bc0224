//! Planning a checked expression once, as cel-go's planner with kube's options does:
//! identifiers to frame slots, selections and indexes to attribute qualifiers, calls to
//! their implementations (several candidates dispatched at run time), and cel-go's
//! `OptOptimize` folds (constant lists and maps, constant type conversions,
//! `x in [constants]` set membership) plus constant `matches` patterns compiled once.

use std::sync::Arc;

use crate::cel::ast::{Comprehension, Expr, ExprKind, StructField};
use crate::cel::checked::{Checked, Reference};
use crate::cel::env::Env;
use crate::cel::mutation;

use super::constfold::{fold_constant, run_constant};
use super::konst::Const;
use super::node::{Attr, Base, Call, Fold, Node, Overload, Qual, QualKey, Target, Watch};
use super::regex;

pub(super) struct Planner<'c> {
    checked: &'c Checked,
    env: &'c Env,
    /// Visible variables, innermost last.
    scopes: Vec<(String, usize)>,
    /// Accumulator slots in scope with their initializers, evaluated on first reference.
    accumulators: Vec<(usize, Node)>,
    pub slots: usize,
    /// The root slot read through [`super::Lazy`], if any.
    pub lazy: Option<usize>,
}

const TYPE_CONVERSIONS: [&str; 10] = [
    "bool",
    "bytes",
    "double",
    "duration",
    "dyn",
    "int",
    "string",
    "timestamp",
    "type",
    "uint",
];

impl<'c> Planner<'c> {
    pub(super) fn new(checked: &'c Checked, env: &'c Env, vars: &[&str]) -> Planner<'c> {
        Planner {
            checked,
            env,
            scopes: vars
                .iter()
                .enumerate()
                .map(|(i, v)| (v.to_string(), i))
                .collect(),
            accumulators: Vec::new(),
            slots: vars.len(),
            lazy: None,
        }
    }

    pub(super) fn plan(&mut self, e: &Expr) -> Result<Node, String> {
        match &e.kind {
            ExprKind::Literal(l) => Ok(Node::Const(Const::from_literal(l))),
            ExprKind::Ident(name) => self.ident(e, name),
            ExprKind::Select {
                operand,
                field,
                test,
            } => {
                if let Some(Reference::TypeName(t)) = self.checked.refs.get(&e.id) {
                    return Ok(Node::Const(Const::Type(Arc::new(t.clone()))));
                }
                let op = self.plan(operand)?;
                let mut attr = to_attr(op);
                attr.quals.push(Qual::field(field, false, *test));
                if *test {
                    attr.watch = Watch::TestOnly;
                }
                Ok(Node::Attr(Box::new(attr)))
            }
            ExprKind::Call {
                function,
                target,
                args,
            } => {
                let mut planned = Vec::with_capacity(args.len() + 1);
                if let Some(t) = target {
                    planned.push(self.plan(t)?);
                }
                for a in args {
                    planned.push(self.plan(a)?);
                }
                self.call(e, function, planned)
            }
            ExprKind::List { elements, optional } => {
                let elements = elements
                    .iter()
                    .map(|x| self.plan(x))
                    .collect::<Result<Vec<_>, _>>()?;
                let flags = (0..elements.len()).map(|i| optional.contains(&i)).collect();
                Ok(fold_constant(Node::List {
                    elements,
                    optional: flags,
                }))
            }
            ExprKind::Map { entries } => {
                let mut planned = Vec::with_capacity(entries.len());
                for entry in entries {
                    planned.push((
                        self.plan(&entry.key)?,
                        self.plan(&entry.value)?,
                        entry.optional,
                    ));
                }
                Ok(fold_constant(Node::Map { entries: planned }))
            }
            ExprKind::Struct { name, fields } => self.create_struct(name, fields),
            ExprKind::Comprehension(c) => self.comprehension(c),
        }
    }

    /// A struct of kube's mutation types (the only ones the checker lets through).
    fn create_struct(&mut self, name: &str, fields: &[StructField]) -> Result<Node, String> {
        let ty = mutation::resolve(name)
            .filter(|_| self.env.patch_types)
            .ok_or_else(|| format!("unknown type: {name}"))?;
        let mut planned = Vec::with_capacity(fields.len());
        for f in fields {
            planned.push((
                Arc::<str>::from(f.field.as_str()),
                self.plan(&f.value)?,
                f.optional,
            ));
        }
        Ok(Node::Struct {
            ty,
            fields: planned,
        })
    }

    fn ident(&mut self, e: &Expr, name: &str) -> Result<Node, String> {
        let name = match self.checked.refs.get(&e.id) {
            Some(Reference::TypeName(t)) => {
                return Ok(Node::Const(Const::Type(Arc::new(t.clone()))));
            }
            Some(Reference::Variable(v)) => v.as_str(),
            _ => name,
        };
        let Some(&(_, slot)) = self.scopes.iter().rev().find(|(n, _)| n == name) else {
            return Err(format!("undeclared reference to '{name}'"));
        };
        let base = match self.accumulators.iter().find(|(s, _)| *s == slot) {
            Some((_, init)) => Base::LazySlot {
                slot,
                init: Box::new(init.clone()),
            },
            None if self.lazy == Some(slot) => Base::Lazy,
            None => Base::Slot(slot),
        };
        Ok(Node::Attr(Box::new(Attr {
            base,
            quals: Vec::new(),
            watch: Watch::Plain,
        })))
    }

    fn push(&mut self, name: &str) -> usize {
        let slot = self.slots;
        self.slots += 1;
        self.scopes.push((name.to_string(), slot));
        slot
    }

    fn comprehension(&mut self, c: &Comprehension) -> Result<Node, String> {
        let accu_init = self.plan(&c.accu_init)?;
        let range = self.plan(&c.range)?;
        let depth = self.scopes.len();
        let accu = self.push(&c.accu_var);
        self.accumulators.push((accu, accu_init));
        let iter = self.push(&c.iter_var);
        let iter2 = c.iter_var2.as_deref().map(|v| self.push(v));
        let cond = self.plan(&c.loop_cond)?;
        let step = self.plan(&c.loop_step)?;
        self.scopes.truncate(depth + 1);
        let result = self.plan(&c.result)?;
        self.scopes.truncate(depth);
        self.accumulators.pop();
        Ok(Node::Fold(Box::new(Fold {
            range,
            iter,
            iter2,
            accu,
            cond,
            step,
            result,
        })))
    }

    fn call(&mut self, e: &Expr, function: &str, mut args: Vec<Node>) -> Result<Node, String> {
        match (function, args.len()) {
            ("_&&_", _) => return Ok(Node::And(args)),
            ("_||_", _) => return Ok(Node::Or(args)),
            ("_?_:_", 3) => {
                let falsy = args.pop().map(to_attr);
                let truthy = args.pop().map(to_attr);
                if let (Some(cond), Some(truthy), Some(falsy)) = (args.pop(), truthy, falsy) {
                    return Ok(Node::Attr(Box::new(Attr {
                        base: Base::Conditional {
                            cond,
                            truthy: Box::new(truthy),
                            falsy: Box::new(falsy),
                        },
                        quals: Vec::new(),
                        watch: Watch::Conditional,
                    })));
                }
            }
            ("_==_" | "_!=_", 2) => {
                let rhs = args.pop().map(Box::new);
                if let (Some(lhs), Some(rhs)) = (args.pop(), rhs) {
                    let negate = function == "_!=_";
                    return Ok(Node::Eq {
                        lhs: Box::new(lhs),
                        rhs,
                        negate,
                    });
                }
            }
            ("_[_]" | "_[?_]" | "_?._", 2) => return index(function != "_[_]", args),
            _ => {}
        }
        let overloads = match self.checked.refs.get(&e.id) {
            Some(Reference::Overloads(ids)) => ids.clone(),
            _ => Vec::new(),
        };
        let overload = match overloads.as_slice() {
            [one] => *one,
            _ => "",
        };
        if matches!(
            (function, overload),
            ("or", "" | "optional_or_optional") | ("orValue", "" | "optional_orValue_value")
        ) && let [_, _] = args.as_slice()
            && let (Some(rhs), Some(lhs)) = (args.pop(), args.pop())
        {
            return Ok(Node::OptionalOr {
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
                value: function == "orValue",
            });
        }
        let target = self.target(function, &overloads, &args)?;
        let call = Node::Call(Box::new(Call {
            function: function.to_string(),
            overload,
            args,
            target,
            fixed_cost: super::cost::fixed_cost(function, overload),
        }));
        self.optimize_call(function, overload, call)
    }

    fn target(
        &self,
        function: &str,
        ids: &[&'static str],
        args: &[Node],
    ) -> Result<Target, String> {
        if function == "@not_strictly_false" {
            return Ok(Target::NotStrictlyFalse);
        }
        if function == "matches"
            && let Some(Const::String(pattern)) = args.get(1).and_then(Node::as_const)
        {
            return regex::compile(pattern).map(|r| Target::Regex(Arc::new(r)));
        }
        // kube's `FindRegexOptimization` / `FindAllRegexOptimization`: a constant
        // pattern that does not compile fails program creation.
        if matches!(function, "find" | "findAll")
            && let Some(Const::String(pattern)) = args.get(1).and_then(Node::as_const)
        {
            regex::compile(pattern)?;
        }
        let functions = &self.env.functions;
        let overload = |id: &str| {
            let decl = functions.decl(id)?;
            Some(Overload {
                implementation: functions.implementation(id)?,
                params: decl.params.clone(),
            })
        };
        if let [one] = ids {
            return Ok(overload(one).map_or(Target::Missing, Target::Single));
        }
        let candidates: Vec<Overload> = functions
            .overloads(function)
            .iter()
            .filter(|d| d.params.len() == args.len())
            .filter_map(|d| overload(d.id))
            .collect();
        Ok(if candidates.is_empty() {
            Target::Missing
        } else {
            Target::Dynamic(candidates)
        })
    }

    /// cel-go's `OptOptimize` on calls: constant type conversions and set membership.
    fn optimize_call(&self, function: &str, overload: &str, call: Node) -> Result<Node, String> {
        let Node::Call(c) = &call else {
            return Ok(call);
        };
        if TYPE_CONVERSIONS.contains(&function)
            && c.args.len() == 1
            && c.args[0].as_const().is_some()
        {
            return match run_constant(&call) {
                Ok(v) => Ok(Const::from_value(&v).map_or(call, Node::Const)),
                Err(e) => Err(e.to_string()),
            };
        }
        if overload == "in_list"
            && let Some(Const::List(items)) = c.args.get(1).and_then(Node::as_const)
        {
            if items.is_empty() {
                return Ok(Node::Const(Const::Bool(false)));
            }
            if items.iter().all(Const::is_set_element) {
                let set = items.to_vec();
                let Node::Call(mut c) = call else {
                    return Ok(call);
                };
                let arg = c.args.swap_remove(0);
                return Ok(Node::SetMembership {
                    arg: Box::new(arg),
                    set,
                });
            }
        }
        Ok(call)
    }
}

/// A planned node as an attribute: attributes as they are, anything else as the base
/// of a relative attribute.
fn to_attr(node: Node) -> Attr {
    match node {
        Node::Attr(a) => *a,
        other => Attr {
            base: Base::Relative(other),
            quals: Vec::new(),
            watch: Watch::Plain,
        },
    }
}

/// `a[i]`, `a[?i]`, `a.?f`: a qualifier on the operand's attribute. cel-go refuses a
/// constant key of a type it has no qualifier for when it builds the program.
fn index(optional: bool, mut args: Vec<Node>) -> Result<Node, String> {
    let key = args.pop();
    let op = args.pop();
    let (Some(op), Some(key)) = (op, key) else {
        return Ok(Node::Const(Const::Null));
    };
    let mut attr = to_attr(op);
    let key = match key {
        Node::Const(
            c @ (Const::Null
            | Const::Bytes(_)
            | Const::Duration(_)
            | Const::Timestamp(_)
            | Const::Type(_)
            | Const::Optional(_)),
        ) => {
            let name = super::ops::go_type(&c.to_value());
            return Err(format!("invalid qualifier type: {name}"));
        }
        Node::Const(c) => QualKey::Const(c),
        other => QualKey::Dynamic(Box::new(to_attr(other))),
    };
    attr.quals.push(Qual {
        key,
        optional,
        test_only: false,
    });
    Ok(Node::Attr(Box::new(attr)))
}
