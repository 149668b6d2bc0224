//! A webhook's `rules` (kube's `RuleWithOperations`) and whether a request matches one,
//! as k8s.io/apiserver's `admission/plugin/webhook/predicates/rules` decides: scope,
//! operation, API group, API version and `resource/subresource`, each with `*`.

use k8s_openapi::api::admissionregistration::v1::RuleWithOperations;

use crate::admission::Operation;

/// Which objects a rule's `scope` covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `*` or unset.
    All,
    /// `Cluster`: cluster-scoped objects (and core Namespaces).
    Cluster,
    /// `Namespaced`: namespaced objects.
    Namespaced,
    /// A value kube does not know: matches nothing, as kube's `default: return false`.
    Unknown,
}

impl Scope {
    fn of(scope: Option<&str>) -> Scope {
        match scope {
            None | Some("*") => Scope::All,
            Some("Cluster") => Scope::Cluster,
            Some("Namespaced") => Scope::Namespaced,
            Some(_) => Scope::Unknown,
        }
    }
}

/// One compiled rule: the lists as the configuration gives them (an absent list matches
/// nothing, as in kube), resources split at their first `/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub operations: Vec<String>,
    pub api_groups: Vec<String>,
    pub api_versions: Vec<String>,
    /// `(resource, subresource)`: `widgets` is `("widgets", "")`, `*/status` is
    /// `("*", "status")`, `widgets/*` is `("widgets", "*")`.
    pub resources: Vec<(String, String)>,
    pub scope: Scope,
}

/// What a rule is matched against: the request's operation, resource (group, version,
/// plural), subresource and namespace (`""` for a cluster-scoped object).
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    pub operation: Operation,
    pub group: &'a str,
    pub version: &'a str,
    pub resource: &'a str,
    pub subresource: &'a str,
    pub namespace: &'a str,
}

/// kube's operation names (`admissionregistration.v1.OperationType`).
pub fn operation_name(operation: Operation) -> &'static str {
    match operation {
        Operation::Create => "CREATE",
        Operation::Update => "UPDATE",
        Operation::Delete => "DELETE",
    }
}

impl Rule {
    pub fn compile(rule: &RuleWithOperations) -> Rule {
        let list = |l: &Option<Vec<String>>| l.clone().unwrap_or_default();
        let resources = rule.resources.iter().flatten().map(|r| split(r)).collect();
        Rule {
            operations: list(&rule.operations),
            api_groups: list(&rule.api_groups),
            api_versions: list(&rule.api_versions),
            resources,
            scope: Scope::of(rule.scope.as_deref()),
        }
    }

    /// kube's `Matcher.Matches`.
    pub fn matches(&self, target: &Target<'_>) -> bool {
        self.scope_matches(target)
            && exact_or_wildcard(&self.operations, operation_name(target.operation))
            && exact_or_wildcard(&self.api_groups, target.group)
            && exact_or_wildcard(&self.api_versions, target.version)
            && self.resource_matches(target)
    }

    fn scope_matches(&self, target: &Target<'_>) -> bool {
        // Core Namespaces are cluster-scoped though their requests carry a namespace.
        let namespace_object =
            target.group.is_empty() && target.version == "v1" && target.resource == "namespaces";
        match self.scope {
            Scope::All => true,
            Scope::Namespaced => !namespace_object && !target.namespace.is_empty(),
            Scope::Cluster => namespace_object || target.namespace.is_empty(),
            Scope::Unknown => false,
        }
    }

    fn resource_matches(&self, target: &Target<'_>) -> bool {
        self.resources.iter().any(|(resource, sub)| {
            (resource == "*" || resource == target.resource)
                && (sub == "*" || sub == target.subresource)
        })
    }
}

fn split(resource: &str) -> (String, String) {
    match resource.split_once('/') {
        Some((resource, sub)) => (resource.to_string(), sub.to_string()),
        None => (resource.to_string(), String::new()),
    }
}

