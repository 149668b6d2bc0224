//! create of one object: a `POST`, and the end of an apply that finds no object (kube's
//! create handler and the store's create, with its retries under generated names).

use std::sync::Arc;

use http::StatusCode;
use serde_json::Value;

use crate::admission::{Operation, Options};
use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::handlers::object::render_object;
use crate::handlers::strategy::admit::Admitting;
use crate::handlers::strategy::guaranteed;
use crate::handlers::strategy::managed::{Scope, manager_name, record_update};
use crate::handlers::traced;
use crate::handlers::write::{
    accept, check_namespace, check_version_kind, invalid, with_warnings, write_target,
};
use crate::handlers::{AppState, Call, Reply, strategy::checks};
use crate::meta::lifecycle;
use crate::meta::object as obj;
use crate::request::body::decode_resource;
use crate::request::negotiate::body_format;
use crate::request::options::WriteOptions;

pub async fn create(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    accept(call)?;
    let mut warnings = Vec::new();
    let result = create_object(state, call, ctx, &mut warnings).await;
    Ok(with_warnings(result, warnings))
}

async fn create_object(
    state: &Arc<AppState>,
    call: &Call,
    ctx: &Target,
    warnings: &mut Vec<String>,
) -> Result<Reply, ApiError> {
    traced::body_read(call);
    let options = WriteOptions::from_query(&call.query, "CreateOptions")?;
    let format = body_format(call.header("content-type"))?;
    let report = options.field_validation.reports();
    traced::event("About to convert to expected version");
    let decoded = decode_resource(&call.body, format, &ctx.resource.kind, report)?;
    traced::event("Conversion done");
    let (mut object, duplicates) = (decoded.object, decoded.duplicates);
    let directive = options.field_validation;
    *warnings = checks::coerce_other_version(ctx, &object, duplicates.clone(), directive)?;
    check_version_kind(ctx, &object)?;
    let sent_namespace = crate::handlers::write::has_namespace(&object);
    check_namespace(ctx, &mut object)?;
    *warnings = checks::coerce_body(ctx, &mut object, duplicates, directive)?;
    crate::handlers::write::log_decoded(call, &mut object, sent_namespace);
    let manager = manager_name(call, &options);
    record_update(ctx, Scope::Main, None, &mut object, &manager).await;
    let dry_run = options.dry_run;
    let admitting = Admitting::new(
        state,
        ctx,
        call,
        Operation::Create,
        "",
        Options::Create(&options),
        dry_run,
    );
    let authorized = Authorized::ByChain;
    traced::event("About to store object in database");
    let created = create_admitted(
        state, ctx, object, dry_run, &admitting, warnings, authorized,
    )
    .await;
    traced::written(call, &created);
    let created = created?;
    traced::event("About to write a response");
    render_object(call, ctx, StatusCode::CREATED, created)
}

/// Whether the verb the filter chain authorized covers creating the object.
pub enum Authorized<'a> {
    /// A `POST`: the chain authorized `create`.
    ByChain,
    /// A write of another verb that creates (server-side apply to a missing name): kube's
    /// patch handler authorizes `create` too, after the object is validated.
    OnCreate(&'a Call),
}

/// kube's `maxNameGenerationCreateAttempts` (RetryGenerateName, 1.32+).
const MAX_NAME_GENERATION_CREATE_ATTEMPTS: usize = 8;

/// The end of every create (a POST, or an apply to a missing object); the object as
/// stored. An object named by `generateName` is created again under a newly generated
/// name when the name is taken, up to kube's 8 attempts, before answering 409.
pub async fn create_admitted(
    state: &AppState,
    ctx: &Target,
    mut object: Value,
    dry_run: bool,
    admitting: &Admitting<'_>,
    warnings: &mut Vec<String>,
    authorized: Authorized<'_>,
) -> Result<Value, ApiError> {
    // Admission's mutating phase, once: kube's handler admits before the store's create
    // (and its retries under generated names), naming the object as the request does.
    let name = obj::name(&object).to_string();
    admitting
        .mutate(&name, Some(&mut object), None, warnings)
        .await?;
    let generated =
        obj::name(&object).is_empty() && !obj::meta_str(&object, "generateName").is_empty();
    // The last attempt's warnings: every attempt validates the same object.
    let (result, found) = match generated {
        false => create_once(state, ctx, object, dry_run, admitting, &authorized).await,
        true => {
            let attempt =
                || create_once(state, ctx, object.clone(), dry_run, admitting, &authorized);
            with_generated_names(attempt).await
        }
    };
    warnings.extend(found);
    result
}

