//! The scale subresource: an `autoscaling/v1` Scale read from and written to the paths the
//! CRD names (specReplicasPath, statusReplicasPath, labelSelectorPath).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::crd::catalog::ScalePaths;
use crate::error::{ApiError, FieldError};
use crate::handlers::change::Change;
use crate::handlers::context::{Target, conflict};
use crate::handlers::guaranteed::{Next, guaranteed_update};
use crate::handlers::managed::{Scope, manager_name, record_update};
use crate::handlers::object::read;
use crate::handlers::write::{invalid, write_target};
use crate::handlers::{AppState, Call, Reply, admit};
use crate::meta::lifecycle;
use crate::meta::object as obj;
use crate::request::body::decode_object;
use crate::request::negotiate::{BodyFormat, Representation, body_format, negotiate, patch_format};
use crate::request::options::WriteOptions;

fn path_parts(path: &str) -> Vec<&str> {
    path.trim_start_matches('.')
        .split('.')
        .filter(|p| !p.is_empty())
        .collect()
}

fn lookup<'a>(object: &'a Value, path: &str) -> Option<&'a Value> {
    path_parts(path)
        .iter()
        .try_fold(object, |cur, part| cur.get(*part))
}

fn set_path(object: &mut Value, path: &str, value: Value) {
    let parts = path_parts(path);
    let mut cur = object;
    for (i, part) in parts.iter().enumerate() {
        let Some(map) = cur.as_object_mut() else {
            return;
        };
        if i + 1 == parts.len() {
            map.insert((*part).to_string(), value);
            return;
        }
        let next = map.entry((*part).to_string()).or_insert_with(|| json!({}));
        if !next.is_object() {
            *next = json!({});
        }
        cur = next;
    }
}

/// The Scale view of a custom object.
pub fn to_scale(object: &Value, paths: &ScalePaths) -> Value {
    let meta = obj::metadata(object);
    let pick = |f: &str| meta.and_then(|m| m.get(f)).cloned().unwrap_or(Value::Null);
    let mut metadata = json!({
        "name": pick("name"), "uid": pick("uid"),
        "resourceVersion": pick("resourceVersion"), "creationTimestamp": pick("creationTimestamp"),
    });
    if !obj::namespace(object).is_empty() {
        metadata["namespace"] = pick("namespace");
    }
    let int_at = |p: &str| lookup(object, p).and_then(Value::as_i64).unwrap_or(0);
    let mut status = json!({"replicas": int_at(&paths.status_replicas)});
    if let Some(selector) = paths
        .label_selector
        .as_deref()
        .and_then(|p| lookup(object, p))
        .and_then(Value::as_str)
    {
        status["selector"] = json!(selector);
    }
    json!({
        "kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": metadata,
        "spec": {"replicas": int_at(&paths.spec_replicas)}, "status": status,
    })
}

fn paths(ctx: &Target) -> Result<&ScalePaths, ApiError> {
    ctx.version().scale.as_ref().ok_or(ApiError::PathNotFound)
}

pub async fn get(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    let representation = negotiate(
        call.header("accept"),
        crate::request::negotiate::Target::Object,
    )?;
    let (_, object) = read(state, ctx, &ctx.name).await?;
    Ok(Reply::ok(
        to_scale(&object, paths(ctx)?),
        json_family(representation),
    ))
}

fn json_family(r: Representation) -> Representation {
    match r {
        Representation::Yaml => Representation::Yaml,
        _ => Representation::Json,
    }
}

pub async fn update(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    let body = decode_object(&call.body, body_format(call.header("content-type"))?)?;
    write_scale(state, call, ctx, |_| Ok(body.clone())).await
}

pub async fn patch(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    let format = patch_format(call.header("content-type"))?;
    if format == BodyFormat::ApplyPatch {
        // Apply through /scale (kube's scale field manager) is not served here.
        return Err(ApiError::UnsupportedMediaType(
            "application/json-patch+json, application/merge-patch+json".into(),
        ));
    }
    let patch = crate::handlers::change::decode_patch(&call.body)?;
    let change = Change::Patch(format, patch);
    write_scale(state, call, ctx, |scale| change.apply(scale)).await
}

fn invalid_scale(name: &str, causes: Vec<FieldError>) -> ApiError {
    ApiError::Invalid {
        group: "autoscaling".into(),
        kind: "Scale".into(),
        name: name.to_string(),
        causes,
    }
}

async fn write_scale(
    state: &AppState,
    call: &Call,
    ctx: &Target,
    change: impl Fn(&Value) -> Result<Value, ApiError>,
) -> Result<Reply, ApiError> {
    let kind = if call.method == http::Method::PATCH {
        "PatchOptions"
    } else {
        "UpdateOptions"
    };
    let options = WriteOptions::from_query(&call.query, kind)?;
    let paths = paths(ctx)?;
    let name = ctx.name.as_str();
    // The object's update records its warnings (ratcheted rule failures) as any update.
    let mut warnings = Vec::new();
    let manager = manager_name(call, &options);
    let written = guaranteed_update(state, ctx, name, options.dry_run, |current| {
        let scale = change(&to_scale(current, paths))?;
        let requested_rv = obj::resource_version(&scale);
        if !requested_rv.is_empty() && requested_rv != obj::resource_version(current) {
            return Err(conflict(&ctx.group_resource(), name));
        }
        let replicas = scale.pointer("/spec/replicas").cloned().unwrap_or(json!(0));
        match replicas.as_i64() {
            Some(r) if r >= 0 && r <= i64::from(i32::MAX) => {}
            _ => {
                let cause = FieldError::invalid(
                    "spec.replicas",
                    &replicas,
                    "must be greater than or equal to 0",
                );
                return Err(invalid_scale(name, vec![cause]));
            }
        }
        let mut new = current.clone();
        set_path(&mut new, &paths.spec_replicas, replicas);
        record_update(ctx, Scope::Scale, Some(current), &mut new, &manager);
        // The object is then checked as any update of it: metadata, its schema (ratcheted).
        let meta_errors = lifecycle::prepare_update(&mut new, current, &write_target(ctx)).err();
        let meta_errors = meta_errors.unwrap_or_default();
        let causes = admit::validate(ctx, &new, Some(current), meta_errors, &mut warnings);
        if !causes.is_empty() {
            return Err(invalid(ctx, name, causes));
        }
        Ok((Next::Put(new), ()))
    })
    .await;
    let reply = written.map(|w| Reply::ok(to_scale(&w.object, paths), Representation::Json));
    Ok(match reply {
        Ok(reply) => reply.with_warnings(warnings),
        Err(e) => Reply::Error(e).with_warnings(warnings),
    })
}
