//! Which requests the namespace check sees, and its refusals as kube's Status.
//!
//! kube's admission runs after the request is decoded and checked (options, body,
//! apiVersion, namespace of the body) and, for updates, after the object was found. So a
//! refusal is only given when those steps pass: otherwise the handler answers what kube
//! answers first. Those steps run only when the cache cannot admit at once (namespace
//! missing, terminating, or no list yet), so the common write pays one map lookup.
//!
//! Operations, as k8s.io/apiserver's handlers name them: `POST` is Create; a
//! server-side apply to a missing object is Create (forceAllowCreate); every other update
//! or patch (status and scale too) is Update, and one of a missing object is answered
//! 404 by the handler before admission. Reads, deletes and deletecollection pass.

use super::admission::{self, Operation, Refusal, Step};
use crate::error::{ApiError, GroupResource};
use crate::handlers::context::Target;
use crate::handlers::write::{check_namespace, check_type_meta};
use crate::handlers::{AppState, Call, admit};
use crate::meta::object as obj;
use crate::request::body::decode_resource;
use crate::request::info::{Subresource, Verb};
use crate::request::negotiate::{BodyFormat, body_format, patch_format};
use crate::request::options::WriteOptions;

/// The write kinds the check tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Write {
    /// `POST` of a new object.
    Create,
    /// Server-side apply to the main resource: Create when the object is missing.
    Apply,
    /// Any other update or patch.
    Update,
}

fn classify(call: &Call) -> Option<Write> {
    let apply = || {
        matches!(
            patch_format(call.header("content-type")),
            Ok(BodyFormat::ApplyPatch)
        )
    };
    match (&call.info.verb, &call.info.subresource) {
        (Verb::Create, Subresource::None) => Some(Write::Create),
        (Verb::Patch, Subresource::None) if apply() => Some(Write::Apply),
        (
            Verb::Update | Verb::Patch,
            Subresource::None | Subresource::Status | Subresource::Scale,
        ) => Some(Write::Update),
        _ => None,
    }
}

/// NamespaceLifecycle for one request; `Ok` when unchecked (no cluster) or admitted.
pub async fn check(state: &AppState, call: &Call, ctx: &Target) -> Result<(), ApiError> {
    let (Some(followed), Some(namespace)) = (state.namespaces.followed(), &ctx.namespace) else {
        return Ok(());
    };
    let Some(write) = classify(call) else {
        return Ok(());
    };
    // Admitted whatever the operation turns out to be (Create is the strictest): no more
    // to look at.
    let seen = followed.seen(namespace);
    let strictest = match write {
        Write::Update => Operation::Update,
        Write::Create | Write::Apply => Operation::Create,
    };
    if admission::first_look(strictest, namespace, seen) == Step::Admit {
        return Ok(());
    }
    let Some((op, name)) = before_admission(state, call, ctx, write).await else {
        return Ok(());
    };
    followed
        .admit(op, namespace)
        .await
        .map_err(|refusal| refused(refusal, ctx.group_resource(), &name, namespace))
}

/// kube's steps before admission: `None` when one fails or the object to update is
/// missing (the handler answers that), else the operation and the name messages show.
async fn before_admission(
    state: &AppState,
    call: &Call,
    ctx: &Target,
    write: Write,
) -> Option<(Operation, String)> {
    match write {
        Write::Create => decoded_create(call, ctx).map(|name| (Operation::Create, name)),
        Write::Apply => {
            WriteOptions::for_patch(&call.query, true).ok()?;
            crate::handlers::apply::decode_patch(&call.body).ok()?;
            let op = match exists(state, ctx).await? {
                true => Operation::Update,
                false => Operation::Create,
            };
            Some((op, ctx.name.clone()))
        }
        Write::Update => {
            match call.info.verb {
                Verb::Update => {
                    WriteOptions::from_query(&call.query, "UpdateOptions").ok()?;
                    body_format(call.header("content-type")).ok()?;
                }
                _ => {
                    WriteOptions::for_patch(&call.query, false).ok()?;
                    patch_format(call.header("content-type")).ok()?;
                }
            }
            exists(state, ctx)
                .await?
                .then(|| (Operation::Update, ctx.name.clone()))
        }
    }
}

