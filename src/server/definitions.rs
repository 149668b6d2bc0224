//! The definitions at start-up: load, check and compile the CRDs into the served
//! catalog with the converter factory; any problem is a `StartError::Definitions`.

use std::path::PathBuf;

use super::run::StartError;
use crate::config::validate::Config;
use crate::conversion::declarative::DeclarativeMetrics;
use crate::conversion::{ConversionMetrics, Factory};
use crate::crd::catalog::Catalog;
use crate::crd::conversion::ConverterFactory;

/// Loads, checks and compiles the CRDs into the served catalog, each definition's
/// conversion made by `converters`; a conversion the factory refuses is a definition
/// error naming the definition (exit 64).
pub fn load_catalog(
    paths: &[PathBuf],
    converters: &dyn ConverterFactory,
) -> Result<Catalog, StartError> {
    let loaded =
        crate::crd::load::load_paths(paths).map_err(|e| StartError::Definitions(e.to_string()))?;
    crate::crd::check::check_all(&loaded).map_err(|e| StartError::Definitions(e.to_string()))?;
    let crds: Vec<_> = loaded.into_iter().map(|l| l.crd).collect();
    Catalog::build_with(&crds, converters).map_err(|e| StartError::Definitions(e.to_string()))
}

/// The converter factory the catalog is built with (kube's `CRConverterFactory`): the
/// webhook and declarative converters, counting into `metrics` and `declarative`.
pub(super) fn converters(
    config: &Config,
    metrics: ConversionMetrics,
    declarative: DeclarativeMetrics,
) -> impl ConverterFactory {
    Factory::new(&config.admission, metrics).counting_declarative(declarative)
}

#[cfg(test)]
#[path = "definitions_tests.rs"]
mod tests;
