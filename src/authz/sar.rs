//! Delegated authorization: a SubjectAccessReview (`authorization.k8s.io/v1`) per
//! request, as k8s.io/apiserver's webhook authorizer. The review carries the user (name,
//! uid, groups, extra) and either the resource attributes (verb, group, version,
//! resource, subresource, namespace, name) or the non-resource ones (path, verb); empty
//! values are left out, as Go's `omitempty`. Answers are cached by the review's spec:
//! allowed ones for `--authorization-webhook-cache-authorized-ttl`, the others for
//! `--authorization-webhook-cache-unauthorized-ttl`; failed calls are not cached.
//!
//! The cache key is the SHA-256 of what the spec is made from (user and request info),
//! not the spec itself: a spec is as long as the client's selectors (up to the
//! request-line limit), and kube's webhook caches those too (its size check counts only
//! namespace, verb, group, version, resource, subresource, name and path). Hashing keeps
//! every entry 32 bytes, so a long selector costs one review per TTL like any other
//! request and the cache's memory stays bounded; hashing the inputs as they are means a
//! cache hit builds and copies nothing.

use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::authorization::v1::{
    FieldSelectorAttributes, LabelSelectorAttributes, NonResourceAttributes, ResourceAttributes,
    SubjectAccessReview, SubjectAccessReviewSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    FieldSelectorRequirement, LabelSelectorRequirement,
};
use kube::api::{Api, PostParams};

use crate::cluster::cache::{DEFAULT_CAPACITY, TtlCache};
use crate::cluster::client::{ReviewError, review};
use crate::metrics::Metrics;
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;
use crate::selector::field::{FieldOperator, FieldSelector};
use crate::selector::label::{LabelSelector, Operator};

/// What the cluster decided, with its reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Allow(String),
    Deny(String),
    NoOpinion(String),
}

/// Why no decision could be had; the request then fails with a 500, as upstream.
#[derive(Debug, thiserror::Error)]
pub enum SarError {
    #[error("subjectaccessreview: {0}")]
    Review(#[from] ReviewError),
    #[error("webhook subject access review returned both allow and deny response")]
    AllowAndDeny,
}

fn some(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// The review's spec for `user` doing `info`.
pub fn spec(user: &UserInfo, info: &RequestInfo) -> SubjectAccessReviewSpec {
    let subject = Subject {
        name: &user.name,
        uid: &user.uid,
        groups: &user.groups,
        extra: &user.extra,
    };
    let asked = match info.is_resource_request {
        true => Asked::Resource(ResourceRequest {
            namespace: &info.namespace,
            verb: info.verb.as_str(),
            group: &info.api_group,
            version: &info.api_version,
            resource: &info.resource,
            subresource: info.subresource.as_str(),
            name: &info.name,
            field_selector: &info.field_selector,
            label_selector: &info.label_selector,
        }),
        false => Asked::NonResource {
            path: &info.path,
            verb: info.verb.as_str(),
        },
    };
    review_spec(subject, asked)
}

/// Who a review asks about (kube's `user.Info`), borrowed.
pub struct Subject<'a> {
    pub name: &'a str,
    pub uid: &'a str,
    pub groups: &'a [String],
    pub extra: &'a std::collections::BTreeMap<String, Vec<String>>,
}

/// The resource attributes a review asks about, the selectors as written (parsed as
/// kube parses them; an invalid one is left out).
pub struct ResourceRequest<'a> {
    pub namespace: &'a str,
    pub verb: &'a str,
    pub group: &'a str,
    pub version: &'a str,
    pub resource: &'a str,
    pub subresource: &'a str,
    pub name: &'a str,
    pub field_selector: &'a str,
    pub label_selector: &'a str,
}

/// What a review asks.
pub enum Asked<'a> {
    Resource(ResourceRequest<'a>),
    NonResource { path: &'a str, verb: &'a str },
}

/// A SubjectAccessReview's spec, as kube's webhook authorizer fills it.
pub fn review_spec(subject: Subject<'_>, asked: Asked<'_>) -> SubjectAccessReviewSpec {
    let mut spec = SubjectAccessReviewSpec {
        user: some(subject.name),
        uid: some(subject.uid),
        groups: (!subject.groups.is_empty()).then(|| subject.groups.to_vec()),
        extra: (!subject.extra.is_empty()).then(|| subject.extra.clone()),
        ..Default::default()
    };
    match asked {
        Asked::Resource(r) => {
            spec.resource_attributes = Some(ResourceAttributes {
                namespace: some(r.namespace),
                verb: some(r.verb),
                group: some(r.group),
                version: some(r.version),
                resource: some(r.resource),
                subresource: some(r.subresource),
                name: some(r.name),
                field_selector: FieldSelector::parse(r.field_selector)
                    .ok()
                    .and_then(|s| field_attributes(&s)),
                label_selector: LabelSelector::parse(r.label_selector)
                    .ok()
                    .and_then(|s| label_attributes(&s)),
            });
        }
        Asked::NonResource { path, verb } => {
            spec.non_resource_attributes = Some(NonResourceAttributes {
                path: some(path),
                verb: some(verb),
            });
        }
    }
    spec
}

