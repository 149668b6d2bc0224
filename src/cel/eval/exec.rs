//! Running a plan: each step with cel-go's semantics (strict calls, error absorption by
//! `&&` / `||`, attribute qualification, optional selection) and its run-time cost,
//! charged where cel-go's cost observer charges it and checked against the limit at
//! each charge, as cel-go does while it evaluates.

use std::rc::Rc;

use crate::cel::functions::Impl;
use crate::cel::value::{EvalError, Value};

use super::CostTracker;
use super::cost;
use super::node::{Attr, Base, Call, Node, Overload, Qual, QualKey, Target, Watch};
use super::ops::{self, Outcome};
use super::select::Selected;
use super::small::Small;

/// A frame's variable slots: inline for `self`, `oldSelf` and one comprehension.
pub(super) type Slots<'a> = Small<Option<Outcome<'a>>, 5>;

/// A call's argument values: inline up to three.
type Args<'a> = Small<Value<'a>, 3>;

/// Evaluation state: variable slots (comprehension variables may hold errors, as
/// cel-go's accumulators do) and the cost tracker.
pub(super) struct Frame<'t, 'a> {
    pub slots: Slots<'a>,
    pub tracker: &'t mut CostTracker,
    pub presence_test_has_cost: bool,
    /// Where [`Base::Lazy`] reads its fields.
    pub lazy: Option<&'t mut dyn super::Lazy<'a>>,
}

pub(super) fn fatal(e: &EvalError) -> bool {
    matches!(e, EvalError::CostLimitExceeded)
}

