//! get and delete of one named object (and get of its status).

use std::sync::Arc;

use http::StatusCode;
use serde_json::{Value, json};

use crate::admission::{Operation, Options};
use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::handlers::strategy::admit::Admitting;
use crate::handlers::strategy::guaranteed::{Attempts, Next};
use crate::handlers::{AppState, Call, Reply, wire::served};
use crate::meta::{lifecycle, object as obj};
use crate::request::negotiate::{Representation, Target as NegotiationTarget, negotiate};
use crate::request::options::{DeleteOptions, Preconditions};
use crate::storage::KeyValue;

/// Reads the named object; 404 when absent.
pub async fn read(
    state: &AppState,
    ctx: &Target,
    name: &str,
) -> Result<(KeyValue, Value), ApiError> {
    let key = ctx.key(state, name);
    let kv = state
        .store
        .get(&key)
        .await
        .map_err(|e| ctx.storage_error(name, e))?
        .ok_or_else(|| ctx.not_found(name))?;
    let object = ctx.decode(&kv)?;
    Ok((kv, object))
}

/// Renders one object in the negotiated representation, converted when the Accept header
/// asks for a `meta.k8s.io` form (after the request's work, as kube converts its result).
pub fn render_object(
    call: &Call,
    ctx: &Target,
    code: StatusCode,
    object: Value,
) -> Result<Reply, ApiError> {
    let representation = negotiate(call.header("accept"), NegotiationTarget::Object)?;
    let body = match representation {
        Representation::Meta(target) => {
            let conversion = crate::handlers::collection::conversion(call, target)?;
            ctx.version()
                .table
                .convert_object(
                    &object,
                    conversion,
                    target.version,
                    crate::table::TableOptions::default(),
                    jiff::Timestamp::now(),
                )
                .map_err(crate::handlers::collection::transform_error)?
        }
        _ => object,
    };
    Ok(Reply::Object {
        code,
        body,
        representation: representation.encoding(),
        warnings: Vec::new(),
    }
    .with_warning(ctx.deprecation_warning()))
}

pub async fn get(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    crate::request::options::check_get_resource_version(&call.query)?;
    let representation = negotiate(call.header("accept"), NegotiationTarget::Object)?;
    let key = ctx.key(state, &ctx.name);
    let rv = call.query.get("resourceVersion").unwrap_or_default();
    let found = if rv.is_empty() {
        state.store.get(&key).await
    } else {
        // A resourceVersion asks for a state no older than it: the cache's will do.
        let not_older_than = crate::request::options::parse_resource_version(rv)
            .ok()
            .and_then(|r| i64::try_from(r).ok())
            .unwrap_or(0);
        if not_older_than > 0 {
            // A revision the store has not reached is kube's 504 "Too large resource
            // version", not the current object.
            let current = state
                .store
                .current_revision()
                .await
                .map_err(|e| ctx.storage_error(&ctx.name, e))?;
            if not_older_than > current {
                return Err(ctx.storage_error(
                    &ctx.name,
                    crate::storage::StorageError::FutureRevision {
                        requested: not_older_than,
                        current,
                    },
                ));
            }
        }
        state.store.get_not_older_than(&key, not_older_than).await
    };
    let kv = found
        .map_err(|e| ctx.storage_error(&ctx.name, e))?
        .ok_or_else(|| ctx.not_found(&ctx.name))?;
    if representation == Representation::Json {
        let body = served::object_bytes(ctx, &kv)?.to_bytes();
        let len = body.len();
        return Ok(Reply::Encoded {
            body: Box::pin(futures::stream::once(async move { Ok(body) })),
            len,
            warnings: Vec::new(),
        }
        .with_warning(ctx.deprecation_warning()));
    }
    render_object(call, ctx, StatusCode::OK, ctx.decode(&kv)?)
}

