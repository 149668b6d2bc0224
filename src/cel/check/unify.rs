//! Type unification as cel-go's checker does it (`checker/types.go`, `mapping.go`):
//! assignability with type-parameter substitutions, the most general of two types,
//! the occurs check, and substitution of bound parameters.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::cel::types::Type;

/// Bindings of type parameters (by name) to types.
#[derive(Clone, Debug, Default)]
pub(super) struct Mapping {
    bound: HashMap<&'static str, Type>,
}

impl Mapping {
    fn find(&self, t: &Type) -> Option<&Type> {
        match t {
            Type::Param(name) => self.bound.get(name),
            _ => None,
        }
    }

    fn add(&mut self, param: &Type, to: Type) {
        if let Type::Param(name) = param {
            self.bound.insert(name, to);
        }
    }

    /// `t1` assignable to `t2`: the updated bindings, or `None` (bindings untouched).
    pub(super) fn assign(&self, t1: &Type, t2: &Type) -> Option<Mapping> {
        let mut copy = self.clone();
        assignable(&mut copy, t1, t2).then_some(copy)
    }

    /// Each `l1[i]` assignable to `l2[i]`, lengths equal.
    pub(super) fn assign_list(&self, l1: &[Type], l2: &[Type]) -> Option<Mapping> {
        let mut copy = self.clone();
        assignable_list(&mut copy, l1, l2).then_some(copy)
    }

    /// Replaces bound parameters (recursively); unbound ones by `dyn` when `to_dyn`.
    pub(super) fn substitute(&self, t: &Type, to_dyn: bool) -> Type {
        if let Some(sub) = self.find(t) {
            return self.substitute(sub, to_dyn);
        }
        match t {
            Type::Param(_) if to_dyn => Type::Dyn,
            Type::List(e) => Type::list(self.substitute(e, to_dyn)),
            Type::Map(k, v) => Type::map(self.substitute(k, to_dyn), self.substitute(v, to_dyn)),
            Type::Optional(e) => Type::optional(self.substitute(e, to_dyn)),
            Type::Type(e) => Type::type_of(self.substitute(e, to_dyn)),
            other => other.clone(),
        }
    }
}

/// The name of the `n`th fresh type variable (`_var0`, ...). Names are interned once
/// for the process: their number is bounded by the largest expression checked.
pub(super) fn fresh_var_name(n: usize) -> &'static str {
    static NAMES: OnceLock<Mutex<Vec<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    while names.len() <= n {
        let name = format!("_var{}", names.len());
        names.push(Box::leak(name.into_boxed_str()));
    }
    names[n]
}

/// cel-go's `isDyn`.
pub(super) fn is_dyn(t: &Type) -> bool {
    matches!(t, Type::Dyn)
}

/// The type parameters of a composite type, in cel-go's order (list element, map key
/// and value, optional and type parameter).
fn params(t: &Type) -> Vec<&Type> {
    match t {
        Type::List(e) | Type::Optional(e) | Type::Type(e) => vec![e],
        Type::Map(k, v) => vec![k, v],
        _ => Vec::new(),
    }
}

/// Same kind and type name (cel-go compares `Kind()` and `TypeName()`).
fn same_kind_and_name(t1: &Type, t2: &Type) -> bool {
    match (t1, t2) {
        (Type::Object(a), Type::Object(b)) => a.name == b.name,
        (Type::Opaque(a), Type::Opaque(b)) | (Type::Param(a), Type::Param(b)) => a == b,
        _ => std::mem::discriminant(t1) == std::mem::discriminant(t2),
    }
}

/// cel-go's `IsExactType`.
pub(super) fn is_exact(t1: &Type, t2: &Type) -> bool {
    same_kind_and_name(t1, t2) && {
        let (p1, p2) = (params(t1), params(t2));
        p1.len() == p2.len() && p1.iter().zip(&p2).all(|(a, b)| is_exact(a, b))
    }
}

/// cel-go's `Type.IsAssignableType` (default rules: no type-parameter bindings).
fn is_assignable_type(to: &Type, from: &Type) -> bool {
    if is_dyn(to) {
        return true;
    }
    let (pt, pf) = (params(to), params(from));
    same_kind_and_name(to, from)
        && pt.len() == pf.len()
        && pt.iter().zip(&pf).all(|(a, b)| is_assignable_type(a, b))
}

