//! update and patch of one object and of its `/status`, and the checks every write of
//! a body shares (type meta, name and namespace against the URL).

use std::sync::Arc;

use http::StatusCode;
use serde_json::{Value, json};

use crate::admission::{Operation, Options};
use crate::error::{ApiError, ErrorType, FieldError};
use crate::handlers::context::{Target, conflict};
use crate::handlers::object::render_object;
use crate::handlers::strategy::admit::Admitting;
use crate::handlers::strategy::change::{Change, check_patched, decode_patch};
use crate::handlers::strategy::guaranteed::{Attempts, Next};
use crate::handlers::strategy::managed::{Scope, manager_name, record_update};
use crate::handlers::traced;
use crate::handlers::{AppState, Call, Reply, strategy::checks};
use crate::meta::lifecycle::{self, WriteTarget};
use crate::meta::object as obj;
use crate::request::body::decode_resource;
use crate::request::gojson::patchops;
use crate::request::info::Subresource;
use crate::request::negotiate::{BodyFormat, Representation, Target as Negotiation};
use crate::request::negotiate::{body_format, negotiate, patch_format};
use crate::request::options::WriteOptions;

/// The facts about the target that ObjectMeta rules need.
pub fn write_target(ctx: &Target) -> WriteTarget<'_> {
    WriteTarget {
        namespace: ctx.namespace.as_deref(),
        status_subresource: ctx.version().status_subresource,
    }
}

/// A 422 naming this resource's kind.
pub fn invalid(ctx: &Target, name: &str, causes: Vec<FieldError>) -> ApiError {
    ApiError::Invalid {
        group: ctx.resource.group.clone(),
        kind: ctx.resource.kind.clone(),
        name: name.to_string(),
        causes,
    }
}

/// apiVersion and kind in the body against the URL, as kube's decoder and validator check them.
pub fn check_type_meta(ctx: &Target, object: &Value) -> Result<(), ApiError> {
    crate::meta::names::check_metadata_types(object)
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if kind.is_empty() {
        return Err(ApiError::BadRequest(format!(
            "the object provided is unrecognized (must be of type {}): Object 'Kind' is missing in '{object}'",
            ctx.resource.kind
        )));
    }
    check_version_kind(ctx, object)
}

/// A decoded body's apiVersion (400) and kind (422) against the URL's.
pub fn check_version_kind(ctx: &Target, object: &Value) -> Result<(), ApiError> {
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if api_version != ctx.api_version() {
        return Err(ApiError::BadRequest(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({})",
            ctx.api_version()
        )));
    }
    if kind != ctx.resource.kind {
        // kube's validator names the body's kind in the message.
        let detail = format!("must be {}", ctx.resource.kind);
        return Err(ApiError::Invalid {
            group: ctx.resource.group.clone(),
            kind: kind.to_string(),
            name: obj::name(object).to_string(),
            causes: vec![FieldError::invalid("kind", &json!(kind), &detail)],
        });
    }
    Ok(())
}

/// The name in the body must be the URL's (kube's `checkName`; a body without one is
/// the namer's `name must be provided`).
pub fn check_name(ctx: &Target, object: &Value) -> Result<(), ApiError> {
    let body_name = obj::name(object);
    if body_name.is_empty() {
        return Err(ApiError::BadRequest(format!(
            "the name of the object ({} based on URL) was undeterminable: name must be provided",
            ctx.name
        )));
    }
    if body_name != ctx.name {
        return Err(ApiError::BadRequest(format!(
            "the name of the object ({body_name}) does not match the name on the URL ({})",
            ctx.name
        )));
    }
    Ok(())
}

/// kube's `EnsureObjectNamespaceMatchesRequestNamespace`: the body's namespace must be
/// empty or the URL's; an empty one is set to the URL's (before admission sees the
/// object), and a cluster-scoped object's is cleared.
pub fn check_namespace(ctx: &Target, object: &mut Value) -> Result<(), ApiError> {
    let ns = obj::namespace(object);
    let expected = ctx.namespace.as_deref().unwrap_or_default();
    match (ns, expected) {
        (ns, expected) if ns == expected => Ok(()),
        ("", _) | (_, "") => {
            let set = (!expected.is_empty()).then(|| Value::String(expected.to_string()));
            obj::set_meta(object, "namespace", set);
            Ok(())
        }
        _ => Err(ApiError::BadRequest(
            "the namespace of the provided object does not match the namespace sent on the request"
                .into(),
        )),
    }
}

/// Whether a request object names its namespace.
pub fn has_namespace(object: &Value) -> bool {
    object
        .get("metadata")
        .is_some_and(|m| m.get("namespace").is_some())
}

