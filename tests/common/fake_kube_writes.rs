//! The fake kube-apiserver's writes on the collections of `fake_kube_collections.rs`, in
//! the real wire format: `POST` a collection (create), `PUT`, `PATCH` (merge, JSON and apply
//! patches; `fieldManager`, `force`) and `DELETE` (preconditions in the DeleteOptions body)
//! an object or its `/status`; `dryRun=All` answers without storing. The fence emulation
//! (`fake_kube_fence.rs`) runs first; `fake_kube_write_core.rs` decides, the collection
//! commits (one resourceVersion counter, a watch event).

use axum::body::Body;
use bytes::Bytes;
use http::{Method, Response, StatusCode};
use serde_json::{Value, json};

use super::Shared;
use super::collections::{Collection, VALIDATING_POLICIES, VALIDATING_POLICY_BINDINGS};
use super::errors::{self, Cause, Failure};
use super::fence::{self, Attributes};
use super::fields::Writer;
use super::queries::{Params, Target, target};
use super::wire::reply;
use super::write_core::{self, Decision, Op, Patch, Preconditions, Write};

/// A request as the writes need it.
pub(super) struct Call<'a> {
    pub method: &'a Method,
    pub path: &'a str,
    pub query: &'a str,
    pub content_type: &'a str,
    pub user_agent: &'a str,
    pub body: &'a Bytes,
    pub username: &'a str,
}

/// The write a request names, or `None` when it names none served here.
pub(super) fn serve(shared: &Shared, call: &Call) -> Option<Response<Body>> {
    let (collection, namespace, name, status) = match target(&shared.collections, call.path)? {
        Target::Collection(c, ns) if *call.method == Method::POST => (c, ns, None, false),
        Target::Object(c, ns, n) if *call.method != Method::POST => (c, ns, Some(n), false),
        Target::Status(c, ns, n) if matches!(*call.method, Method::PUT | Method::PATCH) => {
            (c, ns, Some(n), true)
        }
        _ => return None,
    };
    if collection.resource.namespaced && namespace.is_none() {
        return None;
    }
    let params = Params::parse(call.query);
    let answer = write(
        shared,
        call,
        &params,
        &collection,
        namespace.as_deref(),
        name,
        status,
    );
    Some(answer.unwrap_or_else(|f| f.response()))
}

fn now() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

fn parse_json(body: &Bytes) -> Result<Value, Failure> {
    match body.is_empty() {
        true => Ok(json!({})),
        false => serde_json::from_slice(body).map_err(|e| errors::bad_request(&e.to_string())),
    }
}

/// The operation of the request, from its method, content type and body.
fn operation(call: &Call, params: &Params) -> Result<Op, Failure> {
    let apply = call.content_type.starts_with("application/apply-patch");
    let force = params.get("force").is_some_and(|f| f == "true");
    if *call.method == Method::PATCH {
        let manager = params.get("fieldManager").unwrap_or_default();
        let (field, body) = match (apply, manager.is_empty(), force) {
            (true, true, _) => (
                "fieldManager",
                "Required value: is required for apply patch",
            ),
            (false, _, true) => (
                "force",
                "Forbidden: may not be specified for non-apply patch",
            ),
            _ => ("", ""),
        };
        if !field.is_empty() {
            let kind = if field == "force" {
                "FieldValueForbidden"
            } else {
                "FieldValueRequired"
            };
            let cause = Cause {
                kind,
                field,
                body: body.into(),
            };
            return Err(errors::invalid("PatchOptions", "meta.k8s.io", "", &[cause]));
        }
    }
    let patch = |p: Patch| Ok(Op::Patch(p));
    match (
        call.method.clone(),
        call.content_type.split(';').next().unwrap_or_default(),
    ) {
        (Method::POST, _) => Ok(Op::Create(parse_json(call.body)?)),
        (Method::PUT, _) => Ok(Op::Update(parse_json(call.body)?)),
        (Method::DELETE, _) => {
            let options = parse_json(call.body)?;
            let text = |k: &str| options["preconditions"][k].as_str().map(str::to_string);
            Ok(Op::Delete(Preconditions {
                uid: text("uid"),
                resource_version: text("resourceVersion"),
            }))
        }
        (_, "application/apply-patch+yaml" | "application/apply-patch+cbor") => {
            let text = std::str::from_utf8(call.body).unwrap_or_default();
            let body: Value = serde_saphyr::from_str(text)
                .map_err(|e| errors::bad_request(&format!("error decoding YAML: {e}")))?;
            patch(Patch::Apply { body, force })
        }
        (_, "application/merge-patch+json" | "application/strategic-merge-patch+json") => {
            patch(Patch::Merge(parse_json(call.body)?))
        }
        (_, "application/json-patch+json") => patch(Patch::Json(parse_json(call.body)?)),
        _ => Err(errors::unsupported_media_type()),
    }
}