fn exact_or_wildcard(items: &[String], requested: &str) -> bool {
    items.iter().any(|item| item == "*" || item == requested)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::Operation::{Create, Delete, Update};

    fn rule(
        ops: &[&str],
        groups: &[&str],
        versions: &[&str],
        resources: &[&str],
        scope: Option<&str>,
    ) -> Rule {
        let list = |l: &[&str]| Some(l.iter().map(|s| s.to_string()).collect());
        Rule::compile(&RuleWithOperations {
            operations: list(ops),
            api_groups: list(groups),
            api_versions: list(versions),
            resources: list(resources),
            scope: scope.map(str::to_string),
        })
    }

    fn target<'a>(
        operation: Operation,
        resource: &'a str,
        sub: &'a str,
        ns: &'a str,
    ) -> Target<'a> {
        Target {
            operation,
            group: "stable.example.com",
            version: "v1",
            resource,
            subresource: sub,
            namespace: ns,
        }
    }

    #[test]
    fn matches_follows_kubes_rule_matcher() {
        let g = ["stable.example.com"];
        let v = ["v1"];
        let crontabs = target(Create, "crontabs", "", "ns");
        let status = target(Update, "crontabs", "status", "ns");
        let scale = target(Update, "crontabs", "scale", "ns");
        let cluster = target(Create, "crontabs", "", "");
        let cases: Vec<(&str, Rule, Target, bool)> = vec![
            (
                "exact",
                rule(&["CREATE"], &g, &v, &["crontabs"], None),
                crontabs,
                true,
            ),
            (
                "op *",
                rule(&["*"], &g, &v, &["crontabs"], None),
                target(Delete, "crontabs", "", "ns"),
                true,
            ),
            (
                "op miss",
                rule(&["UPDATE"], &g, &v, &["crontabs"], None),
                crontabs,
                false,
            ),
            (
                "op absent",
                rule(&[], &g, &v, &["crontabs"], None),
                crontabs,
                false,
            ),
            (
                "group *",
                rule(&["*"], &["*"], &v, &["crontabs"], None),
                crontabs,
                true,
            ),
            (
                "group miss",
                rule(&["*"], &["apps"], &v, &["crontabs"], None),
                crontabs,
                false,
            ),
            (
                "version miss",
                rule(&["*"], &g, &["v2"], &["crontabs"], None),
                crontabs,
                false,
            ),
            (
                "version *",
                rule(&["*"], &g, &["*"], &["crontabs"], None),
                crontabs,
                true,
            ),
            (
                "resource *",
                rule(&["*"], &g, &v, &["*"], None),
                crontabs,
                true,
            ),
            (
                "resource miss",
                rule(&["*"], &g, &v, &["widgets"], None),
                crontabs,
                false,
            ),
            (
                "* leaves status out",
                rule(&["*"], &g, &v, &["*"], None),
                status,
                false,
            ),
            (
                "plain leaves status out",
                rule(&["*"], &g, &v, &["crontabs"], None),
                status,
                false,
            ),
            (
                "*/status",
                rule(&["*"], &g, &v, &["*/status"], None),
                status,
                true,
            ),
            (
                "*/status not main",
                rule(&["*"], &g, &v, &["*/status"], None),
                crontabs,
                false,
            ),
            (
                "crontabs/status",
                rule(&["*"], &g, &v, &["crontabs/status"], None),
                status,
                true,
            ),
            (
                "crontabs/status not scale",
                rule(&["*"], &g, &v, &["crontabs/status"], None),
                scale,
                false,
            ),
            (
                "crontabs/*",
                rule(&["*"], &g, &v, &["crontabs/*"], None),
                scale,
                true,
            ),
            (
                "crontabs/* main too",
                rule(&["*"], &g, &v, &["crontabs/*"], None),
                crontabs,
                true,
            ),
            ("*/*", rule(&["*"], &g, &v, &["*/*"], None), status, true),
            (
                "scope * namespaced",
                rule(&["*"], &g, &v, &["*"], Some("*")),
                crontabs,
                true,
            ),
            (
                "scope * cluster",
                rule(&["*"], &g, &v, &["*"], Some("*")),
                cluster,
                true,
            ),
            (
                "Namespaced hit",
                rule(&["*"], &g, &v, &["*"], Some("Namespaced")),
                crontabs,
                true,
            ),
            (
                "Namespaced miss",
                rule(&["*"], &g, &v, &["*"], Some("Namespaced")),
                cluster,
                false,
            ),
            (
                "Cluster hit",
                rule(&["*"], &g, &v, &["*"], Some("Cluster")),
                cluster,
                true,
            ),
            (
                "Cluster miss",
                rule(&["*"], &g, &v, &["*"], Some("Cluster")),
                crontabs,
                false,
            ),
            (
                "unknown scope",
                rule(&["*"], &g, &v, &["*"], Some("Everywhere")),
                crontabs,
                false,
            ),
        ];
        for (name, rule, target, want) in cases {
            assert_eq!(rule.matches(&target), want, "{name}");
        }
    }

    #[test]
    fn scope_core_namespaces_are_cluster_scoped() {
        let namespaces = Target {
            operation: Create,
            group: "",
            version: "v1",
            resource: "namespaces",
            subresource: "",
            namespace: "ns",
        };
        let all = ["*"];
        let cluster = rule(&all, &all, &all, &all, Some("Cluster"));
        let namespaced = rule(&all, &all, &all, &all, Some("Namespaced"));
        assert!(cluster.matches(&namespaces));
        assert!(!namespaced.matches(&namespaces));
    }

    #[test]
    fn operation_name_is_kubes() {
        let names = [Create, Update, Delete].map(operation_name);
        assert_eq!(names, ["CREATE", "UPDATE", "DELETE"]);
    }
}
