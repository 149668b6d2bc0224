//! The conversion contract between a resource's versions: what the catalog holds per
//! resource (kube's `CRConverterFactory` / `crConverter`), implemented above `crd` by the
//! webhook converter and the declarative converter (`crate::conversion`).

use std::sync::Arc;

use futures::future::BoxFuture;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

/// Why objects could not be converted: kube's whole message (`conversion webhook for
/// <gvk> failed: …`), answered as a 500 InternalError by the handlers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ConvertError {
    pub message: String,
}

impl ConvertError {
    pub fn new(message: impl Into<String>) -> ConvertError {
        ConvertError {
            message: message.into(),
        }
    }
}

/// Converts objects of one resource between its versions.
pub trait Convert: Send + Sync + 'static {
    /// `objects` (each with its `apiVersion`, all of this resource's kind) to
    /// `to_api_version` (`group/version`). Objects already at that version come back
    /// untouched and are not sent anywhere; result `i` is input `i`. One call is one
    /// ConversionReview (or none). The result is not pruned nor defaulted: callers apply
    /// the target version's schema (kube's `schemaCoercingConverter`).
    fn convert<'a>(
        &'a self,
        objects: Vec<Value>,
        to_api_version: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Value>, ConvertError>>;
}

/// A resource's conversion strategy, resolved once per definition.
#[derive(Clone, Default)]
pub enum Conversion {
    /// `strategy: None`: only `apiVersion` changes (kube's `nopConverter`).
    #[default]
    None,
    /// A webhook or a declarative converter.
    Converter(Arc<dyn Convert>),
}

impl Conversion {
    /// Whether converting between versions only sets `apiVersion`.
    pub fn is_none(&self) -> bool {
        matches!(self, Conversion::None)
    }
}

impl std::fmt::Debug for Conversion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Conversion::None => f.write_str("None"),
            Conversion::Converter(_) => f.write_str("Converter"),
        }
    }
}

/// Makes each definition's [`Conversion`] when the catalog is built (kube's
/// `CRConverterFactory.NewConverter`). An error refuses the definition.
pub trait ConverterFactory {
    fn new_converter(&self, crd: &CustomResourceDefinition) -> Result<Conversion, String>;
}

/// The factory of tools and tests that serve no converted resource: `None` for every
/// definition; a webhook or declarative strategy is refused.
pub struct NoConverters;

impl ConverterFactory for NoConverters {
    fn new_converter(&self, crd: &CustomResourceDefinition) -> Result<Conversion, String> {
        let strategy = crd.spec.conversion.as_ref().map(|c| c.strategy.as_str());
        match strategy {
            None | Some("None") => Ok(Conversion::None),
            Some(other) => Err(format!(
                "conversion strategy {other:?} needs a converter factory"
            )),
        }
    }
}