/// The decoded request object into the audit event (kube's `LogRequestObject`), as kube
/// decoded it: without the namespace [`check_namespace`] filled in from the path (kube's
/// store sets it later).
pub fn log_decoded(call: &Call, object: &mut Value, sent_namespace: bool) {
    if !call.audit.enabled() {
        return;
    }
    let filled = match sent_namespace {
        true => None,
        false => object
            .get_mut("metadata")
            .and_then(Value::as_object_mut)
            .and_then(|m| m.remove("namespace")),
    };
    call.audit.log_request_object(object);
    if let Some(namespace) = filled {
        obj::set_meta(object, "namespace", Some(namespace));
    }
}

/// kube records warnings as they arise and sends them with the reply, even a failure.
pub fn with_warnings(result: Result<Reply, ApiError>, warnings: Vec<String>) -> Reply {
    match result {
        Ok(reply) => reply.with_warnings(warnings),
        Err(e) => Reply::Error(e).with_warnings(warnings),
    }
}

/// The answer's representation, negotiated before anything is written: kube answers an
/// Accept it cannot serve with 406 and stores nothing (`NegotiateOutputMediaType` first).
pub fn accept(call: &Call) -> Result<Representation, ApiError> {
    negotiate(call.header("accept"), Negotiation::Object)
}

pub async fn update(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    accept(call)?;
    traced::body_read(call);
    let options = WriteOptions::from_query(&call.query, "UpdateOptions")?;
    let format = body_format(call.header("content-type"))?;
    let report = options.field_validation.reports();
    traced::event("About to convert to expected version");
    let decoded = decode_resource(&call.body, format, &ctx.resource.kind, report)?;
    traced::event("Conversion done");
    let (mut body, duplicates) = (decoded.object, decoded.duplicates);
    let directive = options.field_validation;
    let warnings = checks::coerce_other_version(ctx, &body, duplicates.clone(), directive)?;
    if let Err(e) = check_version_kind(ctx, &body) {
        return Ok(with_warnings(Err(e), warnings));
    }
    check_name(ctx, &body)?;
    let sent_namespace = has_namespace(&body);
    check_namespace(ctx, &mut body)?;
    let mut warnings = checks::coerce_body(ctx, &mut body, duplicates, directive)?;
    log_decoded(call, &mut body, sent_namespace);
    let change = Change::Replace(body);
    traced::event("About to store object in database");
    let result = apply_change(
        state,
        call,
        ctx,
        &options,
        change,
        Vec::new(),
        &mut warnings,
    )
    .await;
    traced::written(call, &result);
    let reply = result.and_then(|object| {
        traced::event("About to write a response");
        render_object(call, ctx, StatusCode::OK, object)
    });
    Ok(with_warnings(reply, warnings))
}

pub async fn patch(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    // kube checks the patch type first, then the Accept header.
    let format = patch_format(call.header("content-type"))?;
    accept(call)?;
    let apply = format == BodyFormat::ApplyPatch;
    let (options, force) = WriteOptions::for_patch(&call.query, apply)?;
    if apply {
        return crate::handlers::apply::apply(state, call, ctx, &options, force).await;
    }
    let (patch, duplicates) = decode_patch(&call.body, format, options.field_validation)?;
    call.audit.log_request_patch(&call.body);
    let problems = patch_problems(format, &patch, duplicates, &options);
    let change = Change::Patch(format, patch);
    let mut warnings = Vec::new();
    let result = apply_change(state, call, ctx, &options, change, problems, &mut warnings).await;
    let reply = result.and_then(|object| render_object(call, ctx, StatusCode::OK, object));
    Ok(with_warnings(reply, warnings))
}

/// Strict-decoding findings of a patch body, as kube words them for its patch type:
/// duplicate fields, and members of a JSON patch's operations that kube's operation type
/// does not have.
fn patch_problems(
    format: BodyFormat,
    patch: &Value,
    duplicates: Vec<String>,
    options: &WriteOptions,
) -> Vec<String> {
    let mut found = duplicates;
    match format {
        BodyFormat::JsonPatch => {
            if options.field_validation.reports() {
                found.extend(patchops::unknown_members(patch));
            }
            found
                .into_iter()
                .map(|d| format!("json patch {d}"))
                .collect()
        }
        _ => found,
    }
}

/// Derives the new object from the current one in the one write loop, as kube's store
/// runs an update: the changed object (the patch or replacement, with the request's
/// manager recorded), admission's mutating phase, the resourceVersion precondition, the
/// update rules and validation, then admission's validating phase. The last finalizer
/// removed from a deleted object deletes it. The patch's field warnings, the rules'
/// ratcheting warnings and admission's are added to `warnings`, also when the write fails.
async fn apply_change(
    state: &AppState,
    call: &Call,
    ctx: &Target,
    options: &WriteOptions,
    change: Change,
    patch_problems: Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<Value, ApiError> {
    let subresource = call.info.subresource.as_str();
    let admitting = Admitting::new(
        state,
        ctx,
        call,
        Operation::Update,
        subresource,
        Options::Update(options),
        options.dry_run,
    );
    let name = ctx.name.as_str();
    let mut attempts = Attempts::begin(state, ctx, name, options.dry_run).await?;
    // Each attempt's warnings are kept (as kube's recorder keeps them across retries).
    loop {
        let attempt = Attempt {
            call,
            ctx,
            options,
            change: &change,
            patch_problems: &patch_problems,
        };
        let outcome = attempt
            .run(state, &admitting, attempts.current(), warnings)
            .await;
        if let Some(written) = attempts.conclude(outcome).await? {
            return Ok(written.object);
        }
    }
}

/// One attempt of an update or patch on the current object.
struct Attempt<'a> {
    call: &'a Call,
    ctx: &'a Target,
    options: &'a WriteOptions,
    change: &'a Change,
    patch_problems: &'a [String],
}

