//! Server-side apply: `PATCH` with `application/apply-patch+yaml`, merged into the live
//! object by the field manager, admitted as any write, and created when missing.

use std::sync::Arc;

use http::StatusCode;
use serde_json::Value;

use crate::admission::{Operation, Options};
use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::handlers::create::{Authorized, create_admitted};
use crate::handlers::object::render_object;
use crate::handlers::strategy::admit::Admitting;
use crate::handlers::strategy::guaranteed::{Attempts, Next, Written};
use crate::handlers::strategy::managed::{Scope, with_field_manager};
use crate::handlers::write::{
    check_name, check_namespace, check_type_meta, invalid, prepare_status_update, write_target,
};
use crate::handlers::{AppState, Call, Reply, strategy::checks};
use crate::meta::lifecycle;
use crate::meta::object as obj;
use crate::request::body::decode_yaml_value;
use crate::request::info::Subresource;
use crate::request::options::{FieldValidation, WriteOptions};

/// One apply request: its patch, manager and `force`.
pub struct Apply<'a> {
    pub patch: Value,
    pub options: &'a WriteOptions,
    pub force: bool,
    pub scope: Scope,
    /// The patch's duplicate keys (go-yaml's strict decoding), when fieldValidation wants them.
    pub duplicates: Vec<String>,
}

/// kube's `yaml.Unmarshal` of the patch into a map: an empty or `null` document is an
/// empty object; any other non-object is Go's unmarshal error.
pub(crate) fn decode_patch(body: &[u8]) -> Result<Value, ApiError> {
    decode_patch_reporting(body, false).map(|(patch, _)| patch)
}

/// [`decode_patch`], with the patch's duplicate keys in go-yaml's words when `report`
/// is set (found by the decode itself when the patch is compact JSON, as kubectl's is).
fn decode_patch_reporting(body: &[u8], report: bool) -> Result<(Value, Vec<String>), ApiError> {
    let not_a_map = |what: &str| {
        ApiError::BadRequest(format!(
            "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {what} into Go value of type map[string]interface {{}}"
        ))
    };
    let (patch, duplicates) = decode_yaml_value(body, report)?;
    match patch {
        Value::Null => Ok((Value::Object(Default::default()), duplicates)),
        object @ Value::Object(_) => Ok((object, duplicates)),
        Value::Array(_) => Err(not_a_map("array")),
        Value::Number(_) => Err(not_a_map("number")),
        Value::String(_) => Err(not_a_map("string")),
        Value::Bool(_) => Err(not_a_map("bool")),
    }
}

pub async fn apply(
    state: &Arc<AppState>,
    call: &Call,
    ctx: &Target,
    options: &WriteOptions,
    force: bool,
) -> Result<Reply, ApiError> {
    let (patch, duplicates) =
        decode_patch_reporting(&call.body, options.field_validation.reports())?;
    call.audit.log_request_patch(&call.body);
    let scope = match call.info.subresource {
        Subresource::Status => Scope::Status,
        _ => Scope::Main,
    };
    let request = Apply {
        patch,
        options,
        force,
        scope,
        duplicates,
    };
    let mut warnings = Vec::new();
    let result = apply_or_create(state, call, ctx, &request, &mut warnings).await;
    Ok(match result {
        Ok(reply) => reply.with_warnings(warnings),
        Err(e) => Reply::Error(e).with_warnings(warnings),
    })
}

/// How often an apply that finds no object and then loses the create to another writer
/// is applied again to the object that won; kube's storage loops without bound.
const MAX_CREATE_RACES: usize = 16;

/// The apply as an update of the stored object; applying to a missing object creates it
/// (kube's forceAllowCreate), and a create that finds the name taken, because another
/// writer created it meanwhile, is applied again as an update of that object, as kube's
/// GuaranteedUpdate retries its create-if-missing.
async fn apply_or_create(
    state: &AppState,
    call: &Call,
    ctx: &Target,
    request: &Apply<'_>,
    warnings: &mut Vec<String>,
) -> Result<Reply, ApiError> {
    let dry_run = request.options.dry_run;
    let subresource = call.info.subresource.as_str();
    let options = Options::Update(request.options);
    let admitting = Admitting::new(
        state,
        ctx,
        call,
        Operation::Update,
        subresource,
        options,
        dry_run,
    );
    let mut races = 0;
    loop {
        let written = applied_update(state, ctx, request, &admitting, warnings).await;
        match written {
            Ok(w) => return render_object(call, ctx, StatusCode::OK, w.object),
            Err(ApiError::NotFound { .. }) if request.scope == Scope::Main => {}
            Err(e) => return Err(e),
        }
        // kube's patchToCreateOptions: an apply that creates is admitted as a create.
        let creating = admitting.as_operation(Operation::Create, Options::Create(request.options));
        match create(state, call, ctx, request, &creating, warnings).await {
            Err(ApiError::AlreadyExists { .. }) if races < MAX_CREATE_RACES => races += 1,
            other => return other,
        }
    }
}

