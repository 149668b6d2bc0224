//! Declarative conversion, beyond kube: the CRD annotation
//! `conversion.crd-apiserver.io/declarative` declares, per pair of versions and
//! direction, field mappings (`move`/`rename`, `set`, `default`, `drop`) or a CEL
//! expression returning the converted object. The definition keeps
//! `spec.conversion.strategy: None` (kube refuses any strategy it does not know); the
//! annotation switches the converter on. Parsed, compiled and proven lossless once at
//! start-up (a refusal names the annotation and the offending entry or field); converts
//! in process, without a webhook or a network hop.
//!
//! - [`spec`]: the annotation's text into entries; [`path`]: field paths.
//! - [`compile`]: mappings checked against the schemas; [`apply`]: the mapping engine.
//! - [`cel`]: a direction as a CEL expression.
//! - [`convert`]: the converter (routes through the storage version).
//! - [`sample`] and [`proof`]: the start-up round-trip proof.

mod apply;
mod cel;
mod compile;
mod convert;
mod path;
mod proof;
mod sample;
mod spec;

#[cfg(test)]
mod fixture;
#[cfg(test)]
mod proof_tests;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

pub use convert::Declarative;

use crate::crd::conversion::Conversion;

/// The annotation on a CustomResourceDefinition that holds its declarative conversion.
pub const ANNOTATION: &str = "conversion.crd-apiserver.io/declarative";

/// The definition's declarative converter: `None` without the annotation; an error (the
/// definition is refused) when the annotation is invalid, names paths outside the
/// schemas, does not compile or loses a field on a round trip.
pub fn converter(crd: &CustomResourceDefinition) -> Option<Result<Conversion, String>> {
    let text = crd.metadata.annotations.as_ref()?.get(ANNOTATION)?;
    Some(build(crd, text).map(|converter| Conversion::Converter(Arc::new(converter))))
}

/// Compiles and proves the annotation's `text`; the error starts with the annotation.
pub fn build(crd: &CustomResourceDefinition, text: &str) -> Result<Declarative, String> {
    let proven = Declarative::compile(crd, text).and_then(|converter| {
        proof::prove(&converter)?;
        Ok(converter)
    });
    proven.map_err(|e| format!("annotation {ANNOTATION}: {e}"))
}
