//! list: selectors, limit/continue pagination at one revision,
//! resourceVersion semantics, and Table output.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::handlers::{AppState, Call, Reply, wire::served};
use crate::meta::object as obj;
use crate::request::continuation;
use crate::request::negotiate::{
    MetaKind, MetaTarget, Representation, Target as NegotiationTarget, negotiate,
};
use crate::request::options::{ListOptions, ResourceVersionMatch};
use crate::storage::{KeyValue, RangeRequest, RangeResult, Revision, StorageError};
use crate::table::{Conversion, IncludeObject, ListMeta, TransformError};

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

/// One page of a list: the selected stored objects (decoded only where a selector or a
/// representation needs it).
pub struct Page {
    pub items: Vec<KeyValue>,
    pub revision: Revision,
    pub continue_token: String,
    /// Objects after this page, when kube counts them (a cut page, no selectors).
    pub remaining_item_count: Option<i64>,
}

impl Page {
    /// The items as objects, in the request's version (one conversion for the page).
    pub async fn objects(&self, ctx: &Target) -> Result<Vec<Value>, ApiError> {
        if !ctx.needs_conversion() {
            return self.items.iter().map(|kv| ctx.decode(kv)).collect();
        }
        let items = ctx.to_served_version(self.items.clone()).await?;
        items.iter().map(|kv| ctx.decode(kv)).collect()
    }

    pub fn list_meta(&self) -> ListMeta {
        ListMeta {
            resource_version: self.revision.to_string(),
            continue_token: self.continue_token.clone(),
            remaining_item_count: self.remaining_item_count,
        }
    }
}

/// Keys read per storage round trip when counting what follows a page.
const COUNT_CHUNK: usize = 500;

/// The page size a list is cut to: `resourceVersion=0` without `continue` is served whole
/// from kube's watch cache, whatever the limit.
fn page_limit(options: &ListOptions) -> usize {
    if options.resource_version == "0" && options.continue_token.is_empty() {
        0
    } else {
        options.limit
    }
}

/// Reads the matching objects, one page when `limit` is set.
pub async fn read_page(
    state: &AppState,
    ctx: &Target,
    options: &ListOptions,
) -> Result<Page, ApiError> {
    let prefix = ctx.collection_prefix(state);
    let (mut revision, mut start, mut not_older_than) = start_point(state, ctx, options).await?;
    let limit = page_limit(options);
    let mut items = Vec::new();
    let chunk = if limit > 0 { limit.max(64) } else { 0 };
    let unselected = options.label_selector.is_empty() && options.field_selector.is_empty();
    loop {
        let req = RangeRequest {
            prefix: prefix.clone(),
            start_key: start.as_ref().map(|s| format!("{prefix}{s}")),
            limit: chunk,
            revision,
            // Only the first read may be served at any fresh-enough revision; the rest
            // of the list is read at the revision it got.
            not_older_than: not_older_than.take(),
        };
        let range = state
            .store
            .range(req)
            .await
            .map_err(|e| range_error(ctx, options, e))?;
        revision = range.revision;
        // The whole collection, unfiltered: its items are the range's, not a copy.
        if limit == 0 && unselected && items.is_empty() && !range.more {
            return Ok(whole(range.kvs, revision));
        }
        // Selectors read the objects in the request's version: the chunk is converted
        // (in one call) before it is selected from.
        let range = match unselected {
            true => range,
            false => RangeResult {
                kvs: ctx.to_served_version(range.kvs).await?,
                ..range
            },
        };
        let total = range.kvs.len();
        for (i, kv) in range.kvs.iter().enumerate() {
            if unselected || selects(options, &ctx.decode(kv)?) {
                items.push(kv.clone());
            }
            if limit == 0 || items.len() < limit {
                continue;
            }
            let after = format!("{}\u{0}", crate::watch::relative_key(kv, &prefix));
            let more_after = i + 1 < total || range.more;
            if !more_after {
                return Ok(whole(items, revision));
            }
            // etcd counts keys, not matches: kube gives a count only without selectors.
            let remaining_item_count = if unselected {
                let beyond = if range.more {
                    count_from(
                        state,
                        ctx,
                        &prefix,
                        revision,
                        &after_last(&range.kvs, &prefix),
                    )
                    .await?
                } else {
                    0
                };
                Some(i64::try_from(total - i - 1).unwrap_or(i64::MAX) + beyond)
            } else {
                None
            };
            return Ok(Page {
                items,
                revision,
                continue_token: continuation::encode(revision, &after),
                remaining_item_count,
            });
        }
        match range.kvs.last() {
            Some(last) if range.more => {
                start = Some(format!(
                    "{}\u{0}",
                    crate::watch::relative_key(last, &prefix)
                ))
            }
            _ => return Ok(whole(items, revision)),
        }
    }
}

/// The last page: no continue token, nothing remaining.
fn whole(items: Vec<KeyValue>, revision: Revision) -> Page {
    Page {
        items,
        revision,
        continue_token: String::new(),
        remaining_item_count: None,
    }
}

