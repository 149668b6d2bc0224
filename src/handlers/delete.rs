//! delete and deletecollection (kube's delete handlers and the store's Delete): the
//! preconditions, admission of each delete (both phases, with the stored object as the
//! old one), finalizers and deletionTimestamp, or removal.

use std::sync::Arc;

use http::StatusCode;
use serde_json::{Value, json};

use crate::admission::{Operation, Options};
use crate::error::ApiError;
use crate::handlers::collection::{list_options, read_page, render_list};
use crate::handlers::context::Target;
use crate::handlers::object::render_object;
use crate::handlers::strategy::admit::Admitting;
use crate::handlers::strategy::guaranteed::{Attempts, Next};
use crate::handlers::{AppState, Call, Reply};
use crate::meta::{lifecycle, object as obj};
use crate::request::negotiate::{Target as NegotiationTarget, negotiate};
use crate::request::options::{DeleteOptions, ListOptions, Preconditions};
use crate::table::ListMeta;

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
        call,
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
    if let Some(body) = &body {
        call.audit.log_request_object(body);
    }
    DeleteOptions::parse(&call.query, body.as_ref())
}

pub async fn delete(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    // kube negotiates before deleting: an Accept it cannot serve deletes nothing.
    let representation = negotiate(call.header("accept"), NegotiationTarget::Object)?;
    crate::handlers::traced::body_read(call);
    let options = delete_options(call)?;
    let admitting = delete_admission(state, call, ctx, &options);
    let mut warnings = Vec::new();
    let admission = (&admitting, ctx.name.as_str());
    crate::handlers::traced::event("About to delete object from database");
    let deleted = delete_one(state, ctx, &ctx.name, &options, admission, &mut warnings).await;
    let (object, removed) = match deleted {
        Ok(deleted) => deleted,
        Err(e) => return Ok(Reply::Error(e).with_warnings(warnings)),
    };
    crate::handlers::traced::event("Object deleted from database");
    crate::handlers::traced::event("About to write a response");
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

pub async fn delete_collection(
    state: &Arc<AppState>,
    call: &Call,
    ctx: &Target,
) -> Result<Reply, ApiError> {
    let representation = negotiate(call.header("accept"), NegotiationTarget::Object)?;
    let options = list_options(call, ctx)?;
    let delete_options = delete_options(call)?;
    let page = read_page(
        state,
        ctx,
        &ListOptions {
            limit: 0,
            ..options
        },
    )
    .await?;
    let items = page.objects(ctx).await?;
    // kube admits each delete with the request's attributes: its namespace, no name.
    let admitting = delete_admission(state, call, ctx, &delete_options);
    let mut warnings = Vec::new();
    for item in &items {
        let scoped = Target::for_namespace(ctx, obj::namespace(item));
        let name = obj::name(item);
        let admission = (&admitting, "");
        match delete_one(
            state,
            &scoped,
            name,
            &delete_options,
            admission,
            &mut warnings,
        )
        .await
        {
            // Deleted by someone else meanwhile: nothing left to do for it.
            Ok(_) | Err(ApiError::NotFound { .. }) => {}
            Err(e) => return Ok(Reply::Error(e).with_warnings(warnings)),
        }
    }
    // kube answers the list as it was read, before the deletions.
    let list_meta = ListMeta {
        resource_version: page.revision.to_string(),
        ..ListMeta::default()
    };
    let reply = render_list(call, ctx, representation, &items, &list_meta);
    Ok(crate::handlers::write::with_warnings(reply, warnings))
}
