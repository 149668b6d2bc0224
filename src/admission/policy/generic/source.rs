//! Where the policies come from (kube's `policySource`): the host cluster's policies and
//! bindings of one kind, listed and watched through the one cluster client, each policy
//! compiled once per generation, and the [`PolicyHooks`] snapshot requests read,
//! rebuilt on every change and published once both kinds have listed (`HasSynced`).
//! Without a cluster (dev mode) there are no policies. A param kind's store is asked
//! for when a policy names it and released when no policy does. A [`CompileHook`] is
//! told of each policy compiled (once per generation) and of each policy gone.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use kube::api::Api;
use tokio::sync::watch;

use super::hooks::{BindingHook, PolicyHook, PolicyHooks};
use super::kind::PolicyKind;
use super::params::{ParamKindRef, ParamStore};
use crate::admission::webhook::matching::Gvk;
use crate::cluster::informer::{Reflector, Sink};

/// The param stores policies read (a host informer per kind, or our own resources).
pub trait ParamSources: Send + Sync {
    /// The store of `kind`, started if it is not running.
    fn ensure(&self, kind: &ParamKindRef) -> Arc<dyn ParamStore>;
    /// Stops the stores of kinds no policy names any more.
    fn retain(&self, used: &[Gvk]);
}

/// Told when a policy is compiled (once per generation) and when it goes away: the
/// ValidatingAdmissionPolicy type checks run there.
pub trait CompileHook<K: PolicyKind>: Send + Sync {
    fn compiled(&self, policy: &K::Policy);
    fn removed(&self, name: &str);
}

/// A policy as last seen and what it compiled into.
struct Compiled<K: PolicyKind> {
    policy: Arc<K::Policy>,
    compiled: Arc<K::Compiled>,
}

struct State<K: PolicyKind> {
    policies_listed: bool,
    bindings_listed: bool,
    policies: BTreeMap<String, Compiled<K>>,
    bindings: BTreeMap<String, Arc<K::Binding>>,
}

/// The followed policies and bindings of kind `K`, and the published snapshot.
pub struct Followed<K: PolicyKind> {
    state: Mutex<State<K>>,
    snapshot: RwLock<Option<Arc<PolicyHooks<K>>>>,
    synced: watch::Sender<bool>,
    params: Arc<dyn ParamSources>,
    hook: Option<Arc<dyn CompileHook<K>>>,
}

impl<K: PolicyKind> Followed<K> {
    pub fn new(params: Arc<dyn ParamSources>) -> Self {
        Followed::with_hook(params, None)
    }

    /// Followed policies whose compilations and removals `hook` is told of.
    pub fn with_hook(params: Arc<dyn ParamSources>, hook: Option<Arc<dyn CompileHook<K>>>) -> Self {
        Followed {
            state: Mutex::new(State {
                policies_listed: false,
                bindings_listed: false,
                policies: BTreeMap::new(),
                bindings: BTreeMap::new(),
            }),
            snapshot: RwLock::new(None),
            synced: watch::channel(false).0,
            params,
            hook,
        }
    }