/// The relative key just after the last of `kvs`.
fn after_last(kvs: &[crate::storage::KeyValue], prefix: &str) -> String {
    kvs.last().map_or_else(String::new, |kv| {
        format!("{}\u{0}", crate::watch::relative_key(kv, prefix))
    })
}

/// How many keys of the collection sort at or after `start` at `revision`.
async fn count_from(
    state: &AppState,
    ctx: &Target,
    prefix: &str,
    revision: Revision,
    start: &str,
) -> Result<i64, ApiError> {
    let mut count = 0i64;
    let mut start = start.to_owned();
    loop {
        let req = RangeRequest {
            prefix: prefix.to_owned(),
            start_key: Some(format!("{prefix}{start}")),
            limit: COUNT_CHUNK,
            revision,
            not_older_than: None,
        };
        let range = state
            .store
            .range(req)
            .await
            .map_err(|e| ctx.storage_error("", e))?;
        count += i64::try_from(range.kvs.len()).unwrap_or(i64::MAX);
        if !range.more || range.kvs.is_empty() {
            return Ok(count);
        }
        start = after_last(&range.kvs, prefix);
    }
}

/// The revision and first key a list reads from, per continue / resourceVersion rules,
/// and (reading the latest state) how fresh it must be: `None` for a consistent read.
async fn start_point(
    state: &AppState,
    ctx: &Target,
    options: &ListOptions,
) -> Result<(Revision, Option<String>, Option<Revision>), ApiError> {
    if !options.continue_token.is_empty() {
        if !options.resource_version.is_empty() && options.resource_version != "0" {
            return Err(ApiError::BadRequest(
                "specifying resource version is not allowed when using continue".into(),
            ));
        }
        let (revision, start) = continuation::decode(&options.continue_token)?;
        // rv -1 is kube's "inconsistent continue": go on at the latest revision.
        return Ok((revision.max(0), Some(start), None));
    }
    let rv = options.resource_version.as_str();
    if rv.is_empty() {
        return Ok((0, None, None));
    }
    if rv == "0" {
        // Any state will do: kube serves it from its watch cache as it is.
        return Ok((0, None, Some(0)));
    }
    let wanted = parse_revision(rv)?;
    let exact = options.resource_version_match == ResourceVersionMatch::Exact
        || (options.limit > 0 && options.resource_version_match == ResourceVersionMatch::Unset);
    if exact {
        return Ok((wanted, None, None));
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
    Ok((0, None, Some(wanted)))
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
    if representation == Representation::Json {
        // The items' served bytes, streamed: no object is decoded or encoded again. The
        // items a converter must see are converted first, in one call for the page.
        let list_meta = page.list_meta();
        let kvs = match ctx.needs_conversion() {
            false => page.items,
            true => ctx.to_served_version(page.items).await?,
        };
        let mut items = Vec::with_capacity(kvs.len());
        for kv in &kvs {
            items.push(served::object_bytes(ctx, kv)?);
        }
        let (body, len) = served::list_body(ctx, items, &list_meta)?;
        return Ok(Reply::Encoded {
            body,
            len,
            warnings: Vec::new(),
        }
        .with_warning(ctx.deprecation_warning()));
    }
    render_list(
        call,
        ctx,
        representation,
        &page.objects(ctx).await?,
        &page.list_meta(),
    )
}

/// The conversion a `meta.k8s.io` target asks for; a Table's `includeObject` is read (and
/// refused) here, after the request's work is done, as upstream's `optionsForTransform`.
pub fn conversion(call: &Call, target: MetaTarget) -> Result<Conversion, ApiError> {
    Ok(match target.kind {
        MetaKind::Table => Conversion::Table(include_object(call)?),
        MetaKind::PartialObjectMetadata => Conversion::PartialObjectMetadata,
        MetaKind::PartialObjectMetadataList => Conversion::PartialObjectMetadataList,
    })
}

/// A conversion that does not fit the answer, as kube reports it.
pub fn transform_error(err: TransformError) -> ApiError {
    match err {
        TransformError::ListAsPartialObjectMetadata => {
            ApiError::NotAcceptableConversion(err.to_string())
        }
        TransformError::NotAList => ApiError::Unknown(err.to_string()),
    }
}

/// A list (or deletecollection's answer) in the negotiated representation.
pub(crate) fn render_list(
    call: &Call,
    ctx: &Target,
    representation: Representation,
    items: &[Value],
    list_meta: &ListMeta,
) -> Result<Reply, ApiError> {
    let body = match representation {
        Representation::Meta(target) => ctx
            .version()
            .table
            .convert_list(
                items,
                list_meta,
                conversion(call, target)?,
                target.version,
                jiff::Timestamp::now(),
            )
            .map_err(transform_error)?,
        _ => json!({
            "apiVersion": ctx.api_version(),
            "kind": ctx.resource.list_kind,
            // Custom resource lists always carry `continue`, empty on the last page.
            "metadata": list_meta.unstructured(),
            "items": items,
        }),
    };
    Ok(Reply::ok(body, representation.encoding()).with_warning(ctx.deprecation_warning()))
}
