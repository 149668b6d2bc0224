//! Admission stage: kube's admission chain, an ordered list of plugins the write path
//! runs after a request's object is decoded and before it is stored.
//!
//! As in k8s.io/apiserver, every plugin has a mutating phase ([`Chain::admit`]: run
//! before the object is validated, may change it) and/or a validating phase
//! ([`Chain::validate`]: run after validation, may only refuse). A create runs them on
//! the decoded object; an update, a patch, `/status` and `/scale` run them on each
//! attempt of the write loop, once the object to change was found (a missing object is
//! answered 404 before admission). Reads pass through without admission.
//!
//! The plugins run in kube's `RecommendedPluginOrder`. Of its plugins, those that act on
//! custom resources in an aggregated server are, in order: NamespaceLifecycle (here),
//! then MutatingAdmissionPolicy, MutatingAdmissionWebhook, ValidatingAdmissionPolicy
//! and ValidatingAdmissionWebhook (each a variant of [`Plugin`] when it is built).
//!
//! - [`attributes`]: what a plugin is told about the request (kube's `admission.Attributes`).
//! - [`namespace`]: NamespaceLifecycle, fed by the host cluster's namespaces.

pub mod attributes;
pub mod namespace;
pub mod webhook;

pub use attributes::{Attributes, Operation};

use crate::error::ApiError;
use namespace::NamespaceLifecycle;

/// One admission plugin of this server.
pub enum Plugin {
    /// kube's `NamespaceLifecycle`: writes into missing or terminating namespaces refused.
    NamespaceLifecycle(NamespaceLifecycle),
}

impl Plugin {
    /// kube's plugin name, as `--enable-admission-plugins` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Plugin::NamespaceLifecycle(_) => "NamespaceLifecycle",
        }
    }

    /// The mutating phase (kube's `MutationInterface.Admit`).
    async fn admit(&self, attributes: &Attributes<'_>) -> Result<(), ApiError> {
        match self {
            Plugin::NamespaceLifecycle(plugin) => plugin.admit(attributes).await,
        }
    }

    /// The validating phase (kube's `ValidationInterface.Validate`).
    async fn validate(&self, _attributes: &Attributes<'_>) -> Result<(), ApiError> {
        match self {
            // NamespaceLifecycle has no validating phase.
            Plugin::NamespaceLifecycle(_) => Ok(()),
        }
    }
}

/// The plugins in the order they run, built once at start-up.
#[derive(Default)]
pub struct Chain {
    plugins: Vec<Plugin>,
}

impl Chain {
    /// The chain of these plugins, in kube's `RecommendedPluginOrder` (callers list them
    /// in that order).
    pub fn new(plugins: Vec<Plugin>) -> Self {
        Chain { plugins }
    }

    /// The plugins' names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.plugins.iter().map(Plugin::name).collect()
    }

    /// The mutating phase of every plugin, in order; the first refusal is the answer.
    pub async fn admit(&self, attributes: &Attributes<'_>) -> Result<(), ApiError> {
        for plugin in &self.plugins {
            plugin.admit(attributes).await?;
        }
        Ok(())
    }

    /// The validating phase of every plugin, in order; the first refusal is the answer.
    pub async fn validate(&self, attributes: &Attributes<'_>) -> Result<(), ApiError> {
        for plugin in &self.plugins {
            plugin.validate(attributes).await?;
        }
        Ok(())
    }
}
