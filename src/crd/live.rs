//! The served definitions, live: the CRDs of `--crd-dir` and those offload mode serves
//! from the host cluster, compiled into one [`Catalog`]; a change compiles a new catalog
//! once and swaps the `Arc` every later request reads (requests in flight keep theirs).
//! What must cover a resource before any request can reach it (the watch cache,
//! encryption at rest) follows in [`Definitions::on_change`]'s hooks, run before the swap.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use tokio::sync::watch;

use super::catalog::{Catalog, CatalogError};
use super::conversion::ConverterFactory;
use super::load::LoadedCrd;

/// Why definitions from the host cluster cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum DefinitionError {
    /// The definition fails kube's CRD validation (or clashes with another's names).
    #[error("{0}")]
    Invalid(String),
    /// A definition of the same name comes from `--crd-dir`.
    #[error("{0}: already served from --crd-dir")]
    FromFiles(String),
    #[error(transparent)]
    Catalog(#[from] CatalogError),
}

/// The converter factory a live catalog is rebuilt with.
pub type Converters = Arc<dyn ConverterFactory + Send + Sync>;

/// Called with the next catalog and the one it replaces, before the next one is served.
pub type Hook = Arc<dyn Fn(&Catalog, &Catalog) + Send + Sync>;

/// The live catalog and the definitions it is built from.
pub struct Definitions {
    /// `--crd-dir`'s definitions, fixed at start.
    files: Vec<CustomResourceDefinition>,
    /// The host's definitions offload serves, by name.
    offloaded: Mutex<BTreeMap<String, CustomResourceDefinition>>,
    converters: Converters,
    current: watch::Sender<Arc<Catalog>>,
    hooks: Mutex<Vec<Hook>>,
}

impl Definitions {
    /// Serving `files`, already compiled into `catalog`.
    pub fn new(
        files: Vec<CustomResourceDefinition>,
        catalog: Arc<Catalog>,
        converters: Converters,
    ) -> Definitions {
        Definitions {
            files,
            offloaded: Mutex::default(),
            converters,
            current: watch::Sender::new(catalog),
            hooks: Mutex::default(),
        }
    }

    /// A fixed catalog (tools and tests).
    pub fn fixed(catalog: Catalog) -> Definitions {
        Definitions::new(
            Vec::new(),
            Arc::new(catalog),
            Arc::new(super::conversion::NoConverters),
        )
    }

    /// The catalog in use now.
    pub fn current(&self) -> Arc<Catalog> {
        self.current.borrow().clone()
    }

    /// Follows each new catalog.
    pub fn subscribe(&self) -> watch::Receiver<Arc<Catalog>> {
        self.current.subscribe()
    }

    /// Runs `hook` on every later change, before the new catalog is served (under the
    /// change's lock: changes reach hooks one at a time, in order).
    pub fn on_change(&self, hook: Hook) {
        self.hooks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(hook);
    }

    /// Serves `crds` (host definitions; one of the same name is replaced), checked as kube
    /// checks a CRD; nothing changes when any is refused.
    pub fn serve(&self, crds: &[CustomResourceDefinition]) -> Result<(), DefinitionError> {
        let mut offloaded = self.offloaded.lock().unwrap_or_else(|e| e.into_inner());
        let mut next = offloaded.clone();
        for crd in crds {
            let name = crd.metadata.name.clone().unwrap_or_default();
            if self
                .files
                .iter()
                .any(|f| f.metadata.name.as_deref() == Some(&name))
            {
                return Err(DefinitionError::FromFiles(name));
            }
            next.insert(name, crd.clone());
        }
        self.rebuild(&next)?;
        *offloaded = next;
        Ok(())
    }

    /// Stops serving the host definitions named `names`.
    pub fn stop_serving(&self, names: &[String]) -> Result<(), DefinitionError> {
        let mut offloaded = self.offloaded.lock().unwrap_or_else(|e| e.into_inner());
        let mut next = offloaded.clone();
        for name in names {
            next.remove(name);
        }
        self.rebuild(&next)?;
        *offloaded = next;
        Ok(())
    }

    /// Names of the host definitions served now.
    pub fn offloaded(&self) -> Vec<String> {
        let offloaded = self.offloaded.lock().unwrap_or_else(|e| e.into_inner());
        offloaded.keys().cloned().collect()
    }

    fn rebuild(
        &self,
        offloaded: &BTreeMap<String, CustomResourceDefinition>,
    ) -> Result<(), DefinitionError> {
        let loaded: Vec<LoadedCrd> = (self.files.iter().map(|crd| ("--crd-dir", crd)))
            .chain(offloaded.values().map(|crd| ("host cluster", crd)))
            .map(|(source, crd)| LoadedCrd {
                source: source.to_string(),
                crd: crd.clone(),
            })
            .collect();
        super::check::check_all(&loaded).map_err(|e| DefinitionError::Invalid(e.to_string()))?;
        let all: Vec<CustomResourceDefinition> = loaded.into_iter().map(|l| l.crd).collect();
        let catalog = Catalog::build_with(&all, self.converters.as_ref())?;
        let previous = self.current();
        let hooks = self.hooks.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for hook in &hooks {
            hook(&catalog, &previous);
        }
        self.current.send_replace(Arc::new(catalog));
        Ok(())
    }
}

#[cfg(test)]
#[path = "live_tests.rs"]
mod tests;
