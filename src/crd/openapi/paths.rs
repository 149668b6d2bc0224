//! The operations of one served custom resource version, as apiextensions-apiserver's
//! OpenAPI builder declares its routes (`generateBuilder`/`buildRoute`): list, create,
//! deletecollection, read, replace, delete, patch, and the status and scale subresources,
//! with kube's operation ids, descriptions, parameters, bodies and responses. Both the v2
//! and the v3 documents are rendered from this one model.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::meta_definitions::{DELETE_OPTIONS, PATCH, SCALE, STATUS};
use super::params::{self, Param};
use super::published::model_name;
use crate::crd::catalog::{ServedResource, ServedVersion};

/// Media types every operation produces.
pub(super) const PRODUCES: [&str; 2] = ["application/json", "application/yaml"];
const CONSUMES: &[&str] = &["application/json", "application/yaml"];
const PATCH_CONSUMES: &[&str] = &[
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
];

/// The request body an operation reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Body {
    pub model: String,
    pub required: bool,
}

/// One operation (an HTTP method on a path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Operation {
    /// Lowercase HTTP method: `get`, `post`, `put`, `delete` or `patch`.
    pub method: &'static str,
    /// `x-kubernetes-action`.
    pub action: &'static str,
    /// `x-kubernetes-group-version-kind`: the resource's kind, on every operation.
    pub group_version_kind: Value,
    pub operation_id: String,
    pub tag: String,
    pub description: String,
    /// Parameters not shared by every operation of the path, sorted.
    pub params: Vec<Param>,
    pub body: Option<Body>,
    pub consumes: &'static [&'static str],
    /// (status code, description, model name).
    pub responses: Vec<(u16, &'static str, String)>,
}

/// A path: the parameters all its operations share, and the operations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct PathItem {
    pub params: Vec<Param>,
    pub operations: Vec<Operation>,
}

/// An operation before its parameters are split into shared and own.
struct Route {
    path: String,
    op: Operation,
}

/// What `buildRoute` is given for one route.
struct Spec<'a> {
    suffix: &'a str,
    method: &'static str,
    action: &'static str,
    verb: &'static str,
    sample: &'a str,
    body: Option<&'a str>,
}

/// Every path of one served version, keyed by path.
pub(super) fn paths(r: &ServedResource, v: &ServedVersion) -> BTreeMap<String, PathItem> {
    let kind = model_name(&r.group, &v.name, &r.kind);
    let list = model_name(&r.group, &v.name, &r.list_kind);
    let mut routes = Vec::new();
    let mut root = format!("/apis/{}/{}/{}", r.group, v.name, r.plural);
    if r.namespaced {
        let all = format!("list{}ForAllNamespaces", r.kind);
        let list_all = spec("", "get", "list", "list", &list, None);
        routes.push(route(r, v, &root, &list_all, all));
        root = format!(
            "/apis/{}/{}/namespaces/{{namespace}}/{}",
            r.group, v.name, r.plural
        );
    }
    for s in &specs(v, &kind, &list) {
        let namespaced = if r.namespaced { "Namespaced" } else { "" };
        let sub = title(subresource(s.suffix));
        let name = format!("{}{namespaced}{}{sub}", s.verb, r.kind);
        routes.push(route(r, v, &root, s, name));
    }
    group_by_path(routes)
}

fn spec<'a>(
    suffix: &'a str,
    method: &'static str,
    action: &'static str,
    verb: &'static str,
    sample: &'a str,
    body: Option<&'a str>,
) -> Spec<'a> {
    Spec {
        suffix,
        method,
        action,
        verb,
        sample,
        body,
    }
}

/// The routes under the collection path: the collection, the object, its subresources.
fn specs<'a>(v: &ServedVersion, kind: &'a str, list: &'a str) -> Vec<Spec<'a>> {
    let collection = "deletecollection";
    let mut specs = vec![
        spec("", "get", "list", "list", list, None),
        spec("", "post", "post", "create", kind, Some(kind)),
        spec("", "delete", collection, collection, STATUS, None),
    ];
    let mut sub = |suffix, sample, with_delete: bool| {
        specs.push(spec(suffix, "get", "get", "read", sample, None));
        specs.push(spec(suffix, "put", "put", "replace", sample, Some(sample)));
        if with_delete {
            let options = Some(DELETE_OPTIONS);
            specs.push(spec(suffix, "delete", "delete", "delete", STATUS, options));
        }
        specs.push(spec(suffix, "patch", "patch", "patch", sample, Some(PATCH)));
    };
    sub("/{name}", kind, true);
    if v.status_subresource {
        sub("/{name}/status", kind, false);
    }
    if v.scale.is_some() {
        sub("/{name}/scale", SCALE, false);
    }
    specs
}

