//! Checking of literals, identifiers, field selections and aggregate literals.

use std::sync::Arc;

use super::Checker;
use super::format::format_type;
use super::scope::Global;
use super::unify::{is_dyn, most_general};
use crate::cel::ast::{Expr, ExprKind, Id, Literal, MapEntry, StructField};
use crate::cel::checked::Reference;
use crate::cel::decl::{DeclKind, DeclType, escape};
use crate::cel::mutation;
use crate::cel::types::Type;

impl Checker<'_> {
    pub(super) fn check(&mut self, e: &mut Expr) {
        let id = e.id;
        match &mut e.kind {
            ExprKind::Literal(literal) => self.set_type(id, literal_type(literal)),
            ExprKind::Ident(name) => {
                let name = name.clone();
                self.check_ident(id, &name);
            }
            ExprKind::Select { .. } => self.check_select(e),
            ExprKind::Call { .. } => self.check_call(e),
            ExprKind::List { elements, optional } => self.check_list(id, elements, optional),
            ExprKind::Map { entries } => self.check_map(id, entries),
            ExprKind::Struct { name, fields } => {
                let name = name.clone();
                self.check_struct(id, &name, fields);
            }
            ExprKind::Comprehension(c) => self.check_comprehension(id, c),
        }
    }

    fn check_ident(&mut self, id: Id, name: &str) {
        if !name.starts_with('.')
            && let Some(local) = self.scopes.find_local(name).cloned()
        {
            self.bind_variable(id, name, local.ty, local.decl);
            return;
        }
        match self.scopes.find_global(name) {
            Some(global) => self.bind_global(id, name, global),
            None => {
                self.set_type(id, Type::Error);
                let message = format!("undeclared reference to '{name}' (in container '')");
                self.error(id, message);
            }
        }
    }

    fn bind_global(&mut self, id: Id, name: &str, global: Global) {
        match global {
            Global::Var(binding) => {
                let name = name.strip_prefix('.').unwrap_or(name);
                self.bind_variable(id, name, binding.ty, binding.decl);
            }
            Global::TypeName(t) => {
                self.set_type(id, Type::type_of(t.clone()));
                self.refs.insert(id, Reference::TypeName(t));
            }
        }
    }

    fn bind_variable(&mut self, id: Id, name: &str, ty: Type, decl: Option<Arc<DeclType>>) {
        self.set_type(id, ty);
        self.refs.insert(id, Reference::Variable(name.to_string()));
        if let Some(decl) = decl {
            self.decls.insert(id, decl);
        }
    }

    fn check_select(&mut self, e: &mut Expr) {
        let id = e.id;
        if let Some(name) = self.qualified_global(e)
            && let Some(global) = self.scopes.find_global(&name)
        {
            // cel-go rewrites the selection into the identifier it names.
            e.kind = ExprKind::Ident(name.clone());
            self.bind_global(id, &name, global);
            return;
        }
        let ExprKind::Select {
            operand,
            field,
            test,
        } = &mut e.kind
        else {
            return;
        };
        // The name as written: kube's size estimator does not find `self.if` under
        // `__if__`.
        let written = field.clone();
        let result = self.check_select_field(id, operand, field, false);
        let result = if *test { Type::Bool } else { result };
        let result = self.substitute(&result);
        self.set_type(id, result);
        if !*test {
            self.track_field_decl(id, operand.id, &written);
        }
    }

    /// `a.b.c` as one dotted name when it is a chain of selections (not presence tests)
    /// from an identifier that is not a comprehension variable.
    fn qualified_global(&self, e: &Expr) -> Option<String> {
        let mut parts = Vec::new();
        let mut cur = e;
        loop {
            match &cur.kind {
                ExprKind::Select {
                    operand,
                    field,
                    test: false,
                } => {
                    parts.push(field.as_str());
                    cur = operand;
                }
                ExprKind::Ident(root) => {
                    if !root.starts_with('.') && self.scopes.find_local(root).is_some() {
                        return None;
                    }
                    parts.push(root.as_str());
                    parts.reverse();
                    return Some(parts.join("."));
                }
                _ => return None,
            }
        }
    }

    /// cel-go's `checkSelectField`: the type of `operand.field`, optional when the
    /// operand is or `optional` asks for it.
    pub(super) fn check_select_field(
        &mut self,
        id: Id,
        operand: &mut Expr,
        field: &mut String,
        optional: bool,
    ) -> Type {
        self.check(operand);
        let operand_type = self.substitute(&self.type_of(operand.id));
        let (target, is_optional) = unwrap_optional(operand_type);
        let result = match &target {
            Type::Map(_, value) => (**value).clone(),
            // kube's dynamic `Object` types: any field, of type dyn.
            Type::Object(decl) if mutation::is_dynamic_object(decl) => Type::Dyn,
            Type::Object(decl) => match object_field(decl, field) {
                Some((cel_name, field_decl)) => {
                    *field = cel_name;
                    field_decl.cel_type()
                }
                None => {
                    self.error(id, format!("undefined field '{field}'"));
                    Type::Error
                }
            },
            Type::Param(_) => {
                self.assignable(&Type::Dyn, &target);
                Type::Dyn
            }

            Type::Dyn | Type::Error => Type::Dyn,
            // Kube's library object types have no fields its type provider can find.
            Type::Opaque(name) if is_library_object(name) => {
                self.error(id, format!("unexpected failed resolution of '{name}'"));
                Type::Error
            }
            other => {
                let message = format!(
                    "type '{}' does not support field selection",
                    format_type(other)
                );
                self.error(id, message);
                Type::Dyn
            }
        };
        if is_optional || optional {
            Type::optional(result)
        } else {
            result
        }
    }

    /// A selection denotes a schema value when its operand does and names one of its
    /// properties exactly (kube's size estimator walks `Fields[name]`).
    fn track_field_decl(&mut self, id: Id, operand: Id, field: &str) {
        let decl = self.decls.get(&operand).and_then(|d| d.field(field));
        if let Some(f) = decl {
            let decl = Arc::clone(&f.decl);
            self.decls.insert(id, decl);
        }
    }

    /// cel-go's `checkCreateStruct` with kube's `DynamicTypeResolver` when the environment
    /// has the mutation types; without it every type name is undeclared.
    fn check_struct(&mut self, id: Id, name: &str, fields: &mut [StructField]) {
        let resolved = self
            .env
            .patch_types
            .then(|| mutation::resolve(name))
            .flatten();
        let Some(ty) = resolved else {
            let message = format!("undeclared reference to '{name}' (in container '')");
            self.error(id, message);
            self.set_type(id, Type::Error);
            return;
        };
        self.set_type(id, ty.checked_type());
        for f in fields.iter_mut() {
            self.check(&mut f.value);
            let mut value_type = self.type_of(f.value.id);
            if f.optional {
                value_type = self.unwrap_optional_entry(f.value.id, value_type);
            }
            let field_type = ty.field_type(&f.field);
            if !self.assignable(&field_type, &value_type) {
                let message = format!(
                    "expected type of field '{}' is '{}' but provided type is '{}'",
                    f.field,
                    format_type(&field_type),
                    format_type(&value_type)
                );
                self.error(f.id, message);
            }
        }
    }

    fn check_list(&mut self, id: Id, elements: &mut [Expr], optional: &[usize]) {
        let mut elem_type = None;
        for (i, element) in elements.iter_mut().enumerate() {
            self.check(element);
            let mut t = self.type_of(element.id);
            if optional.contains(&i) {
                t = self.unwrap_optional_entry(element.id, t);
            }
            elem_type = Some(self.join_types(elem_type, t));
        }
        let elem_type = elem_type.unwrap_or_else(|| self.fresh_var());
        self.set_type(id, Type::list(elem_type));
    }

    fn check_map(&mut self, id: Id, entries: &mut [MapEntry]) {
        let mut key_type = None;
        let mut value_type = None;
        for entry in entries.iter_mut() {
            self.check(&mut entry.key);
            let kt = self.type_of(entry.key.id);
            key_type = Some(self.join_types(key_type, kt));
            self.check(&mut entry.value);
            let mut vt = self.type_of(entry.value.id);
            if entry.optional {
                vt = self.unwrap_optional_entry(entry.value.id, vt);
            }
            value_type = Some(self.join_types(value_type, vt));
        }
        let (key_type, value_type) = match (key_type, value_type) {
            (Some(k), Some(v)) => (k, v),
            _ => (self.fresh_var(), self.fresh_var()),
        };
        self.set_type(id, Type::map(key_type, value_type));
    }

    /// An `?entry` of a literal must be optional (or dyn); its value type is the inner one.
    fn unwrap_optional_entry(&mut self, id: Id, t: Type) -> Type {
        let (inner, is_optional) = unwrap_optional(t);
        if !is_optional && !is_dyn(&inner) {
            self.type_mismatch(id, &Type::optional(inner.clone()), &inner);
        }
        inner
    }

    /// cel-go's `joinTypes` with dyn aggregate element types: mixed literals are
    /// refused afterwards by the homogeneous literal validator, not here.
    fn join_types(&mut self, previous: Option<Type>, current: Type) -> Type {
        match previous {
            None => current,
            Some(prev) if self.assignable(&prev, &current) => most_general(&prev, &current),
            Some(_) => Type::Dyn,
        }
    }
}

