//! The scale subresource: an `autoscaling/v1` Scale read from and written to the paths the
//! CRD names (specReplicasPath, statusReplicasPath, labelSelectorPath), with writes
//! field-managed on the Scale and moved onto the object as kube's ScaleHandler does.
//!
//! # Layout
//!
//! - `view`: the Scale of an object, and a request's Scale as the typed decoder sees it.
//! - `write`: update, JSON / merge patch and apply through the Scale's field manager.
//! - `render`: the Scale in the negotiated representation (Table, PartialObjectMetadata).

mod render;
mod view;
mod write;

use std::sync::Arc;

use crate::crd::catalog::ScalePaths;
use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::handlers::object::read;
use crate::handlers::strategy::change::{Change, decode_patch};
use crate::handlers::strategy::managed::manager_name;
use crate::handlers::write::accept;
use crate::handlers::{AppState, Call, Reply};
use crate::request::body::decode_scale;
use crate::request::negotiate::{BodyFormat, body_format, patch_format};
use crate::request::options::WriteOptions;

use write::{ScaleWrite, write_scale};

fn paths(ctx: &Target) -> Result<&ScalePaths, ApiError> {
    ctx.version().scale.as_ref().ok_or(ApiError::PathNotFound)
}

pub async fn get(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    let representation = accept(call)?;
    let paths = paths(ctx)?;
    let (_, object) = read(state, ctx, &ctx.name).await?;
    let (scale, found) = view::scale_of(&object, paths);
    if !found {
        return Err(ApiError::Internal(format!(
            "the spec replicas field {} does not exist",
            crate::gofmt::quote(&paths.spec_replicas)
        )));
    }
    render::scale_reply(call, representation, scale)
}

pub async fn update(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    // Negotiated before anything is written, as every write (kube's update.go).
    let representation = accept(call)?;
    let options = WriteOptions::from_query(&call.query, "UpdateOptions")?;
    let body = decode_scale(&call.body, body_format(call.header("content-type"))?)?;
    let scale = view::decode_body(&body)?;
    call.audit.log_request_object(&scale);
    let manager = manager_name(call, &options);
    let write = ScaleWrite::Update { scale, manager };
    write_scale(state, call, ctx, &options, write, representation).await
}

pub async fn patch(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    let format = patch_format(call.header("content-type"))?;
    let representation = accept(call)?;
    let apply = format == BodyFormat::ApplyPatch;
    let (options, force) = WriteOptions::for_patch(&call.query, apply)?;
    call.audit.log_request_patch(&call.body);
    let change = if apply {
        ScaleWrite::Apply {
            patch: crate::handlers::apply::decode_patch(&call.body)?,
            manager: options.field_manager.clone(),
            force,
        }
    } else {
        ScaleWrite::Patch {
            change: Change::Patch(
                format,
                decode_patch(&call.body, format, options.field_validation)?.0,
            ),
            manager: manager_name(call, &options),
            deadline: call.deadline,
        }
    };
    write_scale(state, call, ctx, &options, change, representation).await
}
