//! CEL types as the checker sees them: the primitives, parameterized lists, maps and
//! optionals, type values, the Kubernetes library's opaque types, and objects derived
//! from a structural schema (their fields come from [`DeclType`]).

use std::fmt;
use std::sync::Arc;

use super::decl::DeclType;

/// A CEL type.
#[derive(Clone, Debug)]
pub enum Type {
    Dyn,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    List(Box<Type>),
    Map(Box<Type>, Box<Type>),
    /// `optional_type(T)`.
    Optional(Box<Type>),
    /// The type of a type value: `type(int)` is `Type(Int)`; `Type(Dyn)` is the `type` type.
    Type(Box<Type>),
    /// An object with declared properties, from the schema.
    Object(Arc<DeclType>),
    /// A library type by its cel-go name (`kubernetes.Quantity`, `net.IP`, `net.CIDR`,
    /// `kubernetes.URL`, `kubernetes.Semver`, `kubernetes.NamedFormat`, ...).
    Opaque(&'static str),
    /// A type parameter in an overload signature (`A`, `B`, `K`, `V`).
    Param(&'static str),
    /// The type of an expression that failed to check.
    Error,
}

impl Type {
    pub fn list(elem: Type) -> Type {
        Type::List(Box::new(elem))
    }

    pub fn map(key: Type, value: Type) -> Type {
        Type::Map(Box::new(key), Box::new(value))
    }

    pub fn optional(inner: Type) -> Type {
        Type::Optional(Box::new(inner))
    }

    pub fn type_of(inner: Type) -> Type {
        Type::Type(Box::new(inner))
    }

    pub fn is_dyn_or_error(&self) -> bool {
        matches!(self, Type::Dyn | Type::Error)
    }

    /// Structural equality; objects are equal when they are the same schema node.
    pub fn same(&self, other: &Type) -> bool {
        match (self, other) {
            (Type::List(a), Type::List(b))
            | (Type::Optional(a), Type::Optional(b))
            | (Type::Type(a), Type::Type(b)) => a.same(b),
            (Type::Map(ak, av), Type::Map(bk, bv)) => ak.same(bk) && av.same(bv),
            (Type::Object(a), Type::Object(b)) => Arc::ptr_eq(a, b) || a.name == b.name,
            (Type::Opaque(a), Type::Opaque(b)) | (Type::Param(a), Type::Param(b)) => a == b,
            _ => std::mem::discriminant(self) == std::mem::discriminant(other),
        }
    }
}

impl fmt::Display for Type {
    /// cel-go's `FormatCELType`: `int`, `list(string)`, `map(string, int)`,
    /// `optional_type(int)`, `type(int)`, object types by name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Dyn => f.write_str("dyn"),
            Type::Null => f.write_str("null_type"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::Duration => f.write_str("google.protobuf.Duration"),
            Type::Timestamp => f.write_str("google.protobuf.Timestamp"),
            Type::List(e) => write!(f, "list({e})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::Optional(t) => write!(f, "optional_type({t})"),
            Type::Type(t) if matches!(**t, Type::Dyn) => f.write_str("type"),
            Type::Type(t) => write!(f, "type({t})"),
            Type::Object(d) => f.write_str(&d.name),
            Type::Opaque(name) | Type::Param(name) => f.write_str(name),
            Type::Error => f.write_str("*error*"),
        }
    }
}
