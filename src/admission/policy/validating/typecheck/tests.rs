//! The type checker against kube's `typechecking_test.go` cases, over a real catalog
//! (CronTab and Widget CRDs, schemas read back from the published OpenAPI v3).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use k8s_openapi::api::admissionregistration::v1::{
    ValidatingAdmissionPolicy, ValidatingAdmissionPolicySpec,
};
use serde_json::{Value, json};

use super::warnings::{METRIC, TypeChecks, TypeWarnings};
use super::*;
use crate::admission::policy::generic::kinds::ValidatingPolicies;
use crate::admission::policy::generic::source::{BindingSink, Followed, ParamSources, PolicySink};
use crate::cluster::informer::Sink;
use crate::crd::catalog::Catalog;

fn crd(group: &str, plural: &str, kind: &str, versions: &[&str], spec: Value) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            json!({"name": v, "served": true, "storage": i == 0,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}}})
        })
        .collect();
    let singular = kind.to_lowercase();
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {"group": group, "scope": "Namespaced",
            "names": {"plural": plural, "singular": singular, "kind": kind},
            "versions": versions}})
}

fn catalog() -> Catalog {
    let crontab = json!({"type": "object", "properties": {
        "cronSpec": {"type": "string"}, "replicas": {"type": "integer"},
        "image": {"type": "string"}}});
    let widget = json!({"type": "object", "properties": {"size": {"type": "integer"}}});
    let crds = [
        crd(
            "stable.example.com",
            "crontabs",
            "CronTab",
            &["v1"],
            crontab,
        ),
        crd(
            "widgets.example.com",
            "widgets",
            "Widget",
            &["v1", "v2"],
            widget,
        ),
    ];
    let crds: Vec<_> = crds
        .into_iter()
        .map(|c| serde_json::from_value(c).unwrap())
        .collect();
    Catalog::build(&crds).unwrap()
}

fn crontabs() -> Value {
    json!({"resourceRules": [{"operations": ["CREATE"], "apiGroups": ["stable.example.com"],
        "apiVersions": ["v1"], "resources": ["crontabs"]}]})
}

fn spec(fields: Value) -> ValidatingAdmissionPolicySpec {
    let mut spec = json!({"matchConstraints": crontabs()});
    for (k, v) in fields.as_object().unwrap() {
        spec[k] = v.clone();
    }
    serde_json::from_value(spec).unwrap()
}

fn validations(expressions: &[&str]) -> Value {
    let list: Vec<Value> = expressions
        .iter()
        .map(|e| json!({"expression": e}))
        .collect();
    Value::Array(list)
}

fn warning(field_ref: &str, text: &str) -> ExpressionWarning {
    ExpressionWarning {
        field_ref: field_ref.to_string(),
        warning: text.to_string(),
    }
}

const CRONTAB: &str = "stable.example.com/v1, Kind=CronTab";

