//! The authorizer as admission's CEL expressions ask it (kube's `authorizer` library in
//! matchConditions): the always-allow groups, then a SubjectAccessReview of exactly the
//! attributes the expression built. CEL asks synchronously; the review is made on the
//! server's runtime from within the blocking evaluation (`block_in_place` upstream of it).

use std::sync::Arc;

use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, ResourceAttributes, SubjectAccessReviewSpec,
};

use super::Authorizer;
use super::sar::{Decision, field_attributes, label_attributes};
use crate::cel::lib::authz::{Answer, Attributes, Authorizer as CelAuthorizer, Decision as Cel};
use crate::selector::field::FieldSelector;
use crate::selector::label::LabelSelector;

/// The server's authorizer behind the CEL library's synchronous interface.
pub struct CelBridge {
    authorizer: Arc<Authorizer>,
    runtime: tokio::runtime::Handle,
}

impl CelBridge {
    /// Asks `authorizer` on the current runtime (a multi-threaded one: the server's).
    pub fn new(authorizer: Arc<Authorizer>) -> CelBridge {
        CelBridge {
            authorizer,
            runtime: tokio::runtime::Handle::current(),
        }
    }
}

impl CelAuthorizer for CelBridge {
    fn authorize(&self, attributes: &Attributes) -> Answer {
        let user = &attributes.user;
        if user
            .groups
            .iter()
            .any(|g| self.authorizer.groups.contains(g))
        {
            return answer(Cel::Allow, "", None);
        }
        let Some(webhook) = &self.authorizer.webhook else {
            return answer(Cel::NoOpinion, "", None);
        };
        let decided = self.runtime.block_on(webhook.decide_spec(spec(attributes)));
        match decided {
            Ok(Decision::Allow) => answer(Cel::Allow, "", None),
            Ok(Decision::Deny(reason)) => answer(Cel::Deny, &reason, None),
            Ok(Decision::NoOpinion(reason)) => answer(Cel::NoOpinion, &reason, None),
            Err(e) => answer(Cel::NoOpinion, "", Some(e.to_string())),
        }
    }
}

fn answer(decision: Cel, reason: &str, error: Option<String>) -> Answer {
    Answer {
        decision,
        reason: reason.to_string(),
        error,
    }
}

fn some(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// The review's spec for the library's attributes (kube's `ResourceAttributesFrom` over
/// its `AttributesRecord`; selectors parsed as kube parses them, dropped when invalid).
fn spec(a: &Attributes) -> SubjectAccessReviewSpec {
    let user = &a.user;
    let mut spec = SubjectAccessReviewSpec {
        user: some(&user.name),
        uid: some(&user.uid),
        groups: (!user.groups.is_empty()).then(|| user.groups.clone()),
        extra: (!user.extra.is_empty()).then(|| user.extra.clone()),
        ..Default::default()
    };
    if a.resource_request {
        spec.resource_attributes = Some(ResourceAttributes {
            namespace: some(&a.namespace),
            verb: some(&a.verb),
            group: some(&a.api_group),
            version: some(&a.api_version),
            resource: some(&a.resource),
            subresource: some(&a.subresource),
            name: some(&a.name),
            field_selector: FieldSelector::parse(&a.field_selector)
                .ok()
                .and_then(|s| field_attributes(&s)),
            label_selector: LabelSelector::parse(&a.label_selector)
                .ok()
                .and_then(|s| label_attributes(&s)),
        });
    } else {
        spec.non_resource_attributes = Some(NonResourceAttributes {
            path: some(&a.path),
            verb: some(&a.verb),
        });
    }
    spec
}