impl<'a> Frame<'_, 'a> {
    pub(super) fn charge(&mut self, cost: u64) -> Result<(), EvalError> {
        let t = &mut *self.tracker;
        t.actual = t.actual.saturating_add(cost);
        match t.limit {
            Some(limit) if t.actual > limit => Err(EvalError::CostLimitExceeded),
            _ => Ok(()),
        }
    }

    fn slot(&self, i: usize) -> Outcome<'a> {
        match self.slots.get(i) {
            Some(Some(v)) => v.clone(),
            _ => Err(EvalError::new("no such attribute(s)")),
        }
    }

    pub(super) fn eval(&mut self, node: &Node) -> Outcome<'a> {
        match node {
            Node::Const(c) => Ok(c.to_value()),
            Node::Attr(a) => self.attr(a),
            Node::Call(c) => self.call(c),
            Node::Eq { lhs, rhs, negate } => self.eq(lhs, rhs, *negate),
            Node::And(terms) => self.logic(terms, false),
            Node::Or(terms) => self.logic(terms, true),
            Node::List { elements, optional } => {
                let r = self.list(elements, optional);
                self.constructed(r, cost::LIST_CREATE_BASE_COST)
            }
            Node::Map { entries } => {
                let r = self.map(entries);
                self.constructed(r, cost::MAP_CREATE_BASE_COST)
            }
            Node::Struct { ty, fields } => {
                let r = self.create_struct(ty, fields);
                self.constructed(r, cost::STRUCT_CREATE_BASE_COST)
            }
            Node::Fold(f) => self.fold(f),
            Node::OptionalOr { lhs, rhs, value } => match self.eval(lhs)? {
                Value::Optional(Some(v)) if *value => Ok(Value::clone(&v)),
                Value::Optional(Some(v)) => Ok(Value::Optional(Some(v))),
                Value::Optional(None) => self.eval(rhs),
                _ => Err(ops::no_such_overload()),
            },
            Node::SetMembership { arg, set } => {
                let v = self.eval(arg)?;
                Ok(Value::Bool(
                    set.iter()
                        .any(|c| ops::equal(&c.to_value(), &v).unwrap_or(false)),
                ))
            }
        }
    }

    /// Constructors are charged whatever their outcome.
    fn constructed(&mut self, r: Outcome<'a>, cost: u64) -> Outcome<'a> {
        if matches!(&r, Err(e) if fatal(e)) {
            return r;
        }
        self.charge(cost)?;
        r
    }

    fn attr(&mut self, a: &Attr) -> Outcome<'a> {
        let r = self.resolve(a);
        if matches!(&r, Err(e) if fatal(e)) {
            return r;
        }
        match a.watch {
            Watch::Plain => self.charge(1)?,
            Watch::Conditional => {}
            Watch::TestOnly if self.presence_test_has_cost => self.charge(1)?,
            Watch::TestOnly => {}
        }
        r
    }

    /// An attribute's value without its own watch cost.
    pub(super) fn resolve(&mut self, a: &Attr) -> Outcome<'a> {
        let obj = match &a.base {
            Base::Slot(i) => self.slot(*i)?,
            Base::LazySlot { slot, init } => {
                if self.slots[*slot].is_none() {
                    let v = self.eval(init);
                    if matches!(&v, Err(e) if fatal(e)) {
                        return v;
                    }
                    self.slots[*slot] = Some(v);
                }
                self.slot(*slot)?
            }
            Base::Lazy => return self.lazy_attr(&a.quals),
            Base::Relative(n) => self.eval(n)?,
            Base::Conditional {
                cond,
                truthy,
                falsy,
            } => match self.eval(cond)? {
                Value::Bool(true) => self.resolve(truthy)?,
                Value::Bool(false) => self.resolve(falsy)?,
                _ => return Err(ops::no_such_overload()),
            },
        };
        self.qualify_all(obj, &a.quals, false)
    }

    /// Applies `quals` in order to `obj` (unwrapping an optional `obj` first).
    pub(super) fn qualify_all(
        &mut self,
        mut obj: Value<'a>,
        quals: &[Qual],
        mut optional: bool,
    ) -> Outcome<'a> {
        if quals.is_empty() {
            return Ok(obj);
        }
        if let Value::Optional(inner) = &obj {
            match inner {
                None => return Ok(obj),
                Some(v) => {
                    let v = Value::clone(v);
                    obj = v;
                    optional = true;
                }
            }
        }
        for q in quals {
            optional |= q.optional;
            match self.select_field(&obj, q, optional) {
                Some(Ok(Selected::Value(v))) => {
                    obj = v;
                    continue;
                }
                Some(Ok(Selected::Missing)) => return Ok(Value::Optional(None)),
                Some(Ok(Selected::Present(b))) => return Ok(Value::Bool(b)),
                Some(Err(e)) => return Err(e),
                None => {}
            }
            let key = match &q.key {
                QualKey::Const(c) => c.to_value(),
                QualKey::Dynamic(k) => match self.resolve(k).and_then(ops::qualifier_key) {
                    Ok(v) => v,
                    Err(e) if fatal(&e) => return Err(e),
                    Err(e) => {
                        // cel-go observes a failed qualification too, unless optional.
                        if !optional {
                            self.charge(1)?;
                        }
                        return Err(e);
                    }
                },
            };
            if q.test_only {
                return self.presence(&obj, &key);
            }
            obj = match self.qualify(&obj, &key, optional)? {
                Some(v) => v,
                None => return Ok(Value::Optional(None)),
            };
        }
        Ok(if optional {
            Value::Optional(Some(Rc::new(obj)))
        } else {
            obj
        })
    }

    /// One qualifier application (cost 1); `None` when an optional qualifier misses
    /// (uncharged, as cel-go observes only present values there).
    fn qualify(
        &mut self,
        obj: &Value<'a>,
        key: &Value<'a>,
        optional: bool,
    ) -> Result<Option<Value<'a>>, EvalError> {
        if optional {
            let found = ops::find(obj, key);
            if matches!(found, Ok(Some(_))) {
                self.charge(1)?;
            }
            return found;
        }
        let r = ops::index(obj, key);
        self.charge(1)?;
        r.map(Some)
    }

    fn presence(&mut self, obj: &Value<'a>, key: &Value<'a>) -> Outcome<'a> {
        let r = match obj {
            Value::Map(_) | Value::List(_) | Value::Opaque(_) => {
                ops::find(obj, key).map(|v| Value::Bool(v.is_some()))
            }
            _ => Ok(Value::Bool(false)),
        };
        self.charge(1)?;
        r
    }

    fn logic(&mut self, terms: &[Node], is_or: bool) -> Outcome<'a> {
        let mut err = None;
        for t in terms {
            match self.eval(t) {
                Ok(Value::Bool(b)) if b == is_or => return Ok(Value::Bool(b)),
                Ok(Value::Bool(_)) => {}
                Err(e) if fatal(&e) => return Err(e),
                Err(e) => {
                    err.get_or_insert(e);
                }
                Ok(_) => {
                    err.get_or_insert_with(ops::no_such_overload);
                }
            }
        }
        match err {
            Some(e) => Err(e),
            None => Ok(Value::Bool(!is_or)),
        }
    }

    fn eq(&mut self, lhs: &Node, rhs: &Node, negate: bool) -> Outcome<'a> {
        let l = self.eval(lhs)?;
        let r = self.eval(rhs);
        let (r, result) = match r {
            Ok(r) => {
                let eq = ops::equal(&l, &r).map(|b| Value::Bool(b != negate));
                (r, eq)
            }
            Err(e) if fatal(&e) => return Err(e),
            Err(e) => (Value::Null, Err(e)),
        };
        let (function, overload) = if negate {
            ("_!=_", "not_equals")
        } else {
            ("_==_", "equals")
        };
        let shown = result.as_ref().map_or(Value::Null, Value::clone);
        self.charge(cost::call_cost(function, overload, &[l, r], &shown))?;
        result
    }

    fn call(&mut self, c: &Call) -> Outcome<'a> {
        let mut args = Args::with_capacity(c.args.len(), || Value::Null);
        let last = c.args.len().saturating_sub(1);
        let non_strict = matches!(c.target, Target::NotStrictlyFalse);
        for (i, a) in c.args.iter().enumerate() {
            match self.eval(a) {
                Ok(v) => args.push(v),
                Err(e) if fatal(&e) => return Err(e),
                Err(_) if non_strict => args.push(Value::Bool(true)),
                Err(e) => {
                    // Every argument was evaluated: cel-go still charges the call.
                    if i == last {
                        args.push(Value::Null);
                        self.charge(cost::call_cost(
                            &c.function,
                            c.overload,
                            &args,
                            &Value::Null,
                        ))?;
                    }
                    return Err(e);
                }
            }
        }
        let result = self.invoke(c, &args);
        let shown = result.as_ref().map_or(Value::Null, Value::clone);
        let charged = if c.fixed_cost {
            1
        } else {
            cost::call_cost(&c.function, c.overload, &args, &shown)
        };
        self.charge(charged)?;
        result
    }

    fn invoke(&self, c: &Call, args: &[Value<'a>]) -> Outcome<'a> {
        match &c.target {
            Target::Single(o) if guard(o, args) => run(o.implementation, args),
            Target::Single(_) => ops::dispatch_fallback(&c.function, args),
            Target::Dynamic(candidates) => match candidates.iter().find(|o| guard(o, args)) {
                Some(o) => run(o.implementation, args),
                None => ops::dispatch_fallback(&c.function, args),
            },
            Target::Regex(re) => match args.first() {
                Some(Value::String(s)) => Ok(Value::Bool(re.is_match(s.as_str()))),
                _ => Err(ops::no_such_overload()),
            },
            Target::NotStrictlyFalse => match args.first() {
                Some(Value::Bool(b)) => Ok(Value::Bool(*b)),
                _ => Ok(Value::Bool(true)),
            },
            Target::Missing => Err(EvalError::new(format!("no such overload: {}", c.function))),
        }
    }
}

fn guard(o: &Overload, args: &[Value<'_>]) -> bool {
    o.params.len() == args.len()
        && o.params
            .iter()
            .zip(args)
            .all(|(p, a)| ops::matches_param(p, a))
}

fn run<'a>(implementation: Impl, args: &[Value<'a>]) -> Outcome<'a> {
    match (implementation, args) {
        (Impl::Unary(f), [a]) => f(a),
        (Impl::Binary(f), [a, b]) => f(a, b),
        (Impl::Ternary(f), [a, b, c]) => f(a, b, c),
        (Impl::Variadic(f), args) => f(args),
        _ => Err(ops::no_such_overload()),
    }
}

impl Qual {
    pub(super) fn field(name: &str, optional: bool, test_only: bool) -> Qual {
        Qual {
            key: QualKey::Const(super::konst::Const::String(name.into())),
            optional,
            test_only,
        }
    }
}
