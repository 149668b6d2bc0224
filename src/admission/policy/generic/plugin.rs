//! What one policy plugin holds and every request starts with (kube's generic
//! `Plugin.Dispatch`): the hooks once ready (else 403 `not yet ready to handle
//! request`, as the webhooks wait), the request as the matcher sees it, and the
//! selection the kind's delegate then judges.

use std::sync::Arc;

use serde_json::Value;

use super::dispatch::Invocation;
use super::dispatch::{Outcome, Selection, select};
use super::kind::PolicyKind;
use super::source::Source;
use super::versioned::Versions;
use crate::admission::metrics::AdmissionMetrics;
use crate::admission::namespace::NamespaceLifecycle;
use crate::admission::webhook::dispatch::RequestFacts;
use crate::admission::{Attributes, forbidden};
use crate::cel::lib::authz::Authorizer;
use crate::error::ApiError;

/// kube's `timeToWaitForReady`, as the webhooks wait.
const READY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The state of one policy plugin (MutatingAdmissionPolicy or ValidatingAdmissionPolicy).
pub struct Policies<K: PolicyKind> {
    pub source: Source<K>,
    /// The namespaces followed for NamespaceLifecycle, whose labels selectors read and
    /// whose objects are `namespaceObject`.
    pub namespaces: NamespaceLifecycle,
    /// What `authorizer` checks in expressions ask (the server's authorizer).
    pub authorizer: Arc<dyn Authorizer + Send + Sync>,
    pub metrics: AdmissionMetrics,
}

impl<K: PolicyKind> Policies<K> {
    /// The invocations for this request, `None` when no policy is bound at all (the
    /// write path then does nothing more).
    pub async fn select(
        &self,
        attributes: &Attributes<'_>,
        object: Option<&Value>,
    ) -> Result<Option<Selection<K>>, ApiError> {
        let hooks = match self.source.current() {
            Some(hooks) => hooks,
            None => {
                self.source.wait_synced(READY_WAIT).await;
                self.source.current().ok_or_else(|| {
                    forbidden(attributes, object, "not yet ready to handle request")
                })?
            }
        };
        if hooks.is_empty() {
            return Ok(None);
        }
        let uses_labels = hooks.use_namespace_labels();
        let facts = RequestFacts::looked_up(&self.namespaces, attributes, uses_labels).await;
        let request = facts.match_request(attributes, object);
        let mut versions = Versions::new(attributes, object);
        let mut selection = select(&hooks, &request, attributes.name, &mut versions).await;
        selection.versioned = versions.converted;
        Ok(Some(selection))
    }

    /// kube's `Dispatch` with the kind's `delegate` for the request's `object`.
    pub async fn dispatch(
        &self,
        attributes: &Attributes<'_>,
        object: Option<&Value>,
        delegate: impl FnOnce(&[Invocation<K>]) -> Outcome,
    ) -> Result<(), ApiError> {
        match self.select(attributes, object).await? {
            None => Ok(()),
            Some(selection) => selection.finish(attributes, object, delegate),
        }
    }
}

/// A plugin's shared state.
pub type Shared<K> = Arc<Policies<K>>;
