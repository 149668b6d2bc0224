//! kube's format library (k8s.io/apiserver `pkg/cel/library/format.go`): the named
//! formats (`format.dns1123Label()`, ..., `format.named(name)` as an optional) and
//! `<format>.validate(string)`, which yields `optional.none()` when the string is valid
//! and else the validator's messages. The validators are the repo's apimachinery and
//! kube-openapi ports; only the glue kube adds lives here.

use std::any::Any;
use std::rc::Rc;

use super::argv;
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::types::Type;
use crate::cel::value::{Opaque, Value};
use crate::selector::label::{label_key_errors, label_value_errors};
use crate::validation::{is_dns1035_label, is_dns1123_label, is_dns1123_subdomain};

pub const FORMAT_TYPE: &str = "kubernetes.NamedFormat";

/// A `kubernetes.NamedFormat` value (kube's `cel.Format`).
#[derive(Debug, Clone, Copy)]
pub struct NamedFormat {
    /// kube's `Name` (`DNS1123Label`, `uuid`, ...); equality compares it.
    pub name: &'static str,
    validate: fn(&str) -> Vec<String>,
    /// kube's `MaxRegexSize`, the regex length its cost model assumes for `validate`.
    pub max_regex_size: u64,
}

impl Opaque for NamedFormat {
    fn type_name(&self) -> &'static str {
        FORMAT_TYPE
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<NamedFormat>()
            .is_some_and(|o| o.name == self.name)
    }

    fn try_equals(&self, other: Option<&dyn Opaque>) -> Result<bool, crate::cel::value::EvalError> {
        super::argv::same_type_equals(self, other)
    }

    fn max_regex_size(&self) -> Option<u64> {
        Some(self.max_regex_size)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// kube's `ConstantFormats`: `(CEL name, format)`. The CEL name is also the function
/// `format.<name>` and its overload id.
pub const FORMATS: [(&str, NamedFormat); 13] = [
    ("dns1123Label", format("DNS1123Label", is_dns1123_label, 30)),
    (
        "dns1123Subdomain",
        format("DNS1123Subdomain", is_dns1123_subdomain, 60),
    ),
    ("dns1035Label", format("DNS1035Label", is_dns1035_label, 30)),
    (
        "qualifiedName",
        format("QualifiedName", label_key_errors, 60),
    ),
    (
        "dns1123LabelPrefix",
        format("DNS1123LabelPrefix", label_prefix, 30),
    ),
    (
        "dns1123SubdomainPrefix",
        format("DNS1123SubdomainPrefix", subdomain_prefix, 60),
    ),
    (
        "dns1035LabelPrefix",
        format("DNS1035LabelPrefix", label1035_prefix, 30),
    ),
    ("labelValue", format("LabelValue", label_value_errors, 40)),
    ("uri", format("URI", uri, 1103)),
    ("uuid", format("uuid", uuid, 70)),
    ("byte", format("byte", base64, 84)),
    ("date", format("date", date, 71)),
    ("datetime", format("datetime", datetime, 71)),
];

const fn format(
    name: &'static str,
    validate: fn(&str) -> Vec<String>,
    max_regex_size: u64,
) -> NamedFormat {
    NamedFormat {
        name,
        validate,
        max_regex_size,
    }
}

/// apimachinery's `maskTrailingDash` for generated-name prefixes: a trailing `-` with
/// something before it replaces the last *two* bytes by `a`. Go slices bytes; a byte of
/// a split character stands as `_`, as invalid as the character and as long.
fn mask_trailing_dash(name: &str) -> String {
    if name.len() > 1 && name.ends_with('-') {
        let kept = &name.as_bytes()[..name.len() - 2];
        let mut masked: String = match std::str::from_utf8(kept) {
            Ok(text) => text.to_string(),
            Err(_) => kept
                .iter()
                .map(|&b| if b.is_ascii() { char::from(b) } else { '_' })
                .collect(),
        };
        masked.push('a');
        return masked;
    }
    name.to_string()
}

fn label_prefix(s: &str) -> Vec<String> {
    is_dns1123_label(&mask_trailing_dash(s))
}

fn subdomain_prefix(s: &str) -> Vec<String> {
    is_dns1123_subdomain(&mask_trailing_dash(s))
}

fn label1035_prefix(s: &str) -> Vec<String> {
    is_dns1035_label(&mask_trailing_dash(s))
}

fn uri(s: &str) -> Vec<String> {
    super::urls::gourl::parse_request_uri(s)
        .err()
        .into_iter()
        .collect()
}

fn strfmt(format: &str, s: &str, message: &str) -> Vec<String> {
    if crate::formats::strfmt::is_valid(format, s) {
        Vec::new()
    } else {
        vec![message.to_string()]
    }
}

fn uuid(s: &str) -> Vec<String> {
    strfmt("uuid", s, "does not match the UUID format")
}

fn base64(s: &str) -> Vec<String> {
    strfmt("byte", s, "invalid base64")
}

fn date(s: &str) -> Vec<String> {
    strfmt("date", s, "invalid date")
}

fn datetime(s: &str) -> Vec<String> {
    strfmt("datetime", s, "invalid datetime")
}

pub fn library() -> Library {
    let format_type = || Type::Opaque(FORMAT_TYPE);
    let mut decls = vec![
        Decl::member(
            "format-validate",
            "validate",
            vec![format_type(), Type::String],
            Type::optional(Type::list(Type::String)),
        ),
        Decl::global(
            "format-named",
            "format.named",
            vec![Type::String],
            Type::optional(format_type()),
        ),
    ];
    let mut impls = vec![
        ("format-validate", Impl::Binary(validate)),
        ("format-named", Impl::Unary(named)),
    ];
    for (i, (name, _)) in FORMATS.iter().enumerate() {
        let function = FUNCTION_NAMES[i];
        debug_assert_eq!(function.strip_prefix("format."), Some(*name));
        decls.push(Decl::global(function, function, vec![], format_type()));
        impls.push((function, Impl::Variadic(CONSTANTS[i])));
    }
    Library { decls, impls }
}

/// `format.<name>` for each entry of [`FORMATS`], in order (declarations need
/// `'static` names).
const FUNCTION_NAMES: [&str; 13] = [
    "format.dns1123Label",
    "format.dns1123Subdomain",
    "format.dns1035Label",
    "format.qualifiedName",
    "format.dns1123LabelPrefix",
    "format.dns1123SubdomainPrefix",
    "format.dns1035LabelPrefix",
    "format.labelValue",
    "format.uri",
    "format.uuid",
    "format.byte",
    "format.date",
    "format.datetime",
];

type Constant = for<'a> fn(&[Value<'a>]) -> Outcome<'a>;