#[test]
fn check_policy_against_crontab_schema_kube_warnings() {
    let catalog = catalog();
    let cases: Vec<(&str, Value, Vec<ExpressionWarning>)> = vec![
        ("empty", json!({}), vec![]),
        (
            "passed check, metadata is ObjectMeta",
            json!({"validations": validations(&[
                "object.spec.cronSpec == 'x' && object.spec.replicas > 1",
                "object.metadata.name.startsWith('a') && object.metadata.labels['x'] == 'y'",
                "has(object.metadata.creationTimestamp) && object.metadata.generation > 0",
                "object.apiVersion == 'stable.example.com/v1' && object.kind == 'CronTab'",
                "oldObject == null || oldObject.spec.replicas <= object.spec.replicas",
            ])}),
            vec![],
        ),
        (
            "undefined field",
            json!({"validations": validations(&["object.spec.cronSpecs == 'x'"])}),
            vec![warning(
                "spec.validations[0].expression",
                &format!(
                    "{CRONTAB}: ERROR: <input>:1:12: undefined field 'cronSpecs'\n | object.spec.cronSpecs == 'x'\n | ...........^\n"
                ),
            )],
        ),
        (
            "field type mismatch",
            json!({"validations": validations(&["true", "object.spec.replicas == 'three'"])}),
            vec![warning(
                "spec.validations[1].expression",
                &format!(
                    "{CRONTAB}: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(int, string)'\n | object.spec.replicas == 'three'\n | .....................^\n"
                ),
            )],
        ),
        (
            "message expressions",
            json!({"validations": [{"expression": "true",
                "messageExpression": "'bad: ' + object.spec.size"}]}),
            vec![warning(
                "spec.validations[0].messageExpression",
                &format!(
                    "{CRONTAB}: ERROR: <input>:1:22: undefined field 'size'\n | 'bad: ' + object.spec.size\n | .....................^\n"
                ),
            )],
        ),
        (
            "output type not enforced",
            json!({"validations": [{"expression": "object.spec.replicas",
                "messageExpression": "object.spec.replicas"}]}),
            vec![],
        ),
        (
            "authorizer",
            json!({"validations": validations(&[
                "authorizer.group('').resource('pods').check('get').allowed()"])}),
            vec![],
        ),
        (
            "authorizer invalid",
            json!({"validations": validations(&["authorizer.allowed()"])}),
            vec![warning(
                "spec.validations[0].expression",
                &format!(
                    "{CRONTAB}: ERROR: <input>:1:19: found no matching overload for 'allowed' applied to 'kubernetes.authorization.Authorizer.()'\n | authorizer.allowed()\n | ..................^\n"
                ),
            )],
        ),
        (
            "variables typed by their expressions",
            json!({"variables": [{"name": "n", "expression": "object.spec.replicas"}],
                "validations": validations(&["variables.n > 1", "variables.n == object.spec.cronSpec"])}),
            vec![warning(
                "spec.validations[1].expression",
                &format!(
                    "{CRONTAB}: ERROR: <input>:1:13: found no matching overload for '_==_' applied to '(int, string)'\n | variables.n == object.spec.cronSpec\n | ............^\n"
                ),
            )],
        ),
        (
            "error in variables not reported",
            json!({"variables": [{"name": "n", "expression": "object.spec.nope"}],
                "validations": validations(&["variables.n == 1"])}),
            vec![],
        ),
        (
            "params of our kind typed",
            json!({"paramKind": {"apiVersion": "widgets.example.com/v1", "kind": "Widget"},
                "validations": validations(&["params.spec.size > object.spec.replicas", "params.spec.color == 'red'"])}),
            vec![warning(
                "spec.validations[1].expression",
                &format!(
                    "{CRONTAB}: ERROR: <input>:1:12: undefined field 'color'\n | params.spec.color == 'red'\n | ...........^\n"
                ),
            )],
        ),
        (
            "params of a host kind dyn",
            json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
                "validations": validations(&["params.data.x == object.spec.cronSpec"])}),
            vec![],
        ),
        (
            "params with a bad apiVersion undeclared",
            json!({"paramKind": {"apiVersion": "a/b/c", "kind": "Widget"},
                "validations": validations(&["params == null"])}),
            vec![warning(
                "spec.validations[0].expression",
                &format!(
                    "{CRONTAB}: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params == null\n | ^\n"
                ),
            )],
        ),
        (
            "every matched kind, sorted, joined",
            json!({"matchConstraints": {"resourceRules": [{"apiGroups": ["widgets.example.com", "stable.example.com"],
                    "apiVersions": ["v2", "v1"], "resources": ["widgets", "crontabs"]}]},
                "validations": validations(&["object.spec.replicas > 0"])}),
            vec![warning(
                "spec.validations[0].expression",
                "widgets.example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'replicas'\n | object.spec.replicas > 0\n | ...........^\n\nwidgets.example.com/v2, Kind=Widget: ERROR: <input>:1:12: undefined field 'replicas'\n | object.spec.replicas > 0\n | ...........^\n",
            )],
        ),
        (
            "no resource of ours",
            json!({"matchConstraints": {"resourceRules": [{"apiGroups": [""],
                    "apiVersions": ["v1"], "resources": ["pods"]}]},
                "validations": validations(&["object.spec.nope"])}),
            vec![],
        ),
    ];
    for (name, fields, want) in cases {
        assert_eq!(check(&spec(fields), &catalog), want, "{name}");
    }
}

fn rules(rules: Value) -> ValidatingAdmissionPolicySpec {
    spec(json!({"matchConstraints": {"resourceRules": rules}}))
}

fn kinds(spec: &ValidatingAdmissionPolicySpec, catalog: &Catalog) -> Vec<String> {
    types_to_check(spec, catalog)
        .iter()
        .map(gvk_string)
        .collect()
}

