//! The authorizer as admission's CEL expressions ask it (kube's `authorizer` library in
//! matchConditions): the always-allow groups, then a SubjectAccessReview of exactly the
//! attributes the expression built. CEL asks synchronously; the review is made on the
//! server's runtime from within the blocking evaluation (`block_in_place` upstream of it).

use std::sync::Arc;

use k8s_openapi::api::authorization::v1::SubjectAccessReviewSpec;

use super::Authorizer;
use super::sar::{Asked, Decision, ResourceRequest, Subject, review_spec};
use crate::cel::lib::authz::{Answer, Attributes, Authorizer as CelAuthorizer, Decision as Cel};

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
            Ok(Decision::Allow(_)) => answer(Cel::Allow, "", None),
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

/// The review's spec for the library's attributes (kube's `ResourceAttributesFrom` over
/// its `AttributesRecord`).
fn spec(a: &Attributes) -> SubjectAccessReviewSpec {
    let user = &a.user;
    let subject = Subject {
        name: &user.name,
        uid: &user.uid,
        groups: &user.groups,
        extra: &user.extra,
    };
    let asked = match a.resource_request {
        true => Asked::Resource(ResourceRequest {
            namespace: &a.namespace,
            verb: &a.verb,
            group: &a.api_group,
            version: &a.api_version,
            resource: &a.resource,
            subresource: &a.subresource,
            name: &a.name,
            field_selector: &a.field_selector,
            label_selector: &a.label_selector,
        }),
        false => Asked::NonResource {
            path: &a.path,
            verb: &a.verb,
        },
    };
    review_spec(subject, asked)
}
