//! One compiled policy rule and whether a request matches it, exactly as kube's
//! `ruleMatches` (pkg/audit/policy/checker.go) decides: every non-empty list must match;
//! resources and namespaces make it a resource rule, nonResourceURLs a non-resource one.

use std::collections::HashSet;

use crate::audit::{Level, Stage};
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;

/// A list of names; an empty one matches everything (the caller checks emptiness).
#[derive(Clone, Debug, Default)]
pub struct Names {
    small: Vec<String>,
    large: HashSet<String>,
}

/// Up to this many names a linear scan beats hashing.
const LINEAR: usize = 8;

impl Names {
    pub fn new(names: &[String]) -> Names {
        match names.len() > LINEAR {
            true => Names {
                small: Vec::new(),
                large: names.iter().cloned().collect(),
            },
            false => Names {
                small: names.to_vec(),
                large: HashSet::new(),
            },
        }
    }

    pub fn is_empty(&self) -> bool {
        self.small.is_empty() && self.large.is_empty()
    }

    pub fn contains(&self, name: &str) -> bool {
        self.small.iter().any(|n| n == name) || self.large.contains(name)
    }
}

/// A `nonResourceURLs` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UrlPattern {
    /// `*`.
    Any,
    /// `/healthz`.
    Exact(String),
    /// `/apis*` matches every path starting with `/apis` (kube trims every trailing `*`).
    Prefix(String),
}

impl UrlPattern {
    pub fn new(spec: &str) -> UrlPattern {
        match spec {
            "*" => UrlPattern::Any,
            s if s.ends_with('*') => UrlPattern::Prefix(s.trim_end_matches('*').to_owned()),
            s => UrlPattern::Exact(s.to_owned()),
        }
    }

    fn matches(&self, path: &str) -> bool {
        match self {
            UrlPattern::Any => true,
            UrlPattern::Exact(spec) => spec == path,
            UrlPattern::Prefix(prefix) => path.starts_with(prefix.as_str()),
        }
    }
}

/// A `resources` entry: a group (`None` for `*`), its resources, their names.
#[derive(Clone, Debug, Default)]
pub struct GroupResources {
    pub group: Option<String>,
    pub resources: Vec<String>,
    pub resource_names: Names,
}

impl GroupResources {
    fn matches(&self, info: &RequestInfo) -> bool {
        if self.group.as_ref().is_some_and(|g| *g != info.api_group) {
            return false;
        }
        if self.resources.is_empty() {
            return true;
        }
        if !self.resource_names.is_empty() && !self.resource_names.contains(&info.name) {
            return false;
        }
        let subresource = info.subresource.as_str();
        self.resources
            .iter()
            .any(|res| resource_matches(res, &info.resource, subresource))
    }
}

/// Whether a policy resource (`pods`, `pods/log`, `*`, `*/status`, `pods/*`) names a
/// request's resource and subresource.
pub fn resource_matches(res: &str, resource: &str, subresource: &str) -> bool {
    if res == "*" || combined_equals(res, resource, subresource) {
        return true;
    }
    if !subresource.is_empty() && res.strip_prefix("*/") == Some(subresource) {
        return true;
    }
    res.strip_suffix("/*") == Some(resource)
}

/// `res == resource + "/" + subresource` (or `res == resource` without a subresource),
/// without building the combined name.
fn combined_equals(res: &str, resource: &str, subresource: &str) -> bool {
    if subresource.is_empty() {
        return res == resource;
    }
    res.strip_prefix(resource)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|rest| rest == subresource)
}

/// One rule, compiled.
#[derive(Clone, Debug)]
pub struct Rule {
    pub level: Level,
    pub users: Names,
    pub user_groups: Names,
    pub verbs: Names,
    pub resources: Vec<GroupResources>,
    pub namespaces: Names,
    pub non_resource_urls: Vec<UrlPattern>,
    /// The policy's omitStages and the rule's, together.
    pub omit_stages: Vec<Stage>,
    pub omit_managed_fields: Option<bool>,
}

impl Rule {
    /// kube's `ruleMatches`.
    pub fn matches(&self, user: &UserInfo, info: &RequestInfo) -> bool {
        if !self.users.is_empty() && !self.users.contains(&user.name) {
            return false;
        }
        if !self.user_groups.is_empty() && !user.groups.iter().any(|g| self.user_groups.contains(g))
        {
            return false;
        }
        if !self.verbs.is_empty() && !self.verbs.contains(info.verb.as_str()) {
            return false;
        }
        if !self.namespaces.is_empty() || !self.resources.is_empty() {
            return self.matches_resource(info);
        }
        if !self.non_resource_urls.is_empty() {
            return !info.is_resource_request
                && self.non_resource_urls.iter().any(|u| u.matches(&info.path));
        }
        true
    }

    fn matches_resource(&self, info: &RequestInfo) -> bool {
        if !info.is_resource_request {
            return false;
        }
        // Cluster-scoped requests have the namespace "".
        if !self.namespaces.is_empty() && !self.namespaces.contains(&info.namespace) {
            return false;
        }
        self.resources.is_empty() || self.resources.iter().any(|gr| gr.matches(info))
    }
}