impl Attempt<'_> {
    async fn run(
        &self,
        state: &AppState,
        admitting: &Admitting<'_>,
        current: &Value,
        warnings: &mut Vec<String>,
    ) -> Result<(Next, ()), ApiError> {
        let (call, ctx, change) = (self.call, self.ctx, self.change);
        let name = ctx.name.as_str();
        // A PUT body's uid is the storage precondition, checked before anything else.
        if let Change::Replace(body) = change
            && let Some(detail) = lifecycle::uid_precondition_failure(body, current)
        {
            return Err(ctx.precondition_failed(state, name, &detail));
        }
        let problems = self.patch_problems.to_vec();
        let mut new =
            changed_object(call, ctx, self.options, change, current, problems, warnings).await?;
        admitting
            .mutate(name, Some(&mut new), Some(current), warnings)
            .await?;
        let mut new = checked_update(call, ctx, change, new, current, warnings)?;
        admitting
            .validate(name, Some(&mut new), Some(current), warnings)
            .await?;
        let next = if obj::is_being_deleted(&new) && obj::finalizers(&new).is_empty() {
            Next::Delete(new)
        } else {
            Next::Put(new)
        };
        Ok((next, ()))
    }
}

/// The object an update or patch asks for: the replacement, or the patch applied to
/// `current` and decoded as kube decodes a patched document (type meta and name checked,
/// pruned and defaulted), with the request's manager recorded in managedFields.
async fn changed_object(
    call: &Call,
    ctx: &Target,
    options: &WriteOptions,
    change: &Change,
    current: &Value,
    patch_problems: Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<Value, ApiError> {
    let mut new = change.apply(current, call.deadline)?;
    let status = call.info.subresource == Subresource::Status;
    if matches!(change, Change::Patch(..)) {
        check_patched(ctx, &new, current, status, warnings)?;
        check_name(ctx, &new)?;
        check_namespace(ctx, &mut new)?;
        let found =
            checks::coerce_patched(&mut new, ctx, patch_problems, options.field_validation)?;
        warnings.extend(found);
    }
    let manager = manager_name(call, options);
    let scope = if status { Scope::Status } else { Scope::Main };
    record_update(ctx, scope, Some(current), &mut new, &manager).await;
    Ok(new)
}

/// kube's status strategy: the stored object with `.status` from `new`, keeping the
/// managedFields this write recorded.
pub fn prepare_status_update(new: &Value, current: &Value) -> Value {
    let managed = obj::metadata(new)
        .and_then(|m| m.get("managedFields"))
        .cloned();
    let mut prepared = lifecycle::prepare_status_update(new, current);
    obj::set_meta(&mut prepared, "managedFields", managed);
    prepared
}

/// The admitted object checked as kube's store checks an update: the resourceVersion
/// precondition, then the metadata rules and schema validation ratcheted against
/// `current` (the `/status` rules for a status write).
fn checked_update(
    call: &Call,
    ctx: &Target,
    change: &Change,
    mut new: Value,
    current: &Value,
    warnings: &mut Vec<String>,
) -> Result<Value, ApiError> {
    let name = ctx.name.as_str();
    let requested_rv = obj::resource_version(&new);
    if requested_rv.is_empty() && matches!(change, Change::Replace(_)) {
        // Custom resources do not allow unconditional updates; kube's store names the
        // resource (not the kind) in this message.
        let cause = FieldError {
            reason: ErrorType::Invalid,
            field: "metadata.resourceVersion".into(),
            detail: "Invalid value: 0: must be specified for an update".into(),
        };
        return Err(ApiError::Invalid {
            group: ctx.resource.group.clone(),
            kind: ctx.resource.plural.clone(),
            name: name.to_string(),
            causes: vec![cause],
        });
    }
    if !requested_rv.is_empty() && requested_rv != obj::resource_version(current) {
        return Err(conflict(&ctx.group_resource(), name));
    }
    let causes = if call.info.subresource == Subresource::Status {
        new = prepare_status_update(&new, current);
        checks::validate_status(ctx, &new, current, warnings)
    } else {
        let meta_errors = lifecycle::prepare_update(&mut new, current, &write_target(ctx)).err();
        let meta_errors = meta_errors.unwrap_or_default();
        checks::validate(ctx, &new, Some(current), meta_errors, warnings)
    };
    if !causes.is_empty() {
        return Err(invalid(ctx, name, causes));
    }
    Ok(new)
}