/// The field selector as requirements (kube 1.32's AuthorizeWithSelectors): `=`/`==`
/// become In, `!=` NotIn. A selector that does not parse is left out by [`spec`] —
/// selectors only narrow a request, so leaving them out asks about something at least as
/// broad (and the handler refuses it with a 400).
pub(crate) fn field_attributes(selector: &FieldSelector) -> Option<FieldSelectorAttributes> {
    let requirements: Vec<FieldSelectorRequirement> = selector
        .requirements()
        .iter()
        .map(|r| FieldSelectorRequirement {
            key: r.field.clone(),
            operator: match r.op {
                FieldOperator::Equals => "In".into(),
                FieldOperator::NotEquals => "NotIn".into(),
            },
            values: Some(vec![r.value.clone()]),
        })
        .collect();
    (!requirements.is_empty()).then_some(FieldSelectorAttributes {
        raw_selector: None,
        requirements: Some(requirements),
    })
}

/// The label selector as requirements; `>`/`<` are dropped as upstream drops them.
pub(crate) fn label_attributes(selector: &LabelSelector) -> Option<LabelSelectorAttributes> {
    let requirements: Vec<LabelSelectorRequirement> = selector
        .requirements()
        .iter()
        .filter_map(|r| {
            let operator = match r.operator() {
                Operator::Equals | Operator::DoubleEquals | Operator::In => "In",
                Operator::NotEquals | Operator::NotIn => "NotIn",
                Operator::Exists => "Exists",
                Operator::DoesNotExist => "DoesNotExist",
                Operator::GreaterThan | Operator::LessThan => return None,
            };
            let values = r.values().to_vec();
            Some(LabelSelectorRequirement {
                key: r.key().to_string(),
                operator: operator.into(),
                values: (!values.is_empty()).then_some(values),
            })
        })
        .collect();
    (!requirements.is_empty()).then_some(LabelSelectorAttributes {
        raw_selector: None,
        requirements: Some(requirements),
    })
}

/// A SHA-256 naming one review.
type SpecKey = [u8; 32];

