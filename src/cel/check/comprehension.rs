//! Checking of comprehensions (the expanded macros): the accumulator, the iteration
//! variables typed from the range (one- and two-variable forms), and which of them
//! denote schema values.

use std::sync::Arc;

use super::Checker;
use super::expr::map_key_decl;
use super::format::format_type;
use super::scope::Binding;
use crate::cel::ast::{Comprehension, Id};
use crate::cel::decl::{DeclKind, DeclType};
use crate::cel::types::Type;

/// The two iteration variables' types and schema nodes.
struct IterVars {
    first: Binding,
    second: Binding,
}

impl Checker<'_> {
    pub(super) fn check_comprehension(&mut self, id: Id, c: &mut Comprehension) {
        self.check(&mut c.range);
        self.check(&mut c.accu_init);
        let range_type = self.substitute(&self.type_of(c.range.id));
        let accu_type = self.type_of(c.accu_init.id);
        self.scopes.push();
        let accu = Binding {
            ty: accu_type.clone(),
            decl: self.decls.get(&c.accu_init.id).cloned(),
        };
        self.scopes.add(&c.accu_var, accu);
        let vars = self.iter_vars(c, &range_type);
        self.scopes.push();
        match &c.iter_var2 {
            Some(second) => {
                self.scopes.add(&c.iter_var, vars.first);
                self.scopes.add(second, vars.second);
            }
            None => self.scopes.add(&c.iter_var, vars.first),
        }
        self.check(&mut c.loop_cond);
        self.assert_type(c.loop_cond.id, &Type::Bool);
        self.check(&mut c.loop_step);
        self.assert_type(c.loop_step.id, &accu_type);
        self.scopes.pop();
        self.check(&mut c.result);
        self.scopes.pop();
        let result = self.substitute(&self.type_of(c.result.id));
        self.set_type(id, result);
    }

    /// One variable: list elements or map keys. Two: list index and element, or map
    /// key and value.
    fn iter_vars(&mut self, c: &Comprehension, range_type: &Type) -> IterVars {
        let two = c.iter_var2.is_some();
        let range_decl = self.decls.get(&c.range.id).cloned();
        let (elem_decl, key_decl) = match range_decl.as_deref().map(|d| &d.kind) {
            Some(DeclKind::List { elem, .. }) => (Some(Arc::clone(elem)), None),
            Some(DeclKind::Map { value }) => (Some(Arc::clone(value)), Some(map_key_decl())),
            _ => (None, None),
        };
        let bind = |ty: Type, decl: Option<Arc<DeclType>>| Binding { ty, decl };
        match range_type {
            Type::List(elem) if two => IterVars {
                first: bind(Type::Int, None),
                second: bind((**elem).clone(), elem_decl),
            },
            Type::List(elem) => IterVars {
                first: bind((**elem).clone(), elem_decl),
                second: bind(Type::Error, None),
            },
            Type::Map(key, value) => IterVars {
                first: bind((**key).clone(), key_decl),
                second: bind((**value).clone(), elem_decl),
            },
            Type::Dyn | Type::Error | Type::Param(_) => {
                self.assignable(&Type::Dyn, range_type);
                IterVars {
                    first: bind(Type::Dyn, None),
                    second: bind(Type::Dyn, None),
                }
            }
            other => {
                let message = format!(
                    "expression of type '{}' cannot be range of a comprehension \
                     (must be list, map, or dynamic)",
                    format_type(other)
                );
                self.error(c.range.id, message);
                IterVars {
                    first: bind(Type::Error, None),
                    second: bind(Type::Error, None),
                }
            }
        }
    }
}
