//! Identifier scopes: the declared variables, the type names usable as values, and
//! the comprehension variables (innermost first), as cel-go's `Scopes` keeps them.

use std::collections::HashMap;
use std::sync::Arc;

use super::Var;
use crate::cel::decl::DeclType;
use crate::cel::types::Type;

/// What an identifier is bound to.
#[derive(Clone, Debug)]
pub(super) struct Binding {
    pub ty: Type,
    pub decl: Option<Arc<DeclType>>,
}

/// A global identifier: a declared variable or a type name.
pub(super) enum Global {
    Var(Binding),
    TypeName(Type),
}

pub(super) struct Scopes {
    globals: HashMap<String, Binding>,
    locals: Vec<Vec<(String, Binding)>>,
}

impl Scopes {
    pub(super) fn new(vars: &[Var]) -> Scopes {
        let globals = vars
            .iter()
            .map(|v| {
                let binding = Binding {
                    ty: v.ty.clone(),
                    decl: v.decl.clone(),
                };
                (v.name.clone(), binding)
            })
            .collect();
        Scopes {
            globals,
            locals: Vec::new(),
        }
    }

    pub(super) fn push(&mut self) {
        self.locals.push(Vec::new());
    }

    pub(super) fn pop(&mut self) {
        self.locals.pop();
    }

    /// Declares a variable in the innermost scope (replacing one of the same name).
    pub(super) fn add(&mut self, name: &str, binding: Binding) {
        if let Some(scope) = self.locals.last_mut() {
            scope.retain(|(n, _)| n != name);
            scope.push((name.to_string(), binding));
        }
    }

    pub(super) fn find_local(&self, name: &str) -> Option<&Binding> {
        self.locals
            .iter()
            .rev()
            .find_map(|scope| scope.iter().find(|(n, _)| n == name).map(|(_, b)| b))
    }

    /// A declared variable, else a type name (the standard ones, `optional_type` and
    /// the library types kube registers by name).
    pub(super) fn find_global(&self, name: &str) -> Option<Global> {
        let name = name.strip_prefix('.').unwrap_or(name);
        if let Some(binding) = self.globals.get(name) {
            return Some(Global::Var(binding.clone()));
        }
        type_name(name).map(Global::TypeName)
    }
}

/// The type a type name denotes when used as a value (its identifier is of type
/// `type(T)`).
fn type_name(name: &str) -> Option<Type> {
    Some(match name {
        "bool" => Type::Bool,
        "bytes" => Type::Bytes,
        "double" => Type::Double,
        "google.protobuf.Duration" => Type::Duration,
        "int" => Type::Int,
        "list" => Type::list(Type::Param("A")),
        "map" => Type::map(Type::Param("A"), Type::Param("B")),
        "null_type" => Type::Null,
        "string" => Type::String,
        "google.protobuf.Timestamp" => Type::Timestamp,
        "type" => Type::type_of(Type::Dyn),
        "uint" => Type::Uint,
        "optional_type" => Type::optional(Type::Param("T")),
        "net.IP" => Type::Opaque("net.IP"),
        "net.CIDR" => Type::Opaque("net.CIDR"),
        "google.protobuf.Empty" => Type::Opaque("google.protobuf.Empty"),
        // Known to the checker, refused when the program is built (see
        // `check::instantiate`); typed loosely (cel-go: `any`, `wrapper(int)`, ...).
        "google.protobuf.Any" | "google.protobuf.Value" => Type::Dyn,
        "google.protobuf.Struct" => Type::map(Type::String, Type::Dyn),
        "google.protobuf.ListValue" => Type::list(Type::Dyn),
        name if UNDEFINED_AT_RUN_TIME.contains(&name) => Type::Dyn,
        _ => return None,
    })
}

/// The well-known protobuf types cel-go's checker declares but its planner cannot
/// resolve in kube's environment: `reference to undefined type: <name>`.
pub(super) const UNDEFINED_AT_RUN_TIME: [&str; 13] = [
    "google.protobuf.Any",
    "google.protobuf.Value",
    "google.protobuf.Struct",
    "google.protobuf.ListValue",
    "google.protobuf.BoolValue",
    "google.protobuf.BytesValue",
    "google.protobuf.DoubleValue",
    "google.protobuf.FloatValue",
    "google.protobuf.Int32Value",
    "google.protobuf.Int64Value",
    "google.protobuf.StringValue",
    "google.protobuf.UInt32Value",
    "google.protobuf.UInt64Value",
];
