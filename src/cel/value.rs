//! Run-time CEL values. Objects, lists and maps of the object being validated are
//! views into its JSON (borrowed, converted element by element on access by their
//! [`DeclType`]), so evaluating a rule copies nothing it does not compute.

use std::any::Any;
use std::fmt;
use std::rc::Rc;

use super::decl::DeclType;
use super::types::Type;

pub mod schema_list;

/// A CEL value borrowing from the object under validation and the compiled schema.
#[derive(Clone, Debug)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(Str<'a>),
    Bytes(Rc<[u8]>),
    Duration(jiff::SignedDuration),
    Timestamp(jiff::Timestamp),
    List(List<'a>),
    Map(Map<'a>),
    Type(Rc<Type>),
    Optional(Option<Rc<Value<'a>>>),
    /// A library value (quantity, IP, CIDR, URL, semver, named format, regex-free types).
    Opaque(Rc<dyn Opaque>),
}

/// A string borrowed from the object or the program, or computed.
#[derive(Clone, Debug)]
pub enum Str<'a> {
    Borrowed(&'a str),
    Owned(Rc<str>),
    /// A constant of a compiled program (shared between threads): no copy per use.
    Shared(std::sync::Arc<str>),
}

impl Str<'_> {
    pub fn as_str(&self) -> &str {
        match self {
            Str::Borrowed(s) => s,
            Str::Owned(s) => s,
            Str::Shared(s) => s,
        }
    }
}

/// A list: a JSON array read through its item schema, or computed values.
#[derive(Clone, Debug)]
pub enum List<'a> {
    Json {
        items: &'a [serde_json::Value],
        /// The list node (its `kind` is `DeclKind::List`): item type and list type.
        decl: &'a DeclType,
    },
    Owned(Rc<Items<'a>>),
}

/// The elements of a computed list. A list computed by `+` from a schema list of type
/// `set` or `map` keeps that node (kube's `unstructuredSetList.Add` and
/// `unstructuredMapList.Add` return lists of the same kind): its `==` ignores order and
/// a further `+` is again a union or a merge. Reads as the `Vec` of its elements.
#[derive(Clone, Debug, Default)]
pub struct Items<'a> {
    pub values: Vec<Value<'a>>,
    /// The schema list node (`DeclKind::List` of type `set` or `map`), if any.
    pub schema: Option<&'a DeclType>,
}

impl<'a> std::ops::Deref for Items<'a> {
    type Target = Vec<Value<'a>>;

    fn deref(&self) -> &Vec<Value<'a>> {
        &self.values
    }
}

/// A map or an object: a JSON object read through its schema (an object shows only
/// its declared properties, under their escaped names), or computed entries.
#[derive(Clone, Debug)]
pub enum Map<'a> {
    Json {
        fields: &'a serde_json::Map<String, serde_json::Value>,
        /// `DeclKind::Map` or `DeclKind::Object`.
        decl: &'a DeclType,
    },
    /// A JSON object without schema (under int-or-string dyn values only).
    Untyped(&'a serde_json::Map<String, serde_json::Value>),
    Owned(Rc<Vec<(Value<'a>, Value<'a>)>>),
}

/// A value of a library type. Each implements its own equality and, where CEL
/// defines it, ordering.
pub trait Opaque: fmt::Debug {
    /// The cel-go type name (`kubernetes.Quantity`, `net.IP`, ...).
    fn type_name(&self) -> &'static str;
    fn equals(&self, other: &dyn Opaque) -> bool;
    fn as_any(&self) -> &dyn Any;
    /// cel-go's `traits.Sizer` where the type has one (`net.IP`, `net.CIDR`: bytes), which
    /// run-time costs of library calls read.
    fn size(&self) -> Option<i64> {
        None
    }
    /// kube's `Format.MaxRegexSize` (named formats only), which the run-time cost of
    /// `validate` reads.
    fn max_regex_size(&self) -> Option<u64> {
        None
    }
    /// cel-go's `Equal` with this value on the left, which can fail: kube's library types
    /// answer `no such overload` for an operand they do not accept (`None`: a value that
    /// is not opaque). `==` propagates that error; list `in` and `indexOf` treat it as
    /// unequal. By default, [`Opaque::equals`], and false for non-opaque values.
    fn try_equals(&self, other: Option<&dyn Opaque>) -> Result<bool, EvalError> {
        Ok(other.is_some_and(|o| self.equals(o)))
    }
    /// A field of a value with fields (kube's mutation types `Object` and `JSONPatch`):
    /// whether it is set, and what selecting it reads; `None` for a value without fields.
    fn field(&self, _name: &str) -> Option<(bool, Value<'static>)> {
        None
    }
    /// cel-go's `traits.Zeroer` where the type has it (`optional.ofNonZeroValue`).
    fn is_zero(&self) -> bool {
        false
    }
}

impl<'a> Value<'a> {
    pub fn string(s: impl Into<Rc<str>>) -> Value<'a> {
        Value::String(Str::Owned(s.into()))
    }

    pub fn list(items: Vec<Value<'a>>) -> Value<'a> {
        Value::List(List::Owned(Rc::new(Items {
            values: items,
            schema: None,
        })))
    }

    /// A list computed from the schema list `schema` that keeps its semantics (see
    /// [`Items`]).
    pub fn schema_list(items: Vec<Value<'a>>, schema: &'a DeclType) -> Value<'a> {
        Value::List(List::Owned(Rc::new(Items {
            values: items,
            schema: Some(schema),
        })))
    }
}

/// A run-time error, with cel-go's text (`no such key: x`, `division by zero`,
/// `no such overload`, ...), which kube embeds in its responses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// An error value of the expression.
    Message(String),
    /// The per-call cost limit was exceeded: evaluation stops at once.
    CostLimitExceeded,
}

impl EvalError {
    pub fn new(message: impl Into<String>) -> EvalError {
        EvalError::Message(message.into())
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Message(m) => f.write_str(m),
            EvalError::CostLimitExceeded => {
                f.write_str("operation cancelled: actual cost limit exceeded")
            }
        }
    }
}
