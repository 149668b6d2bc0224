//! Constants of a plan in a thread-safe form (a [`super::Plan`] is shared between
//! threads), turned into [`Value`]s when evaluated, and built back from values when
//! cel-go's optimizer folds a literal list, map or type conversion at plan time.

use std::rc::Rc;
use std::sync::Arc;

use crate::cel::ast::Literal;
use crate::cel::types::Type;
use crate::cel::value::{List, Map, Str, Value};

#[derive(Clone, Debug)]
pub(super) enum Const {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(Arc<str>),
    Bytes(Arc<[u8]>),
    Duration(jiff::SignedDuration),
    Timestamp(jiff::Timestamp),
    Type(Arc<Type>),
    List(Arc<[Const]>),
    Map(Arc<[(Const, Const)]>),
    Optional(Option<Arc<Const>>),
}

impl Const {
    pub(super) fn from_literal(literal: &Literal) -> Const {
        match literal {
            Literal::Null => Const::Null,
            Literal::Bool(b) => Const::Bool(*b),
            Literal::Int(i) => Const::Int(*i),
            Literal::Uint(u) => Const::Uint(*u),
            Literal::Double(d) => Const::Double(*d),
            Literal::String(s) => Const::String(Arc::from(s.as_str())),
            Literal::Bytes(b) => Const::Bytes(Arc::from(b.as_slice())),
        }
    }

    pub(super) fn to_value<'a>(&self) -> Value<'a> {
        match self {
            Const::Null => Value::Null,
            Const::Bool(b) => Value::Bool(*b),
            Const::Int(i) => Value::Int(*i),
            Const::Uint(u) => Value::Uint(*u),
            Const::Double(d) => Value::Double(*d),
            Const::String(s) => Value::String(Str::Shared(Arc::clone(s))),
            Const::Bytes(b) => Value::Bytes(Rc::from(&**b)),
            Const::Duration(d) => Value::Duration(*d),
            Const::Timestamp(t) => Value::Timestamp(*t),
            Const::Type(t) => Value::Type(Rc::new(Type::clone(t))),
            Const::List(items) => Value::list(items.iter().map(Const::to_value).collect()),
            Const::Map(entries) => Value::Map(Map::Owned(Rc::new(
                entries
                    .iter()
                    .map(|(k, v)| (k.to_value(), v.to_value()))
                    .collect(),
            ))),
            Const::Optional(o) => Value::Optional(o.as_ref().map(|c| Rc::new(c.to_value()))),
        }
    }

    /// The constant form of a value computed at plan time; `None` for values that
    /// cannot be constants (library objects, JSON views).
    pub(super) fn from_value(value: &Value<'_>) -> Option<Const> {
        Some(match value {
            Value::Null => Const::Null,
            Value::Bool(b) => Const::Bool(*b),
            Value::Int(i) => Const::Int(*i),
            Value::Uint(u) => Const::Uint(*u),
            Value::Double(d) => Const::Double(*d),
            Value::String(s) => Const::String(Arc::from(s.as_str())),
            Value::Bytes(b) => Const::Bytes(Arc::from(&**b)),
            Value::Duration(d) => Const::Duration(*d),
            Value::Timestamp(t) => Const::Timestamp(*t),
            Value::Type(t) => Const::Type(Arc::new(Type::clone(t))),
            Value::List(List::Owned(items)) => {
                Const::List(items.iter().map(Const::from_value).collect::<Option<_>>()?)
            }
            Value::Map(Map::Owned(entries)) => Const::Map(
                entries
                    .iter()
                    .map(|(k, v)| Some((Const::from_value(k)?, Const::from_value(v)?)))
                    .collect::<Option<_>>()?,
            ),
            Value::Optional(o) => Const::Optional(match o {
                Some(v) => Some(Arc::new(Const::from_value(v)?)),
                None => None,
            }),
            Value::List(_) | Value::Map(_) | Value::Opaque(_) => return None,
        })
    }

    /// Whether cel-go's set-membership optimization accepts this element
    /// (primitive and hashable: not bytes, not null).
    pub(super) fn is_set_element(&self) -> bool {
        matches!(
            self,
            Const::Bool(_) | Const::Int(_) | Const::Uint(_) | Const::Double(_) | Const::String(_)
        )
    }
}
