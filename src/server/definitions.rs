//! The definitions at start-up: load, check and compile the CRDs into the served
//! catalog with the converter factory; any problem is a `StartError::Definitions`.

use std::path::PathBuf;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use super::run::StartError;
use crate::config::validate::Config;
use crate::conversion::declarative::DeclarativeMetrics;
use crate::conversion::{ConversionMetrics, Factory};
use crate::crd::catalog::Catalog;
use crate::crd::conversion::ConverterFactory;
use crate::crd::live::{Converters, Definitions};

/// Loads, checks and compiles the CRDs into the served catalog, each definition's
/// conversion made by `converters`; a conversion the factory refuses is a definition
/// error naming the definition (exit 64).
pub fn load_catalog(
    paths: &[PathBuf],
    converters: &dyn ConverterFactory,
) -> Result<Catalog, StartError> {
    let crds = load_crds(paths)?;
    Catalog::build_with(&crds, converters).map_err(|e| StartError::Definitions(e.to_string()))
}

/// The checked CRDs of `paths`.
fn load_crds(paths: &[PathBuf]) -> Result<Vec<CustomResourceDefinition>, StartError> {
    let loaded =
        crate::crd::load::load_paths(paths).map_err(|e| StartError::Definitions(e.to_string()))?;
    crate::crd::check::check_all(&loaded).map_err(|e| StartError::Definitions(e.to_string()))?;
    Ok(loaded.into_iter().map(|l| l.crd).collect())
}

/// The live definitions, serving `--crd-dir`'s CRDs (loaded, checked and compiled as
/// [`load_catalog`] does) until offload serves more.
pub fn load_definitions(
    paths: &[PathBuf],
    converters: Converters,
) -> Result<Definitions, StartError> {
    let crds = load_crds(paths)?;
    let catalog = Catalog::build_with(&crds, converters.as_ref())
        .map_err(|e| StartError::Definitions(e.to_string()))?;
    Ok(Definitions::new(
        crds,
        std::sync::Arc::new(catalog),
        converters,
    ))
}

/// The converter factory the catalog is built with (kube's `CRConverterFactory`): the
/// webhook and declarative converters, counting into `metrics` and `declarative`.
pub(super) fn converters(
    config: &Config,
    metrics: ConversionMetrics,
    declarative: DeclarativeMetrics,
) -> impl ConverterFactory + Send + Sync + 'static {
    Factory::new(&config.admission, metrics).counting_declarative(declarative)
}

#[cfg(test)]
#[path = "definitions_tests.rs"]
mod tests;
