//! Start-up's check of stored versions: an object stored at a version its definition no
//! longer lists in `spec.versions` cannot be read any more (kube prevents it with
//! `status.storedVersions`, which our definitions from files do not have), so the server
//! refuses to start (exit 64, naming resource, version and count) unless
//! `--allow-unmigrated-versions`; then it only warns. A version kept with `served: false`
//! is still defined: kube's documented deprecation step, never refused.

use std::sync::Arc;

use crate::crd::catalog::{Catalog, ServedResource};
use crate::server::run::StartError;
use crate::storage::cache::CachedStore;
use crate::storage::key::KeyLayout;
use crate::storage::versions::{self, Counts};
use crate::storage::{StorageError, Store};

/// Objects of one resource stored at a version its definition does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmigrated {
    pub resource: String,
    pub version: String,
    pub objects: u64,
    /// The definition's `spec.versions`.
    pub defined: Vec<String>,
}

impl std::fmt::Display for Unmigrated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let noun = if self.objects == 1 {
            "object"
        } else {
            "objects"
        };
        write!(
            f,
            "{}: {} {noun} stored at version {:?}, which spec.versions no longer lists (spec.versions: {})",
            self.resource,
            self.objects,
            self.version,
            self.defined.join(", ")
        )
    }
}

/// The stored versions of `resource` that its definition does not list.
pub fn unmigrated(resource: &ServedResource, counts: &Counts) -> Vec<Unmigrated> {
    let defined = resource.defined_versions();
    counts
        .iter()
        .filter(|(version, objects)| **objects > 0 && !defined.contains(&version.as_str()))
        .map(|(version, objects)| Unmigrated {
            resource: resource.labels.resource.to_string(),
            version: version.clone(),
            objects: *objects,
            defined: defined.iter().map(|v| v.to_string()).collect(),
        })
        .collect()
}

/// The refusal's text: what to do, then one line per resource and version.
pub fn refusal(found: &[Unmigrated]) -> String {
    let lines: Vec<String> = found.iter().map(|u| format!("  {u}")).collect();
    format!(
        "objects are stored at versions their CustomResourceDefinition no longer lists in spec.versions, and could not be read; restore the version (served: false keeps it readable) and run `crd-apiserver migrate`, or start with --allow-unmigrated-versions:\n{}",
        lines.join("\n")
    )
}

/// Where the counts are read: the watch cache once it has listed, else the store.
pub struct Sources {
    pub catalog: Arc<Catalog>,
    pub cache: Option<Arc<CachedStore>>,
    pub store: Arc<dyn Store>,
    pub keys: KeyLayout,
}

impl Sources {
    /// Every resource's objects at versions their definition does not list.
    pub async fn unmigrated(&self) -> Result<Vec<Unmigrated>, crate::storage::StorageError> {
        if let Some(cache) = &self.cache {
            cache.wait_listed().await;
        }
        let mut found = Vec::new();
        for resource in self.catalog.resources() {
            let cached =
                (self.cache.as_ref()).and_then(|c| c.stored_versions(&resource.labels.resource));
            let counts = match cached {
                Some(counts) => counts,
                None => {
                    let prefix = self.keys.resource_prefix(&resource.group, &resource.plural);
                    match versions::count(&*self.store, &prefix, &resource.group).await {
                        Ok(counts) => counts,
                        // A value no encryption provider reads: its reads answer 500
                        // (as kube's), start-up goes on.
                        Err(StorageError::Internal(e)) => {
                            tracing::error!(resource = %resource.labels.resource, error = %e, "stored objects cannot be read (--encryption-provider-config has no provider or key for them); their reads fail");
                            continue;
                        }
                        Err(e) => return Err(e),
                    }
                }
            };
            found.extend(unmigrated(resource, &counts));
        }
        Ok(found)
    }

    /// With `--allow-unmigrated-versions`: the same counts, read in the background and
    /// logged as warnings, start-up not waiting for them.
    pub fn warn_in_background(self) {
        tokio::spawn(async move {
            match self.unmigrated().await {
                Ok(found) => {
                    for u in found {
                        tracing::warn!(resource = %u.resource, version = %u.version, objects = u.objects, "objects stored at a version spec.versions no longer lists (allowed by --allow-unmigrated-versions): they cannot be read");
                    }
                }
                Err(e) => tracing::warn!(error = %e, "counting stored versions failed"),
            }
        });
    }
}

/// Refuses start-up (exit 64) when objects are stored at versions no longer defined,
/// once the cache has listed them; with `allow`, logs them in the background instead.
pub async fn check(sources: Sources, allow: bool) -> Result<(), StartError> {
    if allow {
        sources.warn_in_background();
        return Ok(());
    }
    let found = sources.unmigrated().await?;
    match found.is_empty() {
        true => Ok(()),
        false => Err(StartError::Unmigrated(refusal(&found))),
    }
}

#[cfg(test)]
mod tests;