const CONSTANTS: [Constant; 13] = [
    constant::<0>,
    constant::<1>,
    constant::<2>,
    constant::<3>,
    constant::<4>,
    constant::<5>,
    constant::<6>,
    constant::<7>,
    constant::<8>,
    constant::<9>,
    constant::<10>,
    constant::<11>,
    constant::<12>,
];

/// The zero-argument `format.<name>()` of entry `I`.
fn constant<'a, const I: usize>(_: &[Value<'a>]) -> Outcome<'a> {
    Ok(argv::wrap(FORMATS[I].1))
}

fn named<'a>(name: &Value<'a>) -> Outcome<'a> {
    let name = argv::string(name)?;
    let found = FORMATS.iter().find(|(n, _)| *n == name);
    Ok(Value::Optional(
        found.map(|(_, format)| Rc::new(argv::wrap(*format))),
    ))
}

fn validate<'a>(format: &Value<'a>, value: &Value<'a>) -> Outcome<'a> {
    let format = argv::opaque::<NamedFormat>(format)?;
    let errors = (format.validate)(argv::string(value)?);
    if errors.is_empty() {
        return Ok(Value::Optional(None));
    }
    Ok(Value::Optional(Some(Rc::new(argv::string_list(errors)))))
}

#[cfg(test)]
mod tests;
