//! Function overloads: the signatures the checker resolves calls against and the
//! implementations the evaluator runs, both keyed by cel-go's overload id
//! (`add_int64`, `contains_string`, `quantity_add`, ...) so the checker, the evaluator
//! and the cost model agree on which overload a call is.

use std::collections::HashMap;

use super::types::Type;
use super::value::{EvalError, Value};

/// The result of a function implementation.
pub type Outcome<'a> = Result<Value<'a>, EvalError>;

/// One overload's signature, as cel-go declares it.
#[derive(Clone, Debug)]
pub struct Decl {
    /// cel-go's overload id.
    pub id: &'static str,
    /// The function (`_+_`, `size`, `contains`, `quantity`, ...).
    pub function: &'static str,
    /// Receiver style (`a.f(b)`): the receiver is `params[0]`.
    pub member: bool,
    /// Parameter types; `Type::Param` names are type parameters scoped to this overload.
    pub params: Vec<Type>,
    pub result: Type,
}

impl Decl {
    pub fn global(
        id: &'static str,
        function: &'static str,
        params: Vec<Type>,
        result: Type,
    ) -> Decl {
        Decl {
            id,
            function,
            member: false,
            params,
            result,
        }
    }

    pub fn member(
        id: &'static str,
        function: &'static str,
        params: Vec<Type>,
        result: Type,
    ) -> Decl {
        Decl {
            id,
            function,
            member: true,
            params,
            result,
        }
    }
}

/// An overload's implementation; arguments in declaration order (receiver first).
#[derive(Clone, Copy)]
pub enum Impl {
    Unary(for<'a> fn(&Value<'a>) -> Outcome<'a>),
    Binary(for<'a> fn(&Value<'a>, &Value<'a>) -> Outcome<'a>),
    Ternary(for<'a> fn(&Value<'a>, &Value<'a>, &Value<'a>) -> Outcome<'a>),
    Variadic(for<'a> fn(&[Value<'a>]) -> Outcome<'a>),
}

impl std::fmt::Debug for Impl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Impl::Unary(_) => "Unary",
            Impl::Binary(_) => "Binary",
            Impl::Ternary(_) => "Ternary",
            Impl::Variadic(_) => "Variadic",
        })
    }
}

/// What a library contributes: signatures and implementations (by overload id).
/// Operators the evaluator implements itself (`_&&_`, `_||_`, `_?_:_`,
/// `@not_strictly_false`, `_[?_]`, `_?._`, ...) have a signature and no implementation.
#[derive(Default)]
pub struct Library {
    pub decls: Vec<Decl>,
    pub impls: Vec<(&'static str, Impl)>,
}

impl Library {
    pub fn extend(&mut self, other: Library) {
        self.decls.extend(other.decls);
        self.impls.extend(other.impls);
    }
}

/// The functions of one environment, indexed for the checker and the evaluator.
#[derive(Default)]
pub struct Functions {
    by_name: HashMap<&'static str, Vec<Decl>>,
    impls: HashMap<&'static str, Impl>,
}

impl Functions {
    pub fn new(library: Library) -> Functions {
        let mut by_name: HashMap<&'static str, Vec<Decl>> = HashMap::new();
        for decl in library.decls {
            by_name.entry(decl.function).or_default().push(decl);
        }
        Functions {
            by_name,
            impls: library.impls.into_iter().collect(),
        }
    }

    /// Every overload of a function, in declaration order.
    pub fn overloads(&self, function: &str) -> &[Decl] {
        self.by_name.get(function).map_or(&[], Vec::as_slice)
    }

    pub fn is_declared(&self, function: &str) -> bool {
        self.by_name.contains_key(function)
    }

    pub fn implementation(&self, overload_id: &str) -> Option<Impl> {
        self.impls.get(overload_id).copied()
    }

    /// The signature of an overload id.
    pub fn decl(&self, overload_id: &str) -> Option<&Decl> {
        self.by_name
            .values()
            .flatten()
            .find(|d| d.id == overload_id)
    }
}
