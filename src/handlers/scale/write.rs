//! A `/scale` write (apiextensions' `scaleUpdatedObjectInfo`): the object's Scale, with the
//! object's managedFields seen as the Scale's, changed by the request under the Scale's
//! own field manager; then its replicas and managedFields set back into the object, which
//! is checked and stored as any update of it.

use serde_json::Value;

use super::view::{self, INVALID_SPEC_REPLICAS};
use crate::admission::{Operation, Options};
use crate::crd::catalog::ScalePaths;
use crate::error::ApiError;
use crate::fieldmanager::managed::{entries_of, set_entries};
use crate::fieldmanager::manager::{
    Error as FmError, FieldManager, ResetFields, ScaleHandler, gvk_string, object_gvknn,
};
use crate::fieldmanager::typed::{SCALE_API_VERSION, SCALE_KIND, ScaleConverter};
use crate::handlers::context::{Target, conflict};
use crate::handlers::strategy::admit::Admitting;
use crate::handlers::strategy::change::Change;
use crate::handlers::strategy::guaranteed::{Attempts, Next, Written};
use crate::handlers::write::{invalid, write_target};
use crate::handlers::{AppState, Call, Reply, strategy::checks};
use crate::meta::lifecycle;
use crate::meta::object as obj;
use crate::request::negotiate::Representation;
use crate::request::options::WriteOptions;

/// What the request does to the Scale, and as which manager.
pub enum ScaleWrite {
    /// PUT: the decoded Scale.
    Update { scale: Value, manager: String },
    /// A JSON or merge patch of the Scale (which shows its managedFields).
    Patch {
        change: Change,
        manager: String,
        /// The request's deadline, for a JSON patch's operations.
        deadline: Option<std::time::Instant>,
    },
    /// Server-side apply of a Scale.
    Apply {
        patch: Value,
        manager: String,
        force: bool,
    },
}

/// kube's text when the Scale's field manager converts a Scale with the CRD's converter
/// (`scopeWithFieldManager` gives the scale scope the custom resource's converter).
const CONVERT_FAILURE: &str =
    "to proper version: request to convert CR to an invalid group/version: autoscaling/v1";

