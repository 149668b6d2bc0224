//! The webhook configurations the informers deliver, each compiled once into its hooks,
//! and the [`Hooks`] snapshot requests read: rebuilt only when a configuration's
//! webhooks change, published once both kinds have listed (kube's `HasSynced`).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use tokio::sync::watch;

use crate::admission::webhook::hook::{self, Hook, Hooks};
use crate::cluster::informer::Sink;

/// One configuration kind's followed objects.
struct Followed<C> {
    /// Whether its first list has arrived.
    listed: bool,
    /// By name, so hooks come out in kube's order (configurations sorted by name).
    by_name: BTreeMap<String, Compiled<C>>,
}

impl<C> Default for Followed<C> {
    fn default() -> Self {
        Followed {
            listed: false,
            by_name: BTreeMap::new(),
        }
    }
}

/// A configuration as last seen and its compiled hooks.
struct Compiled<C> {
    configuration: C,
    hooks: Vec<Arc<Hook>>,
}

#[derive(Default)]
struct Inner {
    mutating: Followed<MutatingWebhookConfiguration>,
    validating: Followed<ValidatingWebhookConfiguration>,
}

/// A webhook configuration kind, as the store handles it.
trait Configuration: Sized {
    fn name(&self) -> Option<&str>;
    /// Whether `other` compiles to the same hooks (the same `webhooks`).
    fn same_webhooks(&self, other: &Self) -> bool;
    fn compile(&self) -> Vec<Arc<Hook>>;
    fn followed(inner: &mut Inner) -> &mut Followed<Self>;
}

impl Configuration for MutatingWebhookConfiguration {
    fn name(&self) -> Option<&str> {
        self.metadata.name.as_deref()
    }
    fn same_webhooks(&self, other: &Self) -> bool {
        self.webhooks == other.webhooks
    }
    fn compile(&self) -> Vec<Arc<Hook>> {
        hook::mutating(self)
    }
    fn followed(inner: &mut Inner) -> &mut Followed<Self> {
        &mut inner.mutating
    }
}

impl Configuration for ValidatingWebhookConfiguration {
    fn name(&self) -> Option<&str> {
        self.metadata.name.as_deref()
    }
    fn same_webhooks(&self, other: &Self) -> bool {
        self.webhooks == other.webhooks
    }
    fn compile(&self) -> Vec<Arc<Hook>> {
        hook::validating(self)
    }
    fn followed(inner: &mut Inner) -> &mut Followed<Self> {
        &mut inner.validating
    }
}

/// Both kinds' configurations and the published snapshot.
pub struct Configurations {
    inner: Mutex<Inner>,
    snapshot: RwLock<Option<Arc<Hooks>>>,
    synced: watch::Sender<bool>,
}

impl Default for Configurations {
    fn default() -> Self {
        Configurations {
            inner: Mutex::default(),
            snapshot: RwLock::new(None),
            synced: watch::channel(false).0,
        }
    }
}

impl Configurations {
    /// The hooks now; `None` until both kinds have listed.
    pub fn current(&self) -> Option<Arc<Hooks>> {
        self.snapshot
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// A receiver that turns true once both kinds have listed.
    pub fn synced(&self) -> watch::Receiver<bool> {
        self.synced.subscribe()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies `change` to the kind `C`; republishes when it reports a change, or when
    /// both kinds have just become listed.
    fn apply<C: Configuration>(&self, change: impl FnOnce(&mut Followed<C>) -> bool) {
        let mut inner = self.lock();
        let was_synced = inner.mutating.listed && inner.validating.listed;
        let changed = change(C::followed(&mut inner));
        let synced = inner.mutating.listed && inner.validating.listed;
        if synced && (changed || !was_synced) {
            let hooks = Arc::new(assemble(&inner));
            *self.snapshot.write().unwrap_or_else(|e| e.into_inner()) = Some(hooks);
            self.synced.send_replace(true);
        }
    }
}

/// Every hook in kube's order.
fn assemble(inner: &Inner) -> Hooks {
    fn hooks<C>(followed: &Followed<C>) -> Vec<Arc<Hook>> {
        let compiled = followed.by_name.values();
        compiled.flat_map(|c| c.hooks.iter().cloned()).collect()
    }
    Hooks {
        mutating: hooks(&inner.mutating),
        validating: hooks(&inner.validating),
    }
}

/// `configuration` compiled, reusing `previous`'s hooks when its webhooks are the same;
/// whether it was compiled anew.
fn compile<C: Configuration>(
    configuration: C,
    previous: Option<Compiled<C>>,
) -> (Compiled<C>, bool) {
    match previous {
        Some(p) if p.configuration.same_webhooks(&configuration) => (
            Compiled {
                configuration,
                hooks: p.hooks,
            },
            false,
        ),
        _ => {
            let hooks = configuration.compile();
            (
                Compiled {
                    configuration,
                    hooks,
                },
                true,
            )
        }
    }
}

impl Configurations {
    fn replace_all<C: Configuration>(&self, listed: Vec<C>) {
        self.apply::<C>(|followed| {
            let mut previous = std::mem::take(&mut followed.by_name);
            let mut changed = false;
            for configuration in listed {
                let Some(name) = configuration.name().map(str::to_string) else {
                    continue;
                };
                let (compiled, fresh) = compile(configuration, previous.remove(&name));
                changed |= fresh;
                followed.by_name.insert(name, compiled);
            }
            followed.listed = true;
            // Configurations gone from the list are dropped.
            changed || !previous.is_empty()
        });
    }

    fn upsert_one<C: Configuration>(&self, configuration: C) {
        let Some(name) = configuration.name().map(str::to_string) else {
            return;
        };
        self.apply::<C>(|followed| {
            let (compiled, fresh) = compile(configuration, followed.by_name.remove(&name));
            followed.by_name.insert(name, compiled);
            fresh
        });
    }

    fn remove_one<C: Configuration>(&self, configuration: C) {
        let Some(name) = configuration.name() else {
            return;
        };
        self.apply::<C>(|followed| followed.by_name.remove(name).is_some());
    }
}

impl Sink<MutatingWebhookConfiguration> for Configurations {
    fn replace(&self, listed: Vec<MutatingWebhookConfiguration>) {
        self.replace_all(listed);
    }
    fn upsert(&self, configuration: MutatingWebhookConfiguration) {
        self.upsert_one(configuration);
    }
    fn remove(&self, configuration: MutatingWebhookConfiguration) {
        self.remove_one(configuration);
    }
}

impl Sink<ValidatingWebhookConfiguration> for Configurations {
    fn replace(&self, listed: Vec<ValidatingWebhookConfiguration>) {
        self.replace_all(listed);
    }
    fn upsert(&self, configuration: ValidatingWebhookConfiguration) {
        self.upsert_one(configuration);
    }
    fn remove(&self, configuration: ValidatingWebhookConfiguration) {
        self.remove_one(configuration);
    }
}

#[cfg(test)]
mod tests;
