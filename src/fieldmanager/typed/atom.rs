//! structured-merge-diff's schema model (`schema.Atom`, `TypeRef`): what every walk of a
//! typed value consults, built once per CRD version by `crate::schema::typed`.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde_json::Value;

/// `schema.Scalar`: what a leaf admits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// `integer` and `number`.
    Numeric,
    /// `string` without a format (or `byte`).
    String,
    Boolean,
    /// Any scalar: strings with another format, int-or-string and untyped nodes.
    Untyped,
}

/// `schema.List`.
#[derive(Clone, Debug, PartialEq)]
pub struct List {
    /// `elementRelationship: atomic`; otherwise associative (a set or a list-map).
    pub atomic: bool,
    /// `x-kubernetes-list-map-keys`; empty for a set.
    pub keys: Vec<String>,
    pub element: TypeRef,
}

/// A named member of a map (`schema.StructField`).
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub ty: TypeRef,
    /// The schema's `default`, used for list-map keys an item omits.
    pub default: Option<Value>,
}

/// `schema.Map`: a struct (named fields) and/or a map (an element type for other keys).
#[derive(Clone, Debug, PartialEq)]
pub struct Map {
    /// `x-kubernetes-map-type: atomic`.
    pub atomic: bool,
    pub fields: BTreeMap<String, Field>,
    /// The type of keys that are not fields; `None` when other keys are not allowed.
    pub element: Option<TypeRef>,
}

impl Map {
    /// The type of the value under `key` (`FindField`, else the element type).
    pub fn member(&self, key: &str) -> Option<&TypeRef> {
        self.fields
            .get(key)
            .map(|f| &f.ty)
            .or(self.element.as_ref())
    }

    /// Whether `key` is a named field (not an element of the map).
    pub fn is_field(&self, key: &str) -> bool {
        self.fields.contains_key(key)
    }
}

/// `schema.Atom`: a node admits each form it has (an untyped node has all three).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Atom {
    pub scalar: Option<Scalar>,
    pub list: Option<Box<List>>,
    pub map: Option<Box<Map>>,
}

/// `schema.TypeRef`: an inlined atom or one of upstream's two shared recursive types.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeRef {
    Inline(Box<Atom>),
    /// `__untyped_deduced_`: maps granular (of deduced values), lists atomic.
    Deduced,
    /// `__untyped_atomic_`: any value, one leaf.
    UntypedAtomic,
}

static DEDUCED: LazyLock<Atom> = LazyLock::new(|| Atom {
    scalar: Some(Scalar::Untyped),
    list: Some(Box::new(List {
        atomic: true,
        keys: Vec::new(),
        element: TypeRef::UntypedAtomic,
    })),
    map: Some(Box::new(Map {
        atomic: false,
        fields: BTreeMap::new(),
        element: Some(TypeRef::Deduced),
    })),
});

static UNTYPED_ATOMIC: LazyLock<Atom> = LazyLock::new(|| Atom {
    scalar: Some(Scalar::Untyped),
    list: Some(Box::new(List {
        atomic: true,
        keys: Vec::new(),
        element: TypeRef::UntypedAtomic,
    })),
    map: Some(Box::new(Map {
        atomic: true,
        fields: BTreeMap::new(),
        element: Some(TypeRef::UntypedAtomic),
    })),
});

impl TypeRef {
    /// The atom this reference names (`Schema.Resolve`).
    pub fn resolve(&self) -> &Atom {
        match self {
            TypeRef::Inline(atom) => atom,
            TypeRef::Deduced => &DEDUCED,
            TypeRef::UntypedAtomic => &UNTYPED_ATOMIC,
        }
    }

    /// An inlined reference to `atom`.
    pub fn inline(atom: Atom) -> TypeRef {
        TypeRef::Inline(Box::new(atom))
    }
}

/// One form of an atom, chosen for a value (`deduceAtom` then `handleAtom`).
#[derive(Clone, Copy, Debug)]
pub enum Form<'a> {
    Scalar(Scalar),
    List(&'a List),
    Map(&'a Map),
    /// The atom has no form at all (a schema error upstream).
    Invalid,
}

impl Atom {
    /// The form that applies to `value`: the one matching its kind when the atom has it,
    /// else the first of map, scalar, list the atom has (so validation reports the
    /// mismatch), as upstream's `deduceAtom` + `handleAtom` choose.
    pub fn form_for(&self, value: Option<&Value>) -> Form<'_> {
        let matching = match value {
            Some(Value::Array(_)) => self.list.as_deref().map(Form::List),
            Some(Value::Object(_)) => self.map.as_deref().map(Form::Map),
            Some(Value::Null) | None => None,
            Some(_) => self.scalar.map(Form::Scalar),
        };
        matching.unwrap_or_else(|| self.first_form())
    }

    fn first_form(&self) -> Form<'_> {
        if let Some(map) = &self.map {
            Form::Map(map)
        } else if let Some(scalar) = self.scalar {
            Form::Scalar(scalar)
        } else if let Some(list) = &self.list {
            Form::List(list)
        } else {
            Form::Invalid
        }
    }
}
