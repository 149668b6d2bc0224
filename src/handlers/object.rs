//! get of one named object (and of its status), and how one object is rendered.

use std::sync::Arc;

use http::StatusCode;
use serde_json::Value;

use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::handlers::{AppState, Call, Reply, wire::served};
use crate::request::negotiate::{Representation, Target as NegotiationTarget, negotiate};
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
    let object = ctx.decode_served(&kv).await?;
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
    crate::handlers::traced::event("About to Get from storage");
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
    // In the request's version first, whatever the representation: a Table or
    // PartialObjectMetadata is made of the converted object (a failing converter fails
    // them too, as kube's storage codec does).
    let kv = match ctx.needs_conversion() {
        false => kv,
        true => {
            let converted = ctx.to_served_version(vec![kv]).await?;
            converted
                .into_iter()
                .next()
                .ok_or_else(|| ctx.not_found(&ctx.name))?
        }
    };
    crate::handlers::traced::event("About to write a response");
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