fn write(
    shared: &Shared,
    call: &Call,
    params: &Params,
    collection: &Collection,
    namespace: Option<&str>,
    url_name: Option<String>,
    status: bool,
) -> Result<Response<Body>, Failure> {
    let resource = collection.resource;
    let mut op = operation(call, params)?;
    let manager = match params.get("fieldManager") {
        Some(m) if !m.is_empty() => m.to_string(),
        _ => call
            .user_agent
            .split('/')
            .next()
            .unwrap_or_default()
            .to_string(),
    };
    let writer = Writer {
        manager,
        api_version: resource.api_version(),
        subresource: if status {
            "status".into()
        } else {
            String::new()
        },
        scope: Write::scope(&resource, status),
        time: now(),
    };
    let mut write = Write {
        resource: &resource,
        status,
        namespace,
        name: url_name.as_deref(),
        writer: &writer,
        now: &writer.time,
    };
    let created;
    if let Op::Create(object) = &mut op {
        write_core::shape(object)?;
        created = write.create_name(object)?;
        object["metadata"]["name"] = json!(created);
        write.name = Some(&created);
    }
    let key = (
        namespace.unwrap_or_default().to_string(),
        write.name.unwrap_or_default().to_string(),
    );
    let in_body = *call.method == Method::DELETE
        && parse_json(call.body)?["dryRun"]
            .as_array()
            .is_some_and(|d| !d.is_empty());
    let dry_run = in_body || params.get("dryRun").is_some_and(|d| !d.is_empty());
    let exists = collection.lock().objects.contains_key(&key);
    fenced(shared, call, &write, &op, exists, dry_run)?;
    let (code, answer) = {
        let mut state = collection.lock();
        let old = state.objects.get(&key).cloned();
        match write.decide(old.as_ref(), op)? {
            Decision::Unchanged(object) => (200, object),
            Decision::Store { mut object, code } if dry_run => {
                let rv = old.map(|o| o["metadata"]["resourceVersion"].clone());
                object["metadata"]["resourceVersion"] = rv.unwrap_or(Value::Null);
                (code, object)
            }
            Decision::Store { object, code } => {
                (code, collection.commit(&mut state, &key, Some(object)))
            }
            Decision::Remove { answer_object } => {
                let gone = match dry_run {
                    true => old.unwrap_or_default(),
                    false => collection.commit(&mut state, &key, None),
                };
                match answer_object {
                    true => (200, gone),
                    false => (200, errors::deleted_status(&resource, &gone)),
                }
            }
        }
    };
    if !dry_run && resource == super::host::CRDS && answer["kind"] == resource.kind {
        super::host::serve_crd(&shared.collections, &answer);
    }
    Ok(reply(
        StatusCode::from_u16(code).unwrap_or(StatusCode::OK),
        &answer,
    ))
}

/// The fence emulation's denial of this write, if any.
fn fenced(
    shared: &Shared,
    call: &Call,
    write: &Write,
    op: &Op,
    exists: bool,
    dry_run: bool,
) -> Result<(), Failure> {
    let operation = match (op, exists) {
        (Op::Create(_), _) | (Op::Patch(Patch::Apply { .. }), false) => "CREATE",
        (Op::Delete(_), _) => "DELETE",
        _ => "UPDATE",
    };
    let name = match (write.name, op) {
        (Some(n), _) if !n.is_empty() => n.to_string(),
        _ => "Unknown".to_string(),
    };
    let snapshot = |c: &Collection| -> Vec<Value> { c.lock().objects.values().cloned().collect() };
    let policies = snapshot(&shared.collections.get(&VALIDATING_POLICIES));
    let bindings = snapshot(&shared.collections.get(&VALIDATING_POLICY_BINDINGS));
    let attributes = Attributes {
        resource: write.resource,
        subresource: if write.status { "status" } else { "" },
        operation,
        username: call.username,
        dry_run,
        name: &name,
    };
    match fence::denial(&policies, &bindings, &attributes) {
        Some(denial) => Err(denial.failure(&attributes)),
        None => Ok(()),
    }
}
