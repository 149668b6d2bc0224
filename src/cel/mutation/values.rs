//! The run-time values of kube's mutation types (`dynamic.ObjectVal`,
//! `mutation.JSONPatchVal`): built from the evaluated field initializers, kept as owned
//! CEL values (a plan is evaluated against borrowed JSON; these outlive no evaluation but
//! are shared as library values are).

use std::any::Any;
use std::rc::Rc;
use std::sync::Arc;

use super::StructType;
use crate::cel::eval::ops;
use crate::cel::value::{EvalError, Map, Opaque, Str, Value};

/// An `Object{...}` or `Object.<path>{...}` value: its type name and its fields in
/// initialization order.
#[derive(Debug)]
pub struct ObjectVal {
    pub type_name: Arc<str>,
    pub fields: Vec<(String, Value<'static>)>,
}

/// A `JSONPatch{...}` value (absent string fields are empty, as in kube).
#[derive(Debug, Default)]
pub struct JsonPatchVal {
    pub op: String,
    pub path: String,
    pub from: String,
    pub value: Option<Value<'static>>,
}

/// kube's `ResolvedType.Val`: the value of `ty` with `fields` (kube's texts for a
/// `JSONPatch` field of the wrong type or name).
pub fn construct<'a>(
    ty: &StructType,
    fields: Vec<(&str, Value<'a>)>,
) -> Result<Value<'a>, EvalError> {
    match ty {
        StructType::Object(name) => {
            let fields = fields
                .into_iter()
                .map(|(k, v)| Ok((k.to_string(), to_static(&v)?)))
                .collect::<Result<_, EvalError>>()?;
            Ok(Value::Opaque(Rc::new(ObjectVal {
                type_name: Arc::clone(name),
                fields,
            })))
        }
        StructType::JsonPatch => json_patch(fields),
    }
}

fn json_patch<'a>(fields: Vec<(&str, Value<'a>)>) -> Result<Value<'a>, EvalError> {
    let mut patch = JsonPatchVal::default();
    for (name, value) in fields {
        let slot = match name {
            "op" => &mut patch.op,
            "path" => &mut patch.path,
            "from" => &mut patch.from,
            "value" => {
                patch.value = Some(to_static(&value)?);
                continue;
            }
            other => {
                return Err(EvalError::new(format!(
                    "unexpected JSONPatchType field: {other}"
                )));
            }
        };
        match &value {
            Value::String(s) => *slot = s.as_str().to_string(),
            other => {
                return Err(EvalError::new(format!(
                    "unexpected type {} for JSONPatchType '{name}' field",
                    go_native_type(other)
                )));
            }
        }
    }
    Ok(Value::Opaque(Rc::new(patch)))
}

/// Go's `%T` of a CEL value's native form (`ref.Val.Value()`).
pub(super) fn go_native_type(v: &Value<'_>) -> &'static str {
    match v {
        Value::Null => "structpb.NullValue",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int64",
        Value::Uint(_) => "uint64",
        Value::Double(_) => "float64",
        Value::String(_) => "string",
        Value::Bytes(_) => "[]uint8",
        Value::Duration(_) => "time.Duration",
        Value::Timestamp(_) => "time.Time",
        Value::List(_) => "[]ref.Val",
        Value::Map(_) => "map[ref.Val]ref.Val",
        Value::Type(_) => "*types.Type",
        Value::Optional(_) => "*types.Optional",
        Value::Opaque(o) if o.as_any().is::<JsonPatchVal>() => "*mutation.JSONPatchVal",
        Value::Opaque(_) => "map[string]interface {}",
    }
}

/// A deep, owned copy of a value (views into the request's JSON become computed
/// values); proportional to the value's size.
pub fn to_static(v: &Value<'_>) -> Result<Value<'static>, EvalError> {
    Ok(match v {
        Value::Null => Value::Null,
        Value::Bool(b) => Value::Bool(*b),
        Value::Int(i) => Value::Int(*i),
        Value::Uint(u) => Value::Uint(*u),
        Value::Double(d) => Value::Double(*d),
        Value::String(Str::Shared(s)) => Value::String(Str::Shared(Arc::clone(s))),
        Value::String(s) => Value::string(s.as_str()),
        Value::Bytes(b) => Value::Bytes(Rc::clone(b)),
        Value::Duration(d) => Value::Duration(*d),
        Value::Timestamp(t) => Value::Timestamp(*t),
        Value::List(l) => Value::list(
            ops::list_items(l)?
                .iter()
                .map(to_static)
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(m) => {
            let entries = ops::map_entries(m)?
                .iter()
                .map(|(k, v)| Ok((to_static(k)?, to_static(v)?)))
                .collect::<Result<Vec<_>, EvalError>>()?;
            Value::Map(Map::Owned(Rc::new(entries)))
        }
        Value::Type(t) => Value::Type(Rc::clone(t)),
        Value::Optional(None) => Value::Optional(None),
        Value::Optional(Some(inner)) => Value::Optional(Some(Rc::new(to_static(inner)?))),
        Value::Opaque(o) => Value::Opaque(Rc::clone(o)),
    })
}

impl Opaque for ObjectVal {
    fn type_name(&self) -> &'static str {
        super::OBJECT_TYPE_NAME
    }

    /// kube's `ObjectVal.Equal`: the same type and deeply equal fields.
    fn equals(&self, other: &dyn Opaque) -> bool {
        let Some(o) = other.as_any().downcast_ref::<ObjectVal>() else {
            return false;
        };
        self.type_name == o.type_name
            && self.fields.len() == o.fields.len()
            && self.fields.iter().all(|(k, v)| {
                o.fields
                    .iter()
                    .find(|(ok, _)| ok == k)
                    .is_some_and(|(_, ov)| ops::equal(v, ov).unwrap_or(false))
            })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    /// kube's `FieldType.IsSet` / `GetFrom`: any name; an unset one reads as `null`.
    fn field(&self, name: &str) -> Option<(bool, Value<'static>)> {
        Some(
            self.fields
                .iter()
                .find(|(k, _)| k == name)
                .map_or((false, Value::Null), |(_, v)| (true, v.clone())),
        )
    }

    /// kube's `IsZeroValue`: no field set.
    fn is_zero(&self) -> bool {
        self.fields.is_empty()
    }
}

impl Opaque for JsonPatchVal {
    fn type_name(&self) -> &'static str {
        super::JSON_PATCH_TYPE_NAME
    }

    /// kube's `JSONPatchVal.Equal`.
    fn equals(&self, other: &dyn Opaque) -> bool {
        let Some(o) = other.as_any().downcast_ref::<JsonPatchVal>() else {
            return false;
        };
        self.op == o.op
            && self.from == o.from
            && self.path == o.path
            && match (&self.value, &o.value) {
                (None, None) => true,
                (Some(a), Some(b)) => ops::equal(a, b).unwrap_or(false),
                _ => false,
            }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    /// kube's `JSONPatchVal.IsSet` / `Get`: the strings when not empty, the value when set.
    fn field(&self, name: &str) -> Option<(bool, Value<'static>)> {
        let string = |s: &str| (!s.is_empty(), Value::string(s));
        Some(match name {
            "op" => string(&self.op),
            "path" => string(&self.path),
            "from" => string(&self.from),
            "value" => (
                self.value.is_some(),
                self.value.clone().unwrap_or(Value::Null),
            ),
            _ => (false, Value::Null),
        })
    }
}
