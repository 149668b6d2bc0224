//! What the checker hands to the cost estimator and the planner: the expression with a
//! type for every node, what each identifier and call refers to, and which nodes denote
//! schema values (cel-go's cost "paths": `self`, its fields and elements, comprehension
//! variables over them) with their declaration, whose size bounds the estimator uses.

use std::collections::HashMap;
use std::sync::Arc;

use super::ast::{Ast, Id};
use super::decl::DeclType;
use super::types::Type;

/// A type-checked expression.
#[derive(Debug)]
pub struct Checked {
    pub ast: Ast,
    /// The type of every node (after substituting type parameters).
    pub types: HashMap<Id, Type>,
    pub refs: HashMap<Id, Reference>,
    /// Schema declarations of the nodes that denote schema values.
    pub decls: HashMap<Id, Arc<DeclType>>,
}

/// What an identifier or a call resolved to.
#[derive(Clone, Debug)]
pub enum Reference {
    /// A declared variable (`self`, `oldSelf`) or a comprehension variable.
    Variable(String),
    /// A type name used as a value (`int`, `string`, `list`, `net.IP`, ...).
    TypeName(Type),
    /// A call: the overloads that may apply, by cel-go id (several when arguments are
    /// `dyn` and the choice is made at run time).
    Overloads(Vec<&'static str>),
}

impl Checked {
    /// The checked type of a node (`dyn` when unknown).
    pub fn type_of(&self, id: Id) -> &Type {
        self.types.get(&id).unwrap_or(&Type::Dyn)
    }
}
