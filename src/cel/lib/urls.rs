//! kube's URL library (k8s.io/apiserver `pkg/cel/library/urls.go`): `url(string)`,
//! `isURL`, and the `getScheme`, `getHost`, `getHostname`, `getPort`, `getEscapedPath`
//! and `getQuery` accessors of `kubernetes.URL` values, with Go `net/url` semantics.

pub(super) mod gourl;

use std::any::Any;
use std::rc::Rc;

use self::gourl::Url;
use super::argv;
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, Map, Opaque, Value};

pub const URL_TYPE: &str = "kubernetes.URL";

/// A `kubernetes.URL` value.
#[derive(Debug, Clone)]
pub struct KubeUrl(pub Url);

impl Opaque for KubeUrl {
    fn type_name(&self) -> &'static str {
        URL_TYPE
    }

    /// kube compares the URLs' Go `String()` forms.
    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<KubeUrl>()
            .is_some_and(|o| o.0.to_string() == self.0.to_string())
    }

    fn try_equals(&self, other: Option<&dyn Opaque>) -> Result<bool, EvalError> {
        super::argv::same_type_equals(self, other)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

pub fn library() -> Library {
    let url = || Type::Opaque(URL_TYPE);
    let getter = |id, name| Decl::member(id, name, vec![url()], Type::String);
    Library {
        decls: vec![
            Decl::global("string_to_url", "url", vec![Type::String], url()),
            getter("url_get_scheme", "getScheme"),
            getter("url_get_host", "getHost"),
            getter("url_get_hostname", "getHostname"),
            getter("url_get_port", "getPort"),
            getter("url_get_escaped_path", "getEscapedPath"),
            Decl::member(
                "url_get_query",
                "getQuery",
                vec![url()],
                Type::map(Type::String, Type::list(Type::String)),
            ),
            Decl::global("is_url_string", "isURL", vec![Type::String], Type::Bool),
        ],
        impls: vec![
            ("string_to_url", Impl::Unary(string_to_url)),
            ("url_get_scheme", Impl::Unary(get_scheme)),
            ("url_get_host", Impl::Unary(get_host)),
            ("url_get_hostname", Impl::Unary(get_hostname)),
            ("url_get_port", Impl::Unary(get_port)),
            ("url_get_escaped_path", Impl::Unary(get_escaped_path)),
            ("url_get_query", Impl::Unary(get_query)),
            ("is_url_string", Impl::Unary(is_url)),
        ],
    }
}

/// kube accepts what `ParseRequestURI` accepts, then keeps what `Parse` makes of it.
fn string_to_url<'a>(arg: &Value<'a>) -> Outcome<'a> {
    let raw = argv::string(arg)?;
    let parse_error = |e: String| {
        EvalError::new(format!(
            "URL parse error during conversion from string: {e}"
        ))
    };
    gourl::parse_request_uri(raw).map_err(parse_error)?;
    let url = gourl::parse(raw).map_err(parse_error)?;
    Ok(argv::wrap(KubeUrl(url)))
}

fn is_url<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(
        gourl::parse_request_uri(argv::string(arg)?).is_ok(),
    ))
}

fn url_of<'v>(value: &'v Value<'_>) -> Result<&'v Url, EvalError> {
    argv::opaque::<KubeUrl>(value).map(|u| &u.0)
}

/// A Go string as CEL text; bytes that are not UTF-8 (from `%` escapes) become U+FFFD.
fn text<'a>(bytes: &[u8]) -> Value<'a> {
    Value::string(String::from_utf8_lossy(bytes).as_ref())
}

fn get_scheme<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(Value::string(url_of(arg)?.scheme.as_str()))
}

fn get_host<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(text(&url_of(arg)?.host))
}

fn get_hostname<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(text(url_of(arg)?.hostname()))
}

fn get_port<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(text(url_of(arg)?.port()))
}

fn get_escaped_path<'a>(arg: &Value<'a>) -> Outcome<'a> {
    Ok(Value::string(url_of(arg)?.escaped_path()))
}

/// The query as `map(string, list(string))`, keys in first-seen order (Go's map order is
/// unspecified), values in order.
fn get_query<'a>(arg: &Value<'a>) -> Outcome<'a> {
    let mut grouped: Vec<(Vec<u8>, Vec<Value<'a>>)> = Vec::new();
    for (key, value) in url_of(arg)?.query() {
        let value = text(&value);
        match grouped.iter_mut().find(|(k, _)| *k == key) {
            Some((_, values)) => values.push(value),
            None => grouped.push((key, vec![value])),
        }
    }
    let entries = grouped
        .into_iter()
        .map(|(key, values)| (text(&key), Value::list(values)))
        .collect();
    Ok(Value::Map(Map::Owned(Rc::new(entries))))
}

#[cfg(test)]
mod tests;
