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
//! - [`metrics`]: the metric `crd_apiserver_declarative_conversion_total{resource,from,to}`.

mod apply;
mod cel;
mod compile;
mod convert;
mod metrics;
mod path;
mod proof;
mod sample;
mod spec;

#[cfg(test)]
mod convert_tests;
#[cfg(test)]
mod fixture;
#[cfg(test)]
mod proof_tests;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

pub use convert::Declarative;
pub use metrics::DeclarativeMetrics;

use crate::crd::conversion::Conversion;

/// The annotation on a CustomResourceDefinition that holds its declarative conversion.
pub const ANNOTATION: &str = "conversion.crd-apiserver.io/declarative";

/// The definition's declarative converter: `None` without the annotation; an error (the
/// definition is refused) when the annotation is invalid, names paths outside the
/// schemas, does not compile or loses a field on a round trip.
pub fn converter(crd: &CustomResourceDefinition) -> Option<Result<Conversion, String>> {
    converter_counted(crd, &DeclarativeMetrics::default())
}

/// [`converter`] counting its conversions into `metrics` (registered by the caller with
/// [`DeclarativeMetrics::register`]).
pub fn converter_counted(
    crd: &CustomResourceDefinition,
    metrics: &DeclarativeMetrics,
) -> Option<Result<Conversion, String>> {
    let text = crd.metadata.annotations.as_ref()?.get(ANNOTATION)?;
    let built = build_counted(crd, text, metrics);
    Some(built.map(|converter| Conversion::Converter(Arc::new(converter))))
}

/// Compiles and proves the annotation's `text`; the error starts with the annotation.
pub fn build(crd: &CustomResourceDefinition, text: &str) -> Result<Declarative, String> {
    build_counted(crd, text, &DeclarativeMetrics::default())
}

pub(super) fn build_counted(
    crd: &CustomResourceDefinition,
    text: &str,
    metrics: &DeclarativeMetrics,
) -> Result<Declarative, String> {
    let proven = Declarative::compile(crd, text, metrics).and_then(|converter| {
        proof::prove(&converter)?;
        Ok(converter)
    });
    proven.map_err(|e| format!("annotation {ANNOTATION}: {e}"))
}