pub(super) fn unwrap_optional(t: Type) -> (Type, bool) {
    match t {
        Type::Optional(inner) => (*inner, true),
        other => (other, false),
    }
}

/// The library types kube declares as object types (`cel.ObjectType`); `net.IP` and
/// `net.CIDR` are opaque types.
fn is_library_object(name: &str) -> bool {
    matches!(
        name,
        "kubernetes.Quantity" | "kubernetes.URL" | "kubernetes.Semver" | "kubernetes.NamedFormat"
    )
}

fn literal_type(literal: &Literal) -> Type {
    match literal {
        Literal::Null => Type::Null,
        Literal::Bool(_) => Type::Bool,
        Literal::Int(_) => Type::Int,
        Literal::Uint(_) => Type::Uint,
        Literal::Double(_) => Type::Double,
        Literal::String(_) => Type::String,
        Literal::Bytes(_) => Type::Bytes,
    }
}

/// A property of an object by its CEL name or, for a reserved word, by its escaped
/// name (kube's `RecognizeKeywordAsFieldName`, from 1.31): the name found and its node.
fn object_field(decl: &DeclType, name: &str) -> Option<(String, Arc<DeclType>)> {
    if let Some(f) = decl.field(name) {
        return Some((name.to_string(), Arc::clone(&f.decl)));
    }
    let escaped = escape(name).filter(|e| *e == format!("__{name}__"))?;
    let f = decl.field(&escaped)?;
    Some((escaped, Arc::clone(&f.decl)))
}

/// The node a map's keys are: kube's `StringType`, without a size bound of its own.
pub(super) fn map_key_decl() -> Arc<DeclType> {
    static KEY: std::sync::OnceLock<Arc<DeclType>> = std::sync::OnceLock::new();
    Arc::clone(KEY.get_or_init(|| {
        Arc::new(DeclType {
            name: "string".to_string(),
            kind: DeclKind::String,
            max_elements: 0,
            min_serialized_size: 2,
        })
    }))
}