/// The apply as an update of the stored object, in the one write loop: the merge, admission's
/// mutating phase, the update rules and validation, admission's validating phase.
async fn applied_update(
    state: &AppState,
    ctx: &Target,
    request: &Apply<'_>,
    admitting: &Admitting<'_>,
    warnings: &mut Vec<String>,
) -> Result<Written<()>, ApiError> {
    let (name, dry_run) = (ctx.name.as_str(), request.options.dry_run);
    let mut attempts = Attempts::begin(state, ctx, name, dry_run).await?;
    loop {
        let current = attempts.current();
        let outcome = async {
            let mut new = merged(ctx, request, Some(current), warnings).await?;
            admitting
                .mutate(name, Some(&mut new), Some(current), warnings)
                .await?;
            let mut new = applied(ctx, request, new, current, warnings)?;
            admitting
                .validate(name, Some(&mut new), Some(current), warnings)
                .await?;
            Ok((Next::Put(new), ()))
        }
        .await;
        if let Some(written) = attempts.conclude(outcome).await? {
            return Ok(written);
        }
    }
}

/// The merged object, decoded (pruned, defaulted) and checked as a patched one.
async fn merged(
    ctx: &Target,
    request: &Apply<'_>,
    live: Option<&Value>,
    warnings: &mut Vec<String>,
) -> Result<Value, ApiError> {
    let now = jiff::Timestamp::now();
    let (patch, manager) = (&request.patch, &request.options.field_manager);
    let seeds = || live.cloned().into_iter().collect();
    let mut new = with_field_manager(ctx, request.scope, seeds, |fm| {
        fm.apply(live, patch, manager, request.force, now)
    })
    .await
    .map_err(ApiError::FieldManager)?;
    // After the merge, as kube's applyPatcher checks: conflicts are answered first.
    if let Some(found) = request.duplicates.first() {
        match request.options.field_validation {
            FieldValidation::Strict => {
                return Err(ApiError::BadRequest(format!(
                    "error strict decoding YAML: error converting YAML to JSON: {found}"
                )));
            }
            _ => warnings.extend(checks::strict_warnings(request.duplicates.clone())),
        }
    }
    if live.is_none() {
        check_no_uid(ctx, &new)?;
    }
    check_type_meta(ctx, &new)?;
    check_name(ctx, &new)?;
    check_namespace(ctx, &mut new)?;
    checks::default_applied(ctx, &mut new);
    Ok(new)
}

/// An apply that would create, but names a uid, meant an object that is gone: kube's
/// patcher answers 409 before it looks at name or namespace, rather than create another
/// (the StorageVersionMigration controller relies on it).
fn check_no_uid(ctx: &Target, new: &Value) -> Result<(), ApiError> {
    let uid = obj::uid(new);
    if uid.is_empty() {
        return Ok(());
    }
    Err(ApiError::Conflict {
        resource: ctx.group_resource(),
        name: ctx.name.clone(),
        message: format!(
            "uid mismatch: the provided object specified uid {uid}, and no existing object was found"
        ),
    })
}

/// An admitted apply over the stored object: the resourceVersion precondition, then the
/// update (or `/status` update) rules and validation.
fn applied(
    ctx: &Target,
    request: &Apply<'_>,
    mut new: Value,
    current: &Value,
    warnings: &mut Vec<String>,
) -> Result<Value, ApiError> {
    let name = ctx.name.as_str();
    let requested_rv = obj::resource_version(&new);
    if !requested_rv.is_empty() && requested_rv != obj::resource_version(current) {
        return Err(crate::handlers::context::conflict(
            &ctx.group_resource(),
            name,
        ));
    }
    let causes = match request.scope {
        Scope::Status => {
            new = prepare_status_update(&new, current);
            checks::validate_status(ctx, &new, current, warnings)
        }
        _ => {
            let meta_errors =
                lifecycle::prepare_update(&mut new, current, &write_target(ctx)).err();
            checks::validate(
                ctx,
                &new,
                Some(current),
                meta_errors.unwrap_or_default(),
                warnings,
            )
        }
    };
    if !causes.is_empty() {
        return Err(invalid(ctx, name, causes));
    }
    Ok(new)
}

/// Apply to a missing object: the merge over an empty object, then create's rules.
async fn create(
    state: &AppState,
    call: &Call,
    ctx: &Target,
    request: &Apply<'_>,
    admitting: &Admitting<'_>,
    warnings: &mut Vec<String>,
) -> Result<Reply, ApiError> {
    let mut object = merged(ctx, request, None, warnings).await?;
    // The store ignores a resourceVersion on objects an update creates.
    obj::set_meta(&mut object, "resourceVersion", None);
    let dry_run = request.options.dry_run;
    let authorized = Authorized::OnCreate(call);
    let object =
        create_admitted(state, ctx, object, dry_run, admitting, warnings, authorized).await?;
    render_object(call, ctx, StatusCode::CREATED, object)
}