/// Checks delete preconditions with kube's messages.
pub fn check_preconditions(
    ctx: &Target,
    name: &str,
    pre: &Preconditions,
    object: &Value,
) -> Result<(), ApiError> {
    // kube's precondition check names the kind, not the resource.
    let fail = |message: String| ApiError::Conflict {
        resource: crate::error::GroupResource::new(&ctx.resource.group, &ctx.resource.kind),
        name: name.to_string(),
        message,
    };
    if let Some(uid) = &pre.uid
        && uid != obj::uid(object)
    {
        {
            return Err(fail(format!(
                "the UID in the precondition ({uid}) does not match the UID in record ({}). The object might have been deleted and then recreated",
                obj::uid(object)
            )));
        }
    }
    if let Some(rv) = &pre.resource_version
        && rv != obj::resource_version(object)
    {
        {
            return Err(fail(format!(
                "the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({}). The object might have been modified",
                obj::resource_version(object)
            )));
        }
    }
    Ok(())
}

/// Deletes one object: with finalizers it is only marked (deletionTimestamp), otherwise
/// removed. Returns the object as the response shows it, and whether it is gone.
pub async fn delete_one(
    state: &AppState,
    ctx: &Target,
    name: &str,
    options: &DeleteOptions,
    admission: (&Admitting<'_>, &str),
    warnings: &mut Vec<String>,
) -> Result<(Value, bool), ApiError> {
    let gc_finalizer = options.propagation.finalizer();
    let (admitting, admitted_name) = admission;
    let mut attempts = Attempts::begin(state, ctx, name, options.dry_run).await?;
    loop {
        let current = attempts.current();
        let outcome = async {
            check_preconditions(ctx, name, &options.preconditions, current)?;
            // kube's deleteValidation: both phases, with the stored object as the old one.
            admitting
                .mutate(admitted_name, None, Some(current), warnings)
                .await?;
            admitting
                .validate(admitted_name, None, Some(current), warnings)
                .await?;
            if obj::finalizers(current).is_empty() && gc_finalizer.is_none() {
                return Ok((Next::Delete(current.clone()), true));
            }
            if obj::is_being_deleted(current) {
                return Ok((Next::Keep, false));
            }
            let mut object = current.clone();
            if let Some(f) = gc_finalizer {
                lifecycle::add_finalizer(&mut object, f);
            }
            lifecycle::mark_deleted(&mut object);
            Ok((Next::Put(object), false))
        }
        .await;
        if let Some(written) = attempts.conclude(outcome).await? {
            return Ok((written.object, written.extra));
        }
    }
}

/// The admission of a delete (or of a deletecollection's deletes) of `ctx`'s resource.
pub fn delete_admission<'a>(
    state: &'a AppState,
    call: &'a Call,
    ctx: &'a Target,
    options: &'a DeleteOptions,
) -> Admitting<'a> {
    let subresource = call.info.subresource.as_str();
    let admission_options = Options::Delete(options);
    let operation = Operation::Delete;
    Admitting::new(
        state,
        ctx,
        &call.user,
        operation,
        subresource,
        admission_options,
        options.dry_run,
    )
}

/// DeleteOptions from the query and an optional JSON body (delete and deletecollection).
pub fn delete_options(call: &Call) -> Result<DeleteOptions, ApiError> {
    let body = if call.body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        Some(crate::request::body::decode_json(&call.body)?)
    };
    DeleteOptions::parse(&call.query, body.as_ref())
}

pub async fn delete(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    // kube negotiates before deleting: an Accept it cannot serve deletes nothing.
    let representation = negotiate(call.header("accept"), NegotiationTarget::Object)?;
    let options = delete_options(call)?;
    let admitting = delete_admission(state, call, ctx, &options);
    let mut warnings = Vec::new();
    let admission = (&admitting, ctx.name.as_str());
    let deleted = delete_one(state, ctx, &ctx.name, &options, admission, &mut warnings).await;
    let (object, removed) = match deleted {
        Ok(deleted) => deleted,
        Err(e) => return Ok(Reply::Error(e).with_warnings(warnings)),
    };
    if !removed {
        let reply = render_object(call, ctx, StatusCode::OK, object);
        return Ok(crate::handlers::write::with_warnings(reply, warnings));
    }
    // Removed at once: kube answers a Success Status naming the object, never converted.
    let status = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
        "details": {"name": obj::name(&object), "group": ctx.resource.group,
                    "kind": ctx.resource.plural, "uid": obj::uid(&object)},
    });
    let reply = Reply::ok(status, representation.encoding()).with_warnings(warnings);
    Ok(reply.with_warning(ctx.deprecation_warning()))
}
