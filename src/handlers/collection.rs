//! list and deletecollection: selectors, limit/continue pagination at one revision,
//! resourceVersion semantics, and Table output.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::handlers::object::delete_one;
use crate::handlers::{AppState, Call, Reply};
use crate::meta::object as obj;
use crate::request::continuation;
use crate::request::negotiate::{Representation, Target as NegotiationTarget, negotiate};
use crate::request::options::{ListOptions, ResourceVersionMatch};
use crate::storage::{RangeRequest, Revision, StorageError};
use crate::table::IncludeObject;

/// Fields every custom resource can be selected by; CRDs add their `selectableFields`.
const SELECTABLE_FIELDS: &[&str] = &["metadata.name", "metadata.namespace"];

/// The `includeObject` query parameter of Table requests.
pub fn include_object(call: &Call) -> Result<IncludeObject, ApiError> {
    let value = call.query.get("includeObject").unwrap_or_default();
    IncludeObject::parse(value).map_err(|e| ApiError::BadRequest(e.to_string()))
}

/// List options with the field selector checked against the selectable fields and
/// narrowed to the request info's name, so the handler serves what was authorized.
pub fn list_options(call: &Call, ctx: &Target) -> Result<ListOptions, ApiError> {
    let selectable: Vec<&str> = SELECTABLE_FIELDS
        .iter()
        .copied()
        .chain(ctx.version().selectable_fields.iter().map(String::as_str))
        .collect();
    ListOptions::for_request(&call.info, &call.query, &selectable)
}

/// Whether an object passes the label and field selectors.
pub fn selects(options: &ListOptions, object: &Value) -> bool {
    options.label_selector.matches(&obj::labels(object))
        && options
            .field_selector
            .matches(|field| obj::field_value(object, field))
}

/// Parses a resourceVersion query value.
pub fn parse_revision(rv: &str) -> Result<Revision, ApiError> {
    rv.parse::<Revision>()
        .ok()
        .filter(|r| *r >= 0)
        .ok_or_else(|| ApiError::BadRequest(format!("invalid resource version: {rv:?}")))
}

/// One page of a list.
pub struct Page {
    pub items: Vec<Value>,
    pub revision: Revision,
    pub continue_token: String,
}

/// Reads the matching objects, one page when `limit` is set.
pub async fn read_page(
    state: &AppState,
    ctx: &Target,
    options: &ListOptions,
) -> Result<Page, ApiError> {
    let prefix = ctx.collection_prefix(state);
    let (mut revision, mut start) = start_point(state, ctx, options).await?;
    let mut items = Vec::new();
    let chunk = if options.limit > 0 {
        options.limit.max(64)
    } else {
        0
    };
    loop {
        let req = RangeRequest {
            prefix: prefix.clone(),
            start_key: start.as_ref().map(|s| format!("{prefix}{s}")),
            limit: chunk,
            revision,
        };
        let range = state
            .store
            .range(req)
            .await
            .map_err(|e| range_error(ctx, options, e))?;
        revision = range.revision;
        let total = range.kvs.len();
        for (i, kv) in range.kvs.iter().enumerate() {
            let object = ctx.decode(kv)?;
            if selects(options, &object) {
                items.push(object);
            }
            let more_after = i + 1 < total || range.more;
            if options.limit > 0 && items.len() == options.limit {
                let token = if more_after {
                    let next = format!("{}\u{0}", crate::watch::relative_key(kv, &prefix));
                    continuation::encode(revision, &next)
                } else {
                    String::new()
                };
                return Ok(Page {
                    items,
                    revision,
                    continue_token: token,
                });
            }
        }
        match range.kvs.last() {
            Some(last) if range.more => {
                start = Some(format!(
                    "{}\u{0}",
                    crate::watch::relative_key(last, &prefix)
                ))
            }
            _ => {
                return Ok(Page {
                    items,
                    revision,
                    continue_token: String::new(),
                });
            }
        }
    }
}

