//! What both webhook plugins share and every dispatch starts with (kube's `generic.Webhook`):
//! the hooks once ready (`WaitForReady`, else 403 `not yet ready to handle request`), the
//! request as the matcher sees it (its resource and kind, the other served versions, the
//! namespace's labels when a hook selects namespaces), and the objects in the version a
//! hook is called with.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::call::{called_kind, request_kind, request_resource};
use super::conditions::{Authorizer as ConditionAuthorizer, ConditionInput};
use super::hook::{FailurePolicy, Hook, HookKind, Hooks};
use super::matching::NamespaceLabels;
use super::matching::{self, Equivalent, Gvk, Gvr, Invocation, MatchError, MatchRequest};
use super::source::Source;
use crate::admission::metrics::AdmissionMetrics;
use crate::admission::namespace::{LabelsLookup, NamespaceLifecycle};
use crate::admission::{Attributes, forbidden, forbidden_named};
use crate::error::{ApiError, GroupResource};
use crate::webhook::Transport;

/// kube's `timeToWaitForReady`: how long a write waits for the configurations' first list.
const READY_WAIT: Duration = Duration::from_secs(10);

/// The state the MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins share.
pub struct Webhooks {
    pub source: Source,
    /// One client per plugin: each has its own `kubeConfigFile` credentials.
    pub mutating: Transport,
    pub validating: Transport,
    /// The namespaces followed for NamespaceLifecycle, whose labels `namespaceSelector`s read.
    pub namespaces: NamespaceLifecycle,
    pub metrics: AdmissionMetrics,
    /// What `authorizer` checks in matchConditions ask (the server's authorizer).
    pub authorizer: Arc<dyn ConditionAuthorizer + Send + Sync>,
}

impl Webhooks {
    /// The hooks to dispatch over: at once when the configurations were listed, else
    /// after waiting for the first lists; 403 when they do not arrive in time.
    pub async fn hooks(
        &self,
        attributes: &Attributes<'_>,
        object: Option<&Value>,
    ) -> Result<Arc<Hooks>, ApiError> {
        if let Some(hooks) = self.source.current() {
            return Ok(hooks);
        }
        self.source.wait_synced(READY_WAIT).await;
        self.source
            .current()
            .ok_or_else(|| forbidden(attributes, object, "not yet ready to handle request"))
    }

    /// The request as the matcher sees it, for a dispatch over `hooks`.
    pub async fn request_facts(&self, attributes: &Attributes<'_>, hooks: &Hooks) -> RequestFacts {
        RequestFacts::looked_up(&self.namespaces, attributes, hooks.use_namespace_labels()).await
    }
}

impl Webhooks {
    /// A hook's `matchConditions` for this request (kube's `matchconditions.Matcher` in
    /// `ShouldCallHook`): whether they match. When they cannot decide, failurePolicy
    /// Ignore skips the hook and Fail refuses the request (kube's 403).
    pub async fn conditions_match(
        &self,
        invocation: &Invocation,
        attributes: &Attributes<'_>,
        object: Option<&Value>,
    ) -> Result<bool, ApiError> {
        let hook = &invocation.hook;
        if hook.conditions.is_empty() {
            return Ok(true);
        }
        let [seen, old] = versioned_objects(invocation, attributes, object).await?;
        let options = attributes.options.to_json();
        let input = ConditionInput {
            kind: called_kind(invocation),
            request_kind: request_kind(attributes),
            resource: request_resource(attributes),
            request_resource: request_resource(attributes),
            sub_resource: attributes.subresource,
            name: attributes.name,
            namespace: attributes.namespace,
            operation: attributes.operation.as_str(),
            user: attributes.user,
            dry_run: attributes.dry_run,
            options: options.as_ref(),
            object: seen.as_deref(),
            old_object: old.as_deref(),
        };
        let authorizer: Arc<dyn ConditionAuthorizer> = self.authorizer.clone();
        // The authorizer library asks the cluster synchronously, as kube's does: off the
        // runtime's worker (the server's runtime has several).
        let evaluate = || hook.conditions.evaluate(&input, &authorizer);
        let flavor = tokio::runtime::Handle::current().runtime_flavor();
        let decided = match flavor {
            tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(evaluate),
            _ => evaluate(),
        };
        let error = match decided {
            Ok(matched) => return Ok(matched),
            Err(e) => e,
        };
        if hook.failure_policy == FailurePolicy::Ignore {
            return Ok(false);
        }
        tracing::warn!(webhook = %hook.name, %error, "failed evaluating match conditions, failing closed");
        // kube names the request's name here (empty for a create by generateName).
        Err(forbidden_named(
            attributes,
            attributes.name,
            &error.to_string(),
        ))
    }
}

/// What the matcher is told about one request, built once per dispatch.
pub struct RequestFacts {
    resource: Gvr,
    kind: Gvk,
    equivalents: Vec<Equivalent>,
    labels: LabelsLookup,
}

impl RequestFacts {
    /// The facts of `attributes`, the namespace's labels looked up when `use_labels`.
    pub async fn looked_up(
        namespaces: &NamespaceLifecycle,
        attributes: &Attributes<'_>,
        use_labels: bool,
    ) -> RequestFacts {
        let labels = match attributes.namespace {
            "" => LabelsLookup::NotLooked,
            _ if !use_labels => LabelsLookup::NotLooked,
            namespace => namespaces.labels(namespace).await,
        };
        RequestFacts::new(attributes, labels)
    }