/// The cache key of the review of `user` doing `info`: the SHA-256 of everything
/// [`spec`] reads, each part length-prefixed, hashed as it is (nothing is built or
/// copied for a cache hit). Equal inputs make equal specs; two inputs that happen to
/// make the same spec only miss the cache.
fn request_key(user: &UserInfo, info: &RequestInfo) -> Option<SpecKey> {
    let mut hash = ring::digest::Context::new(&ring::digest::SHA256);
    let mut part = |bytes: &[u8]| {
        hash.update(&(bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    part(user.name.as_bytes());
    part(user.uid.as_bytes());
    part(&(user.groups.len() as u64).to_le_bytes());
    user.groups.iter().for_each(|g| part(g.as_bytes()));
    part(&(user.extra.len() as u64).to_le_bytes());
    for (key, values) in &user.extra {
        part(key.as_bytes());
        part(&(values.len() as u64).to_le_bytes());
        values.iter().for_each(|v| part(v.as_bytes()));
    }
    part(&[u8::from(info.is_resource_request)]);
    for text in [
        info.namespace.as_str(),
        info.verb.as_str(),
        info.api_group.as_str(),
        info.api_version.as_str(),
        info.resource.as_str(),
        info.subresource.as_str(),
        info.name.as_str(),
        info.field_selector.as_str(),
        info.label_selector.as_str(),
        info.path.as_str(),
    ] {
        part(text.as_bytes());
    }
    hash.finish().as_ref().try_into().ok()
}

#[derive(Clone, Debug)]
struct Answer {
    allowed: bool,
    denied: bool,
    reason: String,
}

/// SubjectAccessReview with allow/deny TTL caches.
pub struct SarAuthorizer {
    api: Api<SubjectAccessReview>,
    cache: TtlCache<SpecKey, Answer>,
    allowed_ttl: Duration,
    denied_ttl: Duration,
    metrics: Arc<Metrics>,
}

impl SarAuthorizer {
    pub fn new(
        client: kube::Client,
        allowed_ttl: Duration,
        denied_ttl: Duration,
        metrics: Arc<Metrics>,
    ) -> Self {
        SarAuthorizer {
            api: Api::all(client),
            cache: TtlCache::new(DEFAULT_CAPACITY),
            allowed_ttl,
            denied_ttl,
            metrics,
        }
    }

    pub async fn authorize(
        &self,
        user: &UserInfo,
        info: &RequestInfo,
    ) -> Result<Decision, SarError> {
        let key = request_key(user, info);
        let cached = key.and_then(|k| self.cache.get(&k, Instant::now()));
        let answer = match cached {
            Some(hit) => hit,
            None => {
                let answer = self.review(spec(user, info)).await?;
                if let Some(key) = key {
                    let ttl = if answer.allowed {
                        self.allowed_ttl
                    } else {
                        self.denied_ttl
                    };
                    self.cache.insert(key, answer.clone(), ttl, Instant::now());
                }
                answer
            }
        };
        match (answer.allowed, answer.denied) {
            (true, true) => Err(SarError::AllowAndDeny),
            (true, false) => Ok(Decision::Allow(answer.reason)),
            (false, true) => Ok(Decision::Deny(answer.reason)),
            (false, false) => Ok(Decision::NoOpinion(answer.reason)),
        }
    }

    /// The decision for a spec an expression built (not cached: kube's library asks its
    /// authorizer directly).
    pub async fn decide_spec(&self, spec: SubjectAccessReviewSpec) -> Result<Decision, SarError> {
        let answer = self.review(spec).await?;
        match (answer.allowed, answer.denied) {
            (true, true) => Err(SarError::AllowAndDeny),
            (true, false) => Ok(Decision::Allow(answer.reason)),
            (false, true) => Ok(Decision::Deny(answer.reason)),
            (false, false) => Ok(Decision::NoOpinion(answer.reason)),
        }
    }

    async fn review(&self, spec: SubjectAccessReviewSpec) -> Result<Answer, ReviewError> {
        let request = SubjectAccessReview {
            spec,
            ..Default::default()
        };
        let params = PostParams::default();
        let result = review(|| self.api.create(&params, &request)).await;
        let status = match result {
            Ok(r) => r.status.unwrap_or_default(),
            Err(e) => {
                self.metrics.count_review("subjectaccessreview", e.label());
                return Err(e);
            }
        };
        let answer = Answer {
            allowed: status.allowed,
            denied: status.denied.unwrap_or(false),
            reason: status.reason.unwrap_or_default(),
        };
        let label = if answer.allowed { "allowed" } else { "denied" };
        self.metrics.count_review("subjectaccessreview", label);
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::info;
    use crate::request::query::Query;
    use serde_json::json;

    #[test]
    fn spec_requests_serialize_as_kube() {
        let mut bob = UserInfo::authenticated("bob".into(), vec!["dev".into()]);
        bob.extra.insert("scopes".into(), vec!["a".into()]);
        let cases = [
            (
                "namespaced list",
                (
                    "GET",
                    "/apis/stable.example.com/v1/namespaces/default/crontabs",
                ),
                json!({"user": "bob", "groups": ["dev", "system:authenticated"],
                    "extra": {"scopes": ["a"]},
                    "resourceAttributes": {"namespace": "default", "verb": "list",
                        "group": "stable.example.com", "version": "v1", "resource": "crontabs"}}),
            ),
            (
                "scale subresource",
                (
                    "PUT",
                    "/apis/stable.example.com/v1/namespaces/ns/crontabs/x/scale",
                ),
                json!({"user": "bob", "groups": ["dev", "system:authenticated"],
                    "extra": {"scopes": ["a"]},
                    "resourceAttributes": {"namespace": "ns", "verb": "update",
                        "group": "stable.example.com", "version": "v1", "resource": "crontabs",
                        "subresource": "scale", "name": "x"}}),
            ),
            (
                "unknown subresource keeps its text",
                (
                    "GET",
                    "/apis/stable.example.com/v1/namespaces/ns/crontabs/x/foo/bar",
                ),
                json!({"user": "bob", "groups": ["dev", "system:authenticated"],
                    "extra": {"scopes": ["a"]},
                    "resourceAttributes": {"namespace": "ns", "verb": "get",
                        "group": "stable.example.com", "version": "v1", "resource": "crontabs",
                        "subresource": "foo", "name": "x"}}),
            ),
            (
                "non-resource",
                ("GET", "/metrics"),
                json!({"user": "bob", "groups": ["dev", "system:authenticated"],
                    "extra": {"scopes": ["a"]},
                    "nonResourceAttributes": {"path": "/metrics", "verb": "get"}}),
            ),
        ];
        for (name, (method, path), want) in cases {
            let info = info::parse(method, path, &Default::default());
            let got = serde_json::to_value(spec(&bob, &info)).expect("json");
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn request_key_long_selector_has_fixed_size_distinct_key() {
        let bob = UserInfo::authenticated("bob".into(), vec![]);
        let values: Vec<String> = (0..3000).map(|i| format!("v{i}")).collect();
        let long = format!("labelSelector=app%20in%20({})", values.join(","));
        let path = "/apis/g/v1/namespaces/ns/things";
        let keys: Vec<Option<SpecKey>> = [long.as_str(), "labelSelector=app%3Dv1", ""]
            .iter()
            .map(|q| request_key(&bob, &info::parse("GET", path, &Query::parse(q))))
            .collect();
        assert!(keys.iter().all(Option::is_some), "every spec is cacheable");
        assert_ne!(keys[0], keys[1]);
        assert_ne!(keys[1], keys[2]);
        let again = request_key(&bob, &info::parse("GET", path, &Query::parse(&long)));
        assert_eq!(again, keys[0], "same request, same key");
        let alice = UserInfo::authenticated("alice".into(), vec![]);
        let other_user = request_key(&alice, &info::parse("GET", path, &Query::parse(&long)));
        assert_ne!(other_user, keys[0], "another user, another key");
    }
}