fn is_nullable(t: &Type) -> bool {
    matches!(
        t,
        Type::Opaque(_) | Type::Optional(_) | Type::Object(_) | Type::Duration | Type::Timestamp
    ) || is_assignable_type(t, &Type::Null)
}

fn assignable(m: &mut Mapping, t1: &Type, t2: &Type) -> bool {
    if matches!(t2, Type::Param(_)) {
        match valid_substitution(m, t1, t2) {
            (true, _) => return true,
            (false, true) => return false,
            (false, false) => {}
        }
    }
    if matches!(t1, Type::Param(_)) {
        return valid_substitution(m, t2, t1).0;
    }
    if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
        return true;
    }
    if matches!(t1, Type::Null) {
        return is_nullable(t2);
    }
    if matches!(t2, Type::Null) {
        return is_nullable(t1);
    }
    match t1 {
        Type::Bool
        | Type::Bytes
        | Type::Double
        | Type::Int
        | Type::String
        | Type::Uint
        | Type::Duration
        | Type::Timestamp
        | Type::Object(_) => is_assignable_type(t2, t1),
        Type::Type(_) => matches!(t2, Type::Type(_)),
        Type::Opaque(_) | Type::Optional(_) | Type::List(_) | Type::Map(..) => {
            same_kind_and_name(t1, t2) && {
                let (p1, p2) = (params(t1), params(t2));
                p1.len() == p2.len() && p1.iter().zip(&p2).all(|(a, b)| assignable(m, a, b))
            }
        }
        _ => false,
    }
}

fn assignable_list(m: &mut Mapping, l1: &[Type], l2: &[Type]) -> bool {
    l1.len() == l2.len() && l1.iter().zip(l2).all(|(a, b)| assignable(m, a, b))
}

/// Whether `t2` (a parameter) can stand for `t1`, binding it if so; and whether it
/// was already bound.
fn valid_substitution(m: &mut Mapping, t1: &Type, t2: &Type) -> (bool, bool) {
    if is_exact(t1, t2) {
        return (true, true);
    }
    if let Some(sub) = m.find(t2).cloned() {
        if is_exact(t1, &sub) {
            return (true, true);
        }
        if assignable(m, t1, &sub) {
            let general = most_general(t1, &sub);
            if not_referenced_in(m, t2, &general) {
                m.add(t2, general);
            }
            return (true, true);
        }
        return (false, true);
    }
    if not_referenced_in(m, t2, t1) {
        m.add(t2, t1.clone());
        return (true, false);
    }
    (false, false)
}

/// The occurs check.
fn not_referenced_in(m: &Mapping, t: &Type, within: &Type) -> bool {
    if is_exact(t, within) {
        return false;
    }
    match within {
        Type::Param(_) => m
            .find(within)
            .is_none_or(|sub| not_referenced_in(m, t, sub)),
        _ => params(within)
            .into_iter()
            .all(|p| not_referenced_in(m, t, p)),
    }
}

/// cel-go's `mostGeneral` of two types known to unify.
pub(super) fn most_general(t1: &Type, t2: &Type) -> Type {
    if equal_or_less_specific(t1, t2) {
        t1.clone()
    } else {
        t2.clone()
    }
}

fn equal_or_less_specific(t1: &Type, t2: &Type) -> bool {
    if is_dyn(t1) || matches!(t1, Type::Param(_)) {
        return true;
    }
    if is_dyn(t2) || matches!(t2, Type::Param(_)) {
        return false;
    }
    match (t1, t2) {
        (Type::Type(_), Type::Type(_)) => true,
        (Type::Opaque(_) | Type::Optional(_) | Type::List(_) | Type::Map(..), _) => {
            same_kind_and_name(t1, t2) && {
                let (p1, p2) = (params(t1), params(t2));
                p1.len() == p2.len()
                    && p1
                        .iter()
                        .zip(&p2)
                        .all(|(a, b)| equal_or_less_specific(a, b))
            }
        }
        _ => is_exact(t1, t2),
    }
}