/// The revision and first key a list reads from, per continue / resourceVersion rules.
async fn start_point(
    state: &AppState,
    ctx: &Target,
    options: &ListOptions,
) -> Result<(Revision, Option<String>), ApiError> {
    if !options.continue_token.is_empty() {
        if !options.resource_version.is_empty() && options.resource_version != "0" {
            return Err(ApiError::BadRequest(
                "specifying resource version is not allowed when using continue".into(),
            ));
        }
        let (revision, start) = continuation::decode(&options.continue_token)?;
        // rv -1 is kube's "inconsistent continue": go on at the latest revision.
        return Ok((revision.max(0), Some(start)));
    }
    let rv = options.resource_version.as_str();
    if rv.is_empty() || rv == "0" {
        return Ok((0, None));
    }
    let wanted = parse_revision(rv)?;
    let exact = options.resource_version_match == ResourceVersionMatch::Exact
        || (options.limit > 0 && options.resource_version_match == ResourceVersionMatch::Unset);
    if exact {
        return Ok((wanted, None));
    }
    let current = state
        .store
        .current_revision()
        .await
        .map_err(|e| ctx.storage_error("", e))?;
    if wanted > current {
        return Err(ctx.storage_error(
            "",
            StorageError::FutureRevision {
                requested: wanted,
                current,
            },
        ));
    }
    Ok((0, None))
}

/// A compacted continue revision is 410 with kube's message and a fresh token.
fn range_error(ctx: &Target, options: &ListOptions, err: StorageError) -> ApiError {
    match err {
        StorageError::Compacted { .. } if !options.continue_token.is_empty() => ApiError::Expired {
            message: "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.".into(),
            continue_token: continuation::decode(&options.continue_token)
                .ok()
                .map(|(_, start)| continuation::encode(-1, &start)),
        },
        StorageError::Compacted { requested, .. } => ApiError::Expired {
            message: format!("resourceVersion {requested} is too old: the requested revision has been compacted"),
            continue_token: None,
        },
        other => ctx.storage_error("", other),
    }
}

pub async fn list(state: &Arc<AppState>, call: &Call, ctx: &Target) -> Result<Reply, ApiError> {
    let representation = negotiate(call.header("accept"), NegotiationTarget::Object)?;
    let options = list_options(call, ctx)?;
    let page = read_page(state, ctx, &options).await?;
    // Custom resource lists always carry `continue`, empty on the last page, as kube's do.
    let list_meta = json!({
        "resourceVersion": page.revision.to_string(),
        "continue": page.continue_token,
    });
    let body = match representation {
        Representation::Table => {
            let include = include_object(call)?;
            ctx.version()
                .table
                .table(&page.items, list_meta, include, jiff::Timestamp::now())
        }
        _ => json!({
            "apiVersion": ctx.api_version(),
            "kind": ctx.resource.list_kind,
            "metadata": list_meta,
            "items": page.items,
        }),
    };
    Ok(Reply::ok(body, representation).with_warning(ctx.deprecation_warning()))
}

pub async fn delete_collection(
    state: &Arc<AppState>,
    call: &Call,
    ctx: &Target,
) -> Result<Reply, ApiError> {
    let representation = negotiate(call.header("accept"), NegotiationTarget::Object)?;
    let options = list_options(call, ctx)?;
    let delete_options = crate::handlers::object::delete_options(call)?;
    let page = read_page(
        state,
        ctx,
        &ListOptions {
            limit: 0,
            ..options
        },
    )
    .await?;
    let mut deleted = Vec::new();
    for item in page.items {
        let name = obj::name(&item).to_string();
        let scoped = Target::for_namespace(ctx, obj::namespace(&item));
        match delete_one(state, &scoped, &name, &delete_options).await {
            Ok((object, _)) => deleted.push(object),
            // Deleted by someone else meanwhile: nothing left to do for it.
            Err(ApiError::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    let body = json!({
        "apiVersion": ctx.api_version(),
        "kind": ctx.resource.list_kind,
        "metadata": {"resourceVersion": page.revision.to_string()},
        "items": deleted,
    });
    Ok(Reply::ok(body, representation).with_warning(ctx.deprecation_warning()))
}