    pub fn new(a: &Attributes<'_>, labels: LabelsLookup) -> RequestFacts {
        let gvr = |version: &str| Gvr {
            group: a.group.to_string(),
            version: version.to_string(),
            resource: a.resource.to_string(),
        };
        let kind = Gvk {
            group: a.kind.group.to_string(),
            version: a.kind.version.to_string(),
            kind: a.kind.kind.to_string(),
        };
        // kube's equivalent resource mapper: the resource in every served version, its
        // subresource's kind there (a Scale stays autoscaling/v1 Scale).
        let own_kind = a.served.is_some_and(|s| s.kind == a.kind.kind);
        let versions = a.served.map(|s| s.versions.as_slice()).unwrap_or_default();
        let equivalents = versions
            .iter()
            .map(|v| Equivalent {
                resource: gvr(&v.name),
                kind: match own_kind {
                    true => Gvk {
                        version: v.name.to_string(),
                        ..kind.clone()
                    },
                    false => kind.clone(),
                },
            })
            .collect();
        RequestFacts {
            resource: gvr(a.version),
            kind,
            equivalents,
            labels,
        }
    }

    /// kube's `ShouldCallHook` (without matchConditions) for the objects now.
    pub fn should_call(
        &self,
        hook: &Arc<Hook>,
        attributes: &Attributes<'_>,
        object: Option<&Value>,
    ) -> Result<Option<Invocation>, ApiError> {
        let request = self.match_request(attributes, object);
        matching::should_call(hook, &request).map_err(match_error)
    }

    /// The request as a matcher sees it, for the objects now.
    pub fn match_request<'a>(
        &'a self,
        attributes: &Attributes<'a>,
        object: Option<&'a Value>,
    ) -> MatchRequest<'a> {
        MatchRequest {
            operation: attributes.operation,
            resource: &self.resource,
            subresource: attributes.subresource,
            kind: &self.kind,
            namespace: attributes.namespace,
            object,
            old_object: attributes.old_object,
            namespace_labels: match &self.labels {
                LabelsLookup::NotLooked => NamespaceLabels::NotLooked,
                LabelsLookup::Found(labels) => NamespaceLabels::Found(labels),
                LabelsLookup::NotFound => NamespaceLabels::NotFound,
                LabelsLookup::Failed(text) => NamespaceLabels::Failed(text),
            },
            equivalents: &self.equivalents,
        }
    }
}

/// A matcher's error as kube's StatusError (500, or the namespace's 404).
pub fn match_error(error: MatchError) -> ApiError {
    match error {
        MatchError::Internal(text) => ApiError::Internal(text),
        MatchError::NamespaceNotFound(name) => ApiError::NotFound {
            resource: GroupResource::new("", "namespaces"),
            name,
        },
    }
}

/// The object and the old object as the hook of `invocation` sees them: in the version
/// it asked for, through the resource's converter when it has one (one call for both);
/// a conversion failure is kube's 500 (`NewInternalError`, once more by the mutating
/// plugin's accessor: `Internal error occurred: Internal error occurred: …`).
pub async fn versioned_objects<'v>(
    invocation: &Invocation,
    attributes: &Attributes<'v>,
    object: Option<&'v Value>,
) -> Result<[Option<Cow<'v, Value>>; 2], ApiError> {
    let kind = &invocation.kind;
    let api_version = match kind.group.as_str() {
        "" => kind.version.clone(),
        group => format!("{group}/{}", kind.version),
    };
    let objects = [object, attributes.old_object];
    crate::admission::convert::versioned(attributes, objects, &api_version)
        .await
        .map_err(|message| conversion_error(invocation.hook.kind, message))
}

/// A failed conversion in a webhook's dispatch, as kube's plugin answers it.
pub fn conversion_error(kind: HookKind, message: String) -> ApiError {
    match kind {
        HookKind::Validating => ApiError::Internal(message),
        HookKind::Mutating => ApiError::Internal(format!("Internal error occurred: {message}")),
    }
}

/// `object` as the hook of `invocation` sees it: in the version it asked for (our
/// resources' versions differ only in apiVersion until conversion webhooks exist: the
/// `None` conversion strategy).
pub fn versioned<'v>(object: &'v Value, invocation: &Invocation) -> Cow<'v, Value> {
    versioned_as(object, &invocation.kind)
}

/// `object` in the version of `kind` (see [`versioned`]).
pub fn versioned_as<'v>(object: &'v Value, kind: &Gvk) -> Cow<'v, Value> {
    let api_version = match kind.group.as_str() {
        "" => kind.version.clone(),
        group => format!("{group}/{}", kind.version),
    };
    match object.get("apiVersion").and_then(Value::as_str) {
        Some(current) if current != api_version && object.get("kind").is_some() => {
            let mut converted = object.clone();
            converted["apiVersion"] = Value::String(api_version);
            Cow::Owned(converted)
        }
        _ => Cow::Borrowed(object),
    }
}

/// A mutated object defaulted by the schema of the version its hook saw it in (kube's
/// `ObjectDefaulter` after each patch), then back in the request's version (through the
/// resource's converter when it has one).
pub async fn unversioned(
    mut object: Value,
    invocation: &Invocation,
    attributes: &Attributes<'_>,
) -> Result<Value, ApiError> {
    let Some(served) = attributes.served else {
        return Ok(object);
    };
    if served.kind != attributes.kind.kind {
        // A Scale: a typed object with nothing to default.
        return Ok(object);
    }
    if let Some(version) = served.version(&invocation.kind.version) {
        crate::schema::default::default(&mut object, &version.structural);
    }
    let api_version = format!("{}/{}", attributes.kind.group, attributes.kind.version);
    crate::admission::convert::unversioned(attributes, object, &api_version)
        .await
        .map_err(|message| conversion_error(invocation.hook.kind, message))
}