/// kube's `createWithGenerateNameRetry`: `attempt` (which generates a new name each
/// time) again while the name it generated is taken, at most 8 times in all; the last
/// attempt's outcome and what it found along the way.
async fn with_generated_names<T, W, Fut>(
    mut attempt: impl FnMut() -> Fut,
) -> (Result<T, ApiError>, W)
where
    Fut: std::future::Future<Output = (Result<T, ApiError>, W)>,
{
    let mut tried = 1;
    loop {
        match attempt().await {
            (Err(ApiError::AlreadyExists { .. }), _)
                if tried < MAX_NAME_GENERATION_CREATE_ATTEMPTS =>
            {
                tried += 1
            }
            other => return other,
        }
    }
}

/// One create: create's metadata rules and validation, the `create` authorization a
/// creating apply still needs, then the store's create; the object as stored.
async fn create_once(
    state: &AppState,
    ctx: &Target,
    mut object: Value,
    dry_run: bool,
    admitting: &Admitting<'_>,
    authorized: &Authorized<'_>,
) -> (Result<Value, ApiError>, Vec<String>) {
    let mut warnings = Vec::new();
    let meta_errors = lifecycle::prepare_create(&mut object, &write_target(ctx)).err();
    let meta_errors = meta_errors.unwrap_or_default();
    let causes = checks::validate(ctx, &object, None, meta_errors, &mut warnings);
    if !causes.is_empty() {
        return (Err(invalid(ctx, obj::name(&object), causes)), warnings);
    }
    if let Authorized::OnCreate(call) = authorized {
        let mut info = call.info.clone();
        info.verb = crate::request::info::Verb::Create;
        if let Err(e) = state.authorizer.authorize(&call.user, &info).await {
            return (Err(e), warnings);
        }
    }
    // Admission's validating phase, on each attempt's object (named as generated), as
    // kube's store runs it.
    let name = obj::name(&object).to_string();
    let validated = admitting.validate(&name, Some(&mut object), None, &mut warnings);
    if let Err(e) = validated.await {
        return (Err(e), warnings);
    }
    let result = guaranteed::create(state, ctx, &name, object, dry_run).await;
    (result, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::GroupResource;

    fn taken() -> ApiError {
        ApiError::AlreadyExists {
            resource: GroupResource {
                group: "stable.example.com".into(),
                resource: "crontabs".into(),
            },
            name: "web-abcde".into(),
        }
    }

    /// Runs the retry over attempts that find the name taken `taken_times` times, then
    /// succeed; returns the outcome and the number of attempts made.
    fn run(taken_times: usize) -> (Result<usize, ApiError>, usize) {
        let mut made = 0;
        let attempt = || {
            made += 1;
            let outcome = match made <= taken_times {
                true => Err(taken()),
                false => Ok(made),
            };
            std::future::ready((outcome, ()))
        };
        let (outcome, ()) = futures::executor::block_on(with_generated_names(attempt));
        (outcome, made)
    }

    #[test]
    fn with_generated_names_taken_names_retried_up_to_eight_attempts() {
        for taken_times in 0..8 {
            let (outcome, made) = run(taken_times);
            assert_eq!(
                outcome.ok(),
                Some(taken_times + 1),
                "taken {taken_times} times"
            );
            assert_eq!(made, taken_times + 1);
        }
        let (outcome, made) = run(100);
        assert!(
            matches!(outcome, Err(ApiError::AlreadyExists { .. })),
            "{outcome:?}"
        );
        assert_eq!(made, 8, "kube's maxNameGenerationCreateAttempts");
    }

    #[test]
    fn with_generated_names_other_errors_not_retried() {
        let mut made = 0;
        let attempt = || {
            made += 1;
            std::future::ready((Err::<(), _>(ApiError::BadRequest("no".into())), ()))
        };
        let (outcome, ()) = futures::executor::block_on(with_generated_names(attempt));
        assert!(matches!(outcome, Err(ApiError::BadRequest(_))));
        assert_eq!(made, 1);
    }
}