/// The scale scope's field manager (`scopeWithFieldManager(typeConverter, scaleScope, nil,
/// "scale")`): the Scale type, no reset fields.
fn with_field_manager<T>(f: impl FnOnce(&FieldManager<'_>) -> T) -> T {
    let none = ResetFields::new();
    let fm = FieldManager {
        converter: &ScaleConverter,
        api_version: SCALE_API_VERSION,
        kind: SCALE_KIND,
        subresource: "scale",
        reset_fields: &none,
    };
    f(&fm)
}

/// `UpdateNoErrors`: a failure leaves the Scale without managedFields (and is logged).
fn record_update(old: &Value, mut new: Value, manager: &str) -> Value {
    let result =
        with_field_manager(|fm| fm.update(Some(old), &mut new, manager, jiff::Timestamp::now()));
    if let Err(e) = result {
        tracing::warn!(error = %e, "Scale managedFields not recorded");
    }
    new
}

/// The apply on the Scale. kube's apply converts Scales with the custom resource's
/// converter, which refuses them: a Scale without managers (the before-first-apply
/// step) and any apply that changes the Scale fail as kube's do; only applies that
/// change nothing but ownership succeed.
fn apply(old: &Value, patch: &Value, manager: &str, force: bool) -> Result<Value, ApiError> {
    let fm_error = |e: FmError| ApiError::FieldManager(e);
    let untracked = entries_of(old).is_none_or(|e| e.is_empty());
    if untracked {
        version_check(patch).map_err(fm_error)?;
        return Err(fm_error(FmError::Internal(format!(
            "failed to create manager for existing fields: failed to convert live object (/; {}) {CONVERT_FAILURE}",
            gvk_string(SCALE_API_VERSION, SCALE_KIND)
        ))));
    }
    let now = jiff::Timestamp::now();
    let new = with_field_manager(|fm| fm.apply(Some(old), patch, manager, force, now))
        .map_err(fm_error)?;
    if without_managed_fields(&new) != without_managed_fields(old) {
        return Err(fm_error(FmError::Internal(format!(
            "failed to convert new object ({}) {CONVERT_FAILURE}",
            object_gvknn(patch)
        ))));
    }
    Ok(new)
}

/// `versionCheckManager.Apply`.
fn version_check(patch: &Value) -> Result<(), FmError> {
    let text = |k: &str| patch.get(k).and_then(Value::as_str).unwrap_or("");
    let got = gvk_string(text("apiVersion"), text("kind"));
    if got != gvk_string(SCALE_API_VERSION, SCALE_KIND) {
        return Err(FmError::BadRequest(format!("invalid object type: {got}")));
    }
    Ok(())
}

fn without_managed_fields(scale: &Value) -> Value {
    let mut out = scale.clone();
    set_entries(&mut out, &[]);
    out
}

/// The Scale after the request, from the object's `old` Scale.
fn changed(old: &Value, write: &ScaleWrite) -> Result<Value, ApiError> {
    match write {
        ScaleWrite::Update { scale, manager } => Ok(record_update(old, scale.clone(), manager)),
        ScaleWrite::Patch {
            change,
            manager,
            deadline,
        } => {
            let patched = view::decode_patched(&change.apply(old, *deadline)?)?;
            Ok(record_update(old, patched, manager))
        }
        ScaleWrite::Apply {
            patch,
            manager,
            force,
        } => apply(old, patch, manager, *force),
    }
}

/// The Scale before and after the request, as kube's `scaleUpdatedObjectInfo` shows the
/// object's Scale to the request (with the object's managers as the Scale's).
fn requested_scale(
    ctx: &Target,
    paths: &ScalePaths,
    current: &Value,
    write: &ScaleWrite,
) -> Result<(Value, Value), ApiError> {
    let parent_entries = entries_of(current).unwrap_or_default();
    let parent_gv = ctx.api_version();
    let handler = ScaleHandler::new(&parent_entries, &parent_gv, &ctx.resource.replicas_paths);
    let mut old = view::old_scale(current, paths);
    set_entries(&mut old, &handler.to_subresource().map_err(internal)?);
    let scale = changed(&old, write)?;
    Ok((old, scale))
}

fn internal(e: String) -> ApiError {
    ApiError::FieldManager(FmError::Internal(e))
}

/// The object after the (admitted) Scale: its replicas at the spec replicas path, the
/// Scale's managers moved back onto the object's, the resourceVersion precondition.
fn scaled_object(
    ctx: &Target,
    paths: &ScalePaths,
    current: &Value,
    scale: &Value,
) -> Result<Value, ApiError> {
    let replicas = view::spec_replicas(scale);
    if replicas == INVALID_SPEC_REPLICAS {
        return Err(ApiError::BadRequest(format!(
            "the spec replicas field {} cannot be empty",
            crate::gofmt::quote(&paths.spec_replicas)
        )));
    }
    let mut new = current.clone();
    view::set_path(&mut new, &paths.spec_replicas, Value::from(replicas));
    let requested_rv = obj::resource_version(scale);
    if !requested_rv.is_empty() && requested_rv != obj::resource_version(current) {
        return Err(conflict(&ctx.group_resource(), &ctx.name));
    }
    let parent_entries = entries_of(current).unwrap_or_default();
    let parent_gv = ctx.api_version();
    let handler = ScaleHandler::new(&parent_entries, &parent_gv, &ctx.resource.replicas_paths);
    let scale_entries = entries_of(scale).unwrap_or_default();
    set_entries(
        &mut new,
        &handler.to_parent(&scale_entries).map_err(internal)?,
    );
    Ok(new)
}

pub async fn write_scale(
    state: &AppState,
    call: &Call,
    ctx: &Target,
    options: &WriteOptions,
    write: ScaleWrite,
    representation: Representation,
) -> Result<Reply, ApiError> {
    let paths = super::paths(ctx)?;
    // The object's update records its warnings (ratcheted rule failures) as any update.
    let mut warnings = Vec::new();
    // Admission sees Scales (kube's scale REST admits the Scale and validates the Scales
    // of the new and old objects).
    let admitting = Admitting::new(
        state,
        ctx,
        call,
        Operation::Update,
        "scale",
        Options::Update(options),
        options.dry_run,
    )
    .with_kind("autoscaling", "v1", SCALE_KIND);
    let written = scale_update(state, ctx, paths, &write, &admitting, &mut warnings).await;
    // Converted after the write, as kube transforms its result (a bad includeObject is a
    // 400 once the Scale is stored).
    let reply = written.and_then(|w| {
        let scale = view::scale_of(&w.object, paths).0;
        super::render::scale_reply(call, representation, scale)
    });
    Ok(match reply {
        Ok(reply) => reply.with_warnings(warnings),
        Err(e) => Reply::Error(e).with_warnings(warnings),
    })
}

/// The `/scale` write in the one write loop: the requested Scale, admission's mutating
/// phase on it, the object updated and validated, admission's validating phase on the
/// Scales of the new and old objects.
async fn scale_update(
    state: &AppState,
    ctx: &Target,
    paths: &ScalePaths,
    write: &ScaleWrite,
    admitting: &Admitting<'_>,
    warnings: &mut Vec<String>,
) -> Result<Written<()>, ApiError> {
    let (name, dry_run) = (ctx.name.as_str(), admitting.dry_run());
    let mut attempts = Attempts::begin(state, ctx, name, dry_run).await?;
    loop {
        let current = attempts.current();
        let outcome = async {
            let (old_scale, mut scale) = requested_scale(ctx, paths, current, write)?;
            admitting
                .mutate(name, Some(&mut scale), Some(&old_scale), warnings)
                .await?;
            let mut new = scaled_object(ctx, paths, current, &scale)?;
            // The object is then checked as any update of it: metadata, its schema (ratcheted).
            let meta_errors =
                lifecycle::prepare_update(&mut new, current, &write_target(ctx)).err();
            let meta_errors = meta_errors.unwrap_or_default();
            let causes = checks::validate(ctx, &new, Some(current), meta_errors, warnings);
            if !causes.is_empty() {
                return Err(invalid(ctx, name, causes));
            }
            let mut new_scale = view::scale_of(&new, paths).0;
            let old_scale = view::scale_of(current, paths).0;
            admitting
                .validate(name, Some(&mut new_scale), Some(&old_scale), warnings)
                .await?;
            Ok((Next::Put(new), ()))
        }
        .await;
        if let Some(written) = attempts.conclude(outcome).await? {
            return Ok(written);
        }
    }
}
