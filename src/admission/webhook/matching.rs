//! Whether a webhook is called for a request, and with which version of the resource:
//! k8s.io/apiserver's `generic.Webhook.ShouldCallHook` up to its `matchConditions` (which
//! the caller evaluates on the returned [`Invocation`]), with the `namespaceSelector` and
//! `objectSelector` predicates (`predicates/namespace`, `predicates/object`), the rules
//! (`predicates/rules`) and `matchPolicy: Equivalent`. Pure: the namespace's labels and
//! the resource's other served versions are passed in.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::hook::{Hook, MatchPolicy};
use super::rules::Target;
use crate::admission::Operation;
use crate::selector::label::LabelSelector;

/// A group, version and resource (plural).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Gvr {
    pub group: String,
    pub version: String,
    pub resource: String,
}

/// Go's `schema.GroupVersionResource.String()`: `group/version, Resource=plural`.
impl fmt::Display for Gvr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (g, v, r) = (&self.group, &self.version, &self.resource);
        write!(f, "{g}/{v}, Resource={r}")
    }
}

/// A group, version and kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

/// One served version of the request's resource (kube's equivalent resource mapper):
/// the resource in that version and the kind the subresource has there (the custom
/// resource's kind, or `autoscaling/v1` `Scale` for `/scale`; empty when unknown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Equivalent {
    pub resource: Gvr,
    pub kind: Gvk,
}

/// What the request's namespace is known to carry, looked up by the caller.
#[derive(Clone, Copy, Debug)]
pub enum NamespaceLabels<'a> {
    /// Not looked up: no hook restricts namespaces ([`super::hook::Hooks::use_namespace_labels`]),
    /// or the object is cluster-scoped.
    NotLooked,
    Found(&'a BTreeMap<String, String>),
    /// Not in the cache nor the cluster.
    NotFound,
    /// The lookup failed with this text.
    Failed(&'a str),
}

/// A write as the matcher sees it.
#[derive(Clone, Copy, Debug)]
pub struct MatchRequest<'a> {
    pub operation: Operation,
    /// The resource in the version the request was made in.
    pub resource: &'a Gvr,
    /// `""`, `status` or `scale`.
    pub subresource: &'a str,
    /// The kind of the request's object in that version.
    pub kind: &'a Gvk,
    /// `""` for a cluster-scoped object.
    pub namespace: &'a str,
    pub object: Option<&'a Value>,
    pub old_object: Option<&'a Value>,
    pub namespace_labels: NamespaceLabels<'a>,
    /// The resource's served versions, in the definition's order (the request's own
    /// version may be among them; it is skipped).
    pub equivalents: &'a [Equivalent],
}

/// A hook to call, with the version of the resource it is called with.
#[derive(Clone, Debug)]
pub struct Invocation {
    pub hook: Arc<Hook>,
    pub resource: Gvr,
    pub subresource: String,
    pub kind: Gvk,
}

/// Why matching a hook failed the request (kube's StatusError from `ShouldCallHook`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchError {
    /// 500 `Internal error occurred: <text>` (a bad selector, an unknown kind, a failed
    /// namespace lookup).
    Internal(String),
    /// The namespace's own 404: `namespaces "<name>" not found`.
    NamespaceNotFound(String),
}

/// kube's `ShouldCallHook` without `matchConditions`: `Ok(None)` when the hook does not
/// apply. As kube, a selector error fails the request only when the rules match.
pub fn should_call(
    hook: &Arc<Hook>,
    request: &MatchRequest<'_>,
) -> Result<Option<Invocation>, MatchError> {
    let namespace = match_namespace(&hook.namespace_selector, request);
    if namespace == Ok(false) {
        return Ok(None);
    }
    let object = match_object(&hook.object_selector, request);
    if object == Ok(false) {
        return Ok(None);
    }
    let Some(invocation) = match_rules(hook, request)? else {
        return Ok(None);
    };
    namespace?;
    object?;
    Ok(Some(invocation))
}

/// kube's `MatchNamespaceSelector` for a compiled `namespaceSelector` (or its conversion
/// error text); shared with the admission policies' matcher.
pub fn match_namespace(
    selector: &Result<LabelSelector, String>,
    request: &MatchRequest<'_>,
) -> Result<bool, MatchError> {
    let namespace_object = request.resource.resource == "namespaces";
    if request.namespace.is_empty() && !namespace_object {
        // Cluster-scoped objects are never exempted.
        return Ok(true);
    }
    let selector = selector
        .as_ref()
        .map_err(|e| MatchError::Internal(e.clone()))?;
    if selector.is_empty() {
        return Ok(true);
    }
    let writes_itself = request.subresource.is_empty()
        && matches!(request.operation, Operation::Create | Operation::Update);
    if namespace_object && writes_itself {
        // A Namespace being written is matched on its new labels.
        return Ok(matches_object(selector, request.object));
    }
    match request.namespace_labels {
        NamespaceLabels::Found(labels) => Ok(selector.matches_btree(labels)),
        NamespaceLabels::NotFound => {
            Err(MatchError::NamespaceNotFound(request.namespace.to_string()))
        }
        NamespaceLabels::Failed(text) => Err(MatchError::Internal(text.to_string())),
        NamespaceLabels::NotLooked => Err(MatchError::Internal(format!(
            "the labels of namespace {} were not looked up",
            request.namespace
        ))),
    }
}

/// kube's `MatchObjectSelector`: the new or the old object's labels.
pub fn match_object(
    selector: &Result<LabelSelector, String>,
    request: &MatchRequest<'_>,
) -> Result<bool, MatchError> {
    let selector = selector
        .as_ref()
        .map_err(|e| MatchError::Internal(e.clone()))?;
    if selector.is_empty() {
        return Ok(true);
    }
    Ok(matches_object(selector, request.object) || matches_object(selector, request.old_object))
}

/// An absent object matches nothing; absent or malformed labels read as none.
fn matches_object(selector: &LabelSelector, object: Option<&Value>) -> bool {
    let Some(object) = object else {
        return false;
    };
    let empty = Map::new();
    let labels = object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    selector.matches(labels)
}

/// The rules against the request's resource, then (Equivalent) against its other
/// versions: earlier rules first, each over the versions in order.
fn match_rules<'a>(
    hook: &Arc<Hook>,
    request: &MatchRequest<'a>,
) -> Result<Option<Invocation>, MatchError> {
    let target = |resource: &'a Gvr| Target {
        operation: request.operation,
        group: &resource.group,
        version: &resource.version,
        resource: &resource.resource,
        subresource: request.subresource,
        namespace: request.namespace,
    };
    let invocation = |resource: &Gvr, kind: &Gvk| Invocation {
        hook: hook.clone(),
        resource: resource.clone(),
        subresource: request.subresource.to_string(),
        kind: kind.clone(),
    };
    let own = target(request.resource);
    if hook.rules.iter().any(|rule| rule.matches(&own)) {
        return Ok(Some(invocation(request.resource, request.kind)));
    }
    if hook.match_policy != MatchPolicy::Equivalent {
        return Ok(None);
    }
    for rule in &hook.rules {
        let equivalents: &'a [Equivalent] = request.equivalents;
        let others = equivalents
            .iter()
            .filter(|e| e.resource != *request.resource);
        for equivalent in others {
            if !rule.matches(&target(&equivalent.resource)) {
                continue;
            }
            if equivalent.kind.kind.is_empty() {
                let resource = &equivalent.resource;
                return Err(MatchError::Internal(format!(
                    "unable to convert to {resource}: unknown kind"
                )));
            }
            return Ok(Some(invocation(&equivalent.resource, &equivalent.kind)));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests;