/// Create's decoding and checks, as `handlers::write::create_object` runs them before
/// admission (keep the two in step); the name kube's admission errors show
/// (`generateName` before one is generated).
fn decoded_create(call: &Call, ctx: &Target) -> Option<String> {
    let options = WriteOptions::from_query(&call.query, "CreateOptions").ok()?;
    let format = body_format(call.header("content-type")).ok()?;
    let report = options.field_validation.reports();
    let decoded = decode_resource(&call.body, format, &ctx.resource.kind, report).ok()?;
    let (mut object, duplicates) = (decoded.object, decoded.duplicates);
    check_type_meta(ctx, &object).ok()?;
    check_namespace(ctx, &object).ok()?;
    admit::coerce_body(ctx, &mut object, duplicates, options.field_validation).ok()?;
    let generate_name = object["metadata"]["generateName"].as_str();
    let name = match (obj::name(&object), generate_name) {
        ("", Some(prefix)) if !prefix.is_empty() => prefix,
        ("", _) => "Unknown",
        (name, _) => name,
    };
    Some(name.to_string())
}

/// Whether the target object is stored (`None`: the store failed; the handler says so).
async fn exists(state: &AppState, ctx: &Target) -> Option<bool> {
    let stored = state.store.get(&ctx.key(state, &ctx.name)).await.ok()?;
    Some(stored.is_some())
}

/// A refusal as kube's admission words it for `resource` `name` in `namespace`.
fn refused(refusal: Refusal, resource: GroupResource, name: &str, namespace: &str) -> ApiError {
    match refusal {
        Refusal::NotReady => ApiError::Forbidden {
            message: format!(
                "{resource} {} is forbidden: not yet ready to handle request",
                crate::gofmt::quote(name)
            ),
            resource: Some(resource),
            name: name.to_string(),
        },
        Refusal::NotFound => ApiError::NotFound {
            resource: GroupResource::new("", "namespaces"),
            name: namespace.to_string(),
        },
        Refusal::Terminating => ApiError::NamespaceTerminating {
            resource,
            name: name.to_string(),
            namespace: namespace.to_string(),
        },
        Refusal::LookupFailed(message) => ApiError::Internal(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn status(refusal: Refusal) -> Value {
        let crontabs = GroupResource::new("stable.example.com", "crontabs");
        refused(refusal, crontabs, "c1", "doomed").to_status()
    }

    #[test]
    fn refused_terminating_is_kubes_forbidden_with_cause() {
        let want = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "reason": "Forbidden", "code": 403,
            "message": "crontabs.stable.example.com \"c1\" is forbidden: unable to create new content in namespace doomed because it is being terminated",
            "details": {"name": "c1", "group": "stable.example.com", "kind": "crontabs",
                "causes": [{"reason": "NamespaceTerminating",
                    "message": "namespace doomed is being terminated", "field": "metadata.namespace"}]}});
        assert_eq!(status(Refusal::Terminating), want);
    }

    #[test]
    fn refused_not_found_names_the_namespace_without_group() {
        let want = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "reason": "NotFound", "code": 404,
            "message": "namespaces \"doomed\" not found",
            "details": {"name": "doomed", "kind": "namespaces"}});
        assert_eq!(status(Refusal::NotFound), want);
    }

    #[test]
    fn refused_not_ready_is_kubes_admission_forbidden() {
        let want = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "reason": "Forbidden", "code": 403,
            "message": "crontabs.stable.example.com \"c1\" is forbidden: not yet ready to handle request",
            "details": {"name": "c1", "group": "stable.example.com", "kind": "crontabs"}});
        assert_eq!(status(Refusal::NotReady), want);
    }
}