    /// The hooks now; `None` until both kinds have listed.
    pub fn current(&self) -> Option<Arc<PolicyHooks<K>>> {
        self.snapshot
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Waits up to `within` for both first lists; whether they have arrived.
    pub async fn wait_synced(&self, within: Duration) -> bool {
        let mut synced = self.synced.subscribe();
        let arrived = tokio::time::timeout(within, synced.wait_for(|s| *s)).await;
        matches!(arrived, Ok(Ok(_)))
    }

    fn removed(&self, name: &str) {
        if let Some(hook) = &self.hook {
            hook.removed(name);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<K>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies `change`; republishes once both kinds have listed.
    fn apply(&self, change: impl FnOnce(&mut State<K>)) {
        let mut state = self.lock();
        change(&mut state);
        if state.policies_listed && state.bindings_listed {
            let hooks = Arc::new(self.assemble(&state));
            *self.snapshot.write().unwrap_or_else(|e| e.into_inner()) = Some(hooks);
            self.synced.send_replace(true);
        }
    }

    /// kube's `calculatePolicyData`: every policy that has bindings, by name, with its
    /// bindings by name; param stores of kinds no longer named are released.
    fn assemble(&self, state: &State<K>) -> PolicyHooks<K> {
        let mut by_policy: BTreeMap<&str, Vec<Arc<BindingHook<K>>>> = BTreeMap::new();
        for binding in state.bindings.values() {
            let policy = K::binding(binding).policy_name;
            let hook = Arc::new(BindingHook::compile(binding.clone()));
            by_policy.entry(policy).or_default().push(hook);
        }
        let mut used = Vec::new();
        let mut hooks = Vec::new();
        for (name, bindings) in by_policy {
            let Some(policy) = state.policies.get(name) else {
                continue;
            };
            let params = |kind: &ParamKindRef| {
                used.push(kind.gvk.clone());
                self.params.ensure(kind)
            };
            let (p, c) = (policy.policy.clone(), policy.compiled.clone());
            hooks.extend(PolicyHook::assemble(p, c, params, bindings).map(Arc::new));
        }
        self.params.retain(&used);
        PolicyHooks { hooks }
    }

    fn upsert_policy(&self, state: &mut State<K>, policy: K::Policy) {
        let name = K::policy(&policy).name.to_string();
        let compiled = match state.policies.remove(&name) {
            Some(previous) if K::same_policy(&previous.policy, &policy) => previous.compiled,
            _ => {
                if let Some(hook) = &self.hook {
                    hook.compiled(&policy);
                }
                Arc::new(K::compile(&policy))
            }
        };
        let policy = Arc::new(policy);
        state.policies.insert(name, Compiled { policy, compiled });
    }
}

/// The sink of the policies' reflector.
pub struct PolicySink<K: PolicyKind>(pub Arc<Followed<K>>);
/// The sink of the bindings' reflector.
pub struct BindingSink<K: PolicyKind>(pub Arc<Followed<K>>);

impl<K: PolicyKind> Sink<K::Policy> for PolicySink<K> {
    fn replace(&self, listed: Vec<K::Policy>) {
        let followed = &self.0;
        followed.apply(|state| {
            let mut previous = std::mem::take(&mut state.policies);
            for policy in listed {
                let name = K::policy(&policy).name.to_string();
                if let Some(p) = previous.remove(&name) {
                    state.policies.insert(name, p);
                }
                followed.upsert_policy(state, policy);
            }
            for gone in previous.keys() {
                followed.removed(gone);
            }
            state.policies_listed = true;
        });
    }
    fn upsert(&self, policy: K::Policy) {
        self.0.apply(|state| self.0.upsert_policy(state, policy));
    }
    fn remove(&self, policy: K::Policy) {
        let name = K::policy(&policy).name.to_string();
        self.0.apply(|state| {
            if state.policies.remove(&name).is_some() {
                self.0.removed(&name);
            }
        });
    }
}

impl<K: PolicyKind> Sink<K::Binding> for BindingSink<K> {
    fn replace(&self, listed: Vec<K::Binding>) {
        self.0.apply(|state| {
            state.bindings = listed
                .into_iter()
                .map(|b| (K::binding(&b).name.to_string(), Arc::new(b)))
                .collect();
            state.bindings_listed = true;
        });
    }
    fn upsert(&self, binding: K::Binding) {
        let name = K::binding(&binding).name.to_string();
        self.0.apply(|state| {
            state.bindings.insert(name, Arc::new(binding));
        });
    }
    fn remove(&self, binding: K::Binding) {
        let name = K::binding(&binding).name.to_string();
        self.0.apply(|state| {
            state.bindings.remove(&name);
        });
    }
}

/// The policies of kind `K` of this server: none (no cluster) or followed.
pub enum Source<K: PolicyKind> {
    /// No cluster: never any policy.
    None(Arc<PolicyHooks<K>>),
    Followed(Arc<Followed<K>>),
}

impl<K: PolicyKind> Source<K>
where
    K::Policy: kube::Resource<DynamicType = ()>,
    K::Binding: kube::Resource<DynamicType = ()>,
{
    pub fn none() -> Source<K> {
        Source::None(Arc::default())
    }

    /// Spawns the policies' and the bindings' informers over `client`.
    pub fn follow(client: kube::Client, params: Arc<dyn ParamSources>) -> Source<K> {
        Source::follow_with_hook(client, params, None)
    }

    /// [`Source::follow`], `hook` told of each compilation and removal.
    pub fn follow_with_hook(
        client: kube::Client,
        params: Arc<dyn ParamSources>,
        hook: Option<Arc<dyn CompileHook<K>>>,
    ) -> Source<K> {
        let followed = Arc::new(Followed::with_hook(params, hook));
        let policies: Api<K::Policy> = Api::all(client.clone());
        let bindings: Api<K::Binding> = Api::all(client);
        let (what_policies, what_bindings) = K::RESOURCES;
        let sink = Arc::new(PolicySink(followed.clone()));
        tokio::spawn(Reflector::new(policies, sink, what_policies).run());
        let sink = Arc::new(BindingSink(followed.clone()));
        tokio::spawn(Reflector::new(bindings, sink, what_bindings).run());
        Source::Followed(followed)
    }
}

impl<K: PolicyKind> Source<K> {
    /// The hooks now; `None` until both kinds have listed.
    pub fn current(&self) -> Option<Arc<PolicyHooks<K>>> {
        match self {
            Source::None(hooks) => Some(hooks.clone()),
            Source::Followed(followed) => followed.current(),
        }
    }

    /// Waits up to `within` for both first lists.
    pub async fn wait_synced(&self, within: Duration) -> bool {
        match self {
            Source::None(_) => true,
            Source::Followed(followed) => followed.wait_synced(within).await,
        }
    }
}

#[cfg(test)]
mod tests;