/// `buildRoute`: parameters, body, media types and responses of one route.
fn route(r: &ServedResource, v: &ServedVersion, root: &str, s: &Spec<'_>, name: String) -> Route {
    let path = format!("{root}{}", s.suffix);
    let (operation_id, tag) = operation_id_and_tag(&name, &path);
    let mut params = vec![params::pretty()];
    if path.contains("{namespace}") {
        params.push(params::namespace());
    }
    if path.contains("{name}") {
        params.push(params::name(&r.kind));
    }
    params.extend(params::options(s.action));
    let extra: &[(u16, &'static str)] = match s.action {
        "post" => &[(201, "Created"), (202, "Accepted")],
        "delete" => &[(202, "Accepted")],
        "put" => &[(201, "Created")],
        _ => &[],
    };
    let mut responses = vec![(200, "OK", s.sample.to_string())];
    responses.extend(extra.iter().map(|(c, m)| (*c, *m, s.sample.to_string())));
    let op = Operation {
        method: s.method,
        action: s.action,
        group_version_kind: json!({"group": r.group, "version": &*v.name, "kind": r.kind}),
        operation_id,
        tag,
        description: description(&r.kind, s.suffix, s.verb),
        params,
        body: s.body.map(|model| Body {
            model: model.to_string(),
            required: s.action != "delete",
        }),
        consumes: if s.method == "patch" {
            PATCH_CONSUMES
        } else {
            CONSUMES
        },
        responses,
    };
    Route { path, op }
}

/// `descriptionFor`: "list objects of kind CronTab", "read status of the specified CronTab", ...
fn description(kind: &str, suffix: &str, verb: &str) -> String {
    let article = match verb {
        "list" => " objects of kind ".to_string(),
        "read" | "replace" | "patch" => " the specified ".to_string(),
        "create" | "delete" => article_for_noun(kind, " "),
        _ => String::new(),
    };
    let sub = match subresource(suffix) {
        "" => String::new(),
        s => format!(" {s} of"),
    };
    match verb {
        "patch" => format!("partially update{sub}{article}{kind}"),
        "deletecollection" => format!("delete collection of {kind}"),
        _ => format!("{verb}{sub}{article}{kind}"),
    }
}

/// k8s.io/apiserver `GetArticleForNoun`: plurals get none, vowels get "an".
fn article_for_noun(noun: &str, padding: &str) -> String {
    if !noun.ends_with("ss") && noun.ends_with('s') {
        return padding.to_string();
    }
    let vowel = noun
        .chars()
        .next()
        .is_some_and(|c| "aeiou".contains(c.to_ascii_lowercase()));
    let article = if vowel { "an" } else { "a" };
    format!("{padding}{article}{padding}")
}

/// "" for `""` and `/{name}`, `status` for `/{name}/status`.
fn subresource(suffix: &str) -> &str {
    suffix.split('/').nth(2).unwrap_or_default()
}

fn title(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// k8s.io/apiserver `GetOperationIDAndTags`: the verb prefix, then the group (without
/// `.k8s.io`) and version as identifiers, then the rest of the operation name.
pub(super) fn operation_id_and_tag(name: &str, path: &str) -> (String, String) {
    // kube's verb trie answers the shortest matching verb ("delete" for "deletecollection...").
    const VERBS: [&str; 12] = [
        "get",
        "log",
        "read",
        "replace",
        "patch",
        "delete",
        "watch",
        "connect",
        "proxy",
        "list",
        "create",
        "deletecollection",
    ];
    let verb = VERBS
        .iter()
        .filter(|v| name.starts_with(*v))
        .min_by_key(|v| v.len())
        .copied()
        .unwrap_or_default();
    let rest = &name[verb.len()..];
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let group = parts
        .get(1)
        .map(|g| g.trim_end_matches(".k8s.io"))
        .unwrap_or_default();
    let mut prefix = format!("{verb}{}", valid_operation_id(group, !verb.is_empty()));
    let mut tag = valid_operation_id(group, false);
    if let Some(version) = parts.get(2) {
        prefix.push_str(&valid_operation_id(version, !prefix.is_empty()));
        tag = format!("{tag}_{}", valid_operation_id(version, false));
    }
    let id = format!("{prefix}{}", valid_operation_id(rest, !prefix.is_empty()));
    (id, tag)
}

/// k8s.io/apiserver `ToValidOperationID`: keeps letters, `_` and non-leading digits; every
/// other character is dropped and capitalizes the next kept one.
fn valid_operation_id(s: &str, capitalize_first: bool) -> String {
    let mut out = String::new();
    let mut capitalize = capitalize_first;
    for (i, c) in s.char_indices() {
        if c.is_alphabetic() || c == '_' || (i != 0 && c.is_ascii_digit()) {
            if capitalize {
                out.extend(c.to_uppercase());
                capitalize = false;
            } else {
                out.push(c);
            }
        } else {
            capitalize = true;
        }
    }
    out
}

/// kube-openapi's path grouping: parameters present in every operation of a path move to
/// the path; the rest stay on their operation. Both lists sorted by name, then location.
fn group_by_path(routes: Vec<Route>) -> BTreeMap<String, PathItem> {
    let mut by_path: BTreeMap<String, Vec<Operation>> = BTreeMap::new();
    for r in routes {
        by_path.entry(r.path).or_default().push(r.op);
    }
    by_path
        .into_iter()
        .map(|(path, mut ops)| {
            let first = ops.first().map(|o| o.params.clone()).unwrap_or_default();
            let mut shared: Vec<Param> = first
                .into_iter()
                .filter(|p| {
                    ops.iter()
                        .all(|o| o.params.iter().any(|q| q.sort_key() == p.sort_key()))
                })
                .collect();
            shared.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            for op in &mut ops {
                op.params
                    .retain(|p| !shared.iter().any(|s| s.sort_key() == p.sort_key()));
                op.params.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            }
            (
                path,
                PathItem {
                    params: shared,
                    operations: ops,
                },
            )
        })
        .collect()
}