#[test]
fn types_to_check_rules_kube_resolution() {
    let catalog = catalog();
    let widgets = |v: &str| format!("widgets.example.com/{v}, Kind=Widget");
    let cases: Vec<(&str, Value, Vec<String>)> = vec![
        ("no rules", json!([]), vec![]),
        (
            "wildcard group skips the rule",
            json!([{"apiGroups": ["*"], "apiVersions": ["v1"], "resources": ["crontabs"]}]),
            vec![],
        ),
        (
            "wildcard version skips the rule",
            json!([{"apiGroups": ["stable.example.com"], "apiVersions": ["*"], "resources": ["crontabs"]}]),
            vec![],
        ),
        (
            "wildcard and subresources left out",
            json!([{"apiGroups": ["widgets.example.com"], "apiVersions": ["v1"],
                "resources": ["*", "widgets/status", "widgets"]}]),
            vec![widgets("v1")],
        ),
        (
            "singular and upper case names",
            json!([{"apiGroups": ["stable.example.com"], "apiVersions": ["v1"], "resources": ["CronTab"]}]),
            vec![CRONTAB.to_string()],
        ),
        (
            "the core group is any group (RESTMapper)",
            json!([{"apiGroups": [""], "apiVersions": ["v2"], "resources": ["widgets", "pods"]}]),
            vec![widgets("v2")],
        ),
        (
            "kinds of several rules, sorted and unique",
            json!([{"apiGroups": ["widgets.example.com"], "apiVersions": ["v2"], "resources": ["widgets"]},
                {"apiGroups": ["stable.example.com", "widgets.example.com"], "apiVersions": ["v1", "v2"],
                    "resources": ["crontabs", "widgets"]}]),
            vec![CRONTAB.to_string(), widgets("v1"), widgets("v2")],
        ),
    ];
    for (name, rules_json, want) in cases {
        assert_eq!(kinds(&rules(rules_json), &catalog), want, "{name}");
    }
}

/// `n` kinds per resource name: resolution stops at the tenth of one rule.
struct Many;

impl Schemas for Many {
    fn kinds_for(&self, group: &str, version: &str, resource: &str) -> Vec<Gvk> {
        let kind = |i: usize| Gvk {
            group: group.to_string(),
            version: version.to_string(),
            kind: format!("{resource}{i:02}"),
        };
        (0..4).map(kind).collect()
    }
    fn decl_type(&self, _gvk: &Gvk) -> Option<Arc<DeclType>> {
        None
    }
}

#[test]
fn types_to_check_many_kinds_stops_at_ten() {
    let spec =
        rules(json!([{"apiGroups": ["g"], "apiVersions": ["v"], "resources": ["c", "b", "a"]}]));
    let found = types_to_check(&spec, &Many);
    let names: Vec<&str> = found.iter().map(|g| g.kind.as_str()).collect();
    let want = [
        "a00", "a01", "a02", "a03", "b00", "b01", "b02", "b03", "c00", "c01",
    ];
    assert_eq!(names, want);
}

struct NoParams;

impl ParamSources for NoParams {
    fn ensure(
        &self,
        _kind: &crate::admission::policy::generic::params::ParamKindRef,
    ) -> Arc<dyn crate::admission::policy::generic::params::ParamStore> {
        unreachable!("no policy here has a paramKind")
    }
    fn retain(&self, _used: &[Gvk]) {}
}

fn policy(name: &str, expression: &str) -> ValidatingAdmissionPolicy {
    serde_json::from_value(json!({"metadata": {"name": name},
        "spec": spec_json(expression)}))
    .unwrap()
}

fn spec_json(expression: &str) -> Value {
    json!({"matchConstraints": crontabs(), "validations": [{"expression": expression}]})
}

fn series(metrics: &crate::metrics::Metrics) -> Vec<String> {
    let mut lines: Vec<String> = metrics
        .render()
        .lines()
        .filter(|l| l.starts_with(METRIC))
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

#[test]
fn type_warnings_follow_policy_generations_series_set_and_removed() {
    let mut metrics = crate::metrics::Metrics::new();
    let warnings = TypeWarnings::register(&mut metrics);
    let served = Arc::new(catalog());
    let checks = Arc::new(TypeChecks {
        catalog: Arc::new(move || served.clone()),
        warnings: warnings.clone(),
    });
    let followed = Arc::new(Followed::<ValidatingPolicies>::with_hook(
        Arc::new(NoParams),
        Some(checks),
    ));
    let policies = PolicySink(followed.clone());
    BindingSink(followed.clone()).replace(vec![]);
    let series_of = |policy: &str| {
        format!("{METRIC}{{field_ref=\"spec.validations[0].expression\",policy=\"{policy}\"}} 1")
    };
    policies.replace(vec![
        policy("bad", "object.spec.nope == 1"),
        policy("good", "object.spec.replicas == 1"),
    ]);
    assert_eq!(series(&metrics), vec![series_of("bad")]);
    policies.upsert(policy("other", "object.spec.cronSpec == 1"));
    assert_eq!(series(&metrics), vec![series_of("bad"), series_of("other")]);
    policies.upsert(policy("bad", "object.spec.replicas == 1"));
    assert_eq!(series(&metrics), vec![series_of("other")]);
    assert!(warnings.fields("bad").is_empty());
    policies.remove(policy("other", "object.spec.cronSpec == 1"));
    assert!(series(&metrics).is_empty());
    policies.upsert(policy("bad", "object.spec.nope == 2"));
    policies.replace(vec![policy("good", "object.spec.replicas == 1")]);
    assert!(series(&metrics).is_empty(), "a policy gone from a relist");
}
