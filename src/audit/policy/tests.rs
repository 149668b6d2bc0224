//! Tables for the policy's evaluation: every matching rule of kube's checker.go.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use super::*;
use crate::request::info;
use crate::request::query::Query;

fn policy(yaml: &str) -> Policy {
    Policy::from_bytes(yaml.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{yaml}"))
}

fn user(name: &str, groups: &[&str]) -> UserInfo {
    UserInfo::new(name.into(), groups.iter().map(|g| g.to_string()).collect())
}

fn request(method: &str, path: &str) -> RequestInfo {
    info::parse(method, path, &Query::parse(""))
}

/// One rule at `Request` level and a catch-all `Metadata` rule: `Request` means matched.
fn matched(rule: &str, who: &UserInfo, method: &str, path: &str) -> bool {
    let yaml = format!(
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Request\n{rule}\n- level: Metadata\n"
    );
    let level = policy(&yaml).evaluate(who, &request(method, path)).level;
    assert_ne!(level, Level::None, "the catch-all rule must match");
    level == Level::Request
}

#[test]
fn rule_matching_follows_kube_checker() {
    let alice = user("alice", &["devs", "system:authenticated"]);
    let bob = user("bob", &["ops"]);
    let pods = "/api/v1/namespaces/ns1/pods";
    let foos = "/apis/stable.example.com/v1/namespaces/ns1/foos";
    #[rustfmt::skip]
    let cases: &[(&str, &str, &UserInfo, &str, &str, bool)] = &[
        ("users_listed", "  users: [alice]", &alice, "GET", pods, true),
        ("users_other", "  users: [alice]", &bob, "GET", pods, false),
        ("user_groups_any_group", "  userGroups: [devs, x]", &alice, "GET", pods, true),
        ("user_groups_none", "  userGroups: [devs]", &bob, "GET", pods, false),
        ("verbs_list", "  verbs: [list]", &alice, "GET", pods, true),
        ("verbs_get_vs_list", "  verbs: [get]", &alice, "GET", pods, false),
        ("verbs_create", "  verbs: [create]", &alice, "POST", pods, true),
        ("verbs_watch_query", "  verbs: [watch]", &alice, "GET", "/api/v1/watch/namespaces/ns1/pods", true),
        ("verbs_nonresource_method", "  verbs: [get]", &alice, "GET", "/healthz", true),
        ("verbs_nonresource_post", "  verbs: [get]", &alice, "POST", "/healthz", false),
        ("core_group", "  resources: [{group: \"\"}]", &alice, "GET", pods, true),
        ("core_group_not_custom", "  resources: [{group: \"\"}]", &alice, "GET", foos, false),
        ("custom_group", "  resources: [{group: stable.example.com}]", &alice, "GET", foos, true),
        ("star_group", "  resources: [{group: \"*\", resources: [foos]}]", &alice, "GET", foos, true),
        ("resource_named", "  resources: [{group: \"\", resources: [pods]}]", &alice, "GET", pods, true),
        ("resource_other", "  resources: [{group: \"\", resources: [secrets]}]", &alice, "GET", pods, false),
        ("resource_star", "  resources: [{group: \"\", resources: [\"*\"]}]", &alice, "GET", "/api/v1/namespaces/ns1/pods/p/log", true),
        ("plain_resource_not_subresource", "  resources: [{group: \"\", resources: [pods]}]", &alice, "GET", "/api/v1/namespaces/ns1/pods/p/log", false),
        ("subresource_named", "  resources: [{group: \"\", resources: [pods/log]}]", &alice, "GET", "/api/v1/namespaces/ns1/pods/p/log", true),
        ("subresource_not_parent", "  resources: [{group: \"\", resources: [pods/log]}]", &alice, "GET", "/api/v1/namespaces/ns1/pods/p", false),
        ("subresource_other", "  resources: [{group: \"\", resources: [pods/log]}]", &alice, "GET", "/api/v1/namespaces/ns1/pods/p/exec", false),
        ("star_subresource", "  resources: [{group: \"*\", resources: [\"*/status\"]}]", &alice, "PUT", "/apis/stable.example.com/v1/namespaces/ns1/foos/a/status", true),
        ("star_subresource_not_main", "  resources: [{group: \"*\", resources: [\"*/status\"]}]", &alice, "PUT", "/apis/stable.example.com/v1/namespaces/ns1/foos/a", false),
        ("resource_star_sub", "  resources: [{group: \"*\", resources: [\"foos/*\"]}]", &alice, "PUT", "/apis/stable.example.com/v1/namespaces/ns1/foos/a/scale", true),
        ("resource_star_sub_main_too", "  resources: [{group: \"*\", resources: [\"foos/*\"]}]", &alice, "GET", "/apis/stable.example.com/v1/namespaces/ns1/foos/a", true),
        ("resource_star_sub_other", "  resources: [{group: \"*\", resources: [\"bars/*\"]}]", &alice, "GET", foos, false),
        ("resource_names_listed", "  resources: [{group: \"\", resources: [pods], resourceNames: [p]}]", &alice, "GET", "/api/v1/namespaces/ns1/pods/p", true),
        ("resource_names_other", "  resources: [{group: \"\", resources: [pods], resourceNames: [p]}]", &alice, "GET", "/api/v1/namespaces/ns1/pods/q", false),
        ("resource_names_list_unnamed", "  resources: [{group: \"\", resources: [pods], resourceNames: [p]}]", &alice, "GET", pods, false),
        ("resource_names_second_entry", "  resources: [{group: \"\", resources: [pods], resourceNames: [p]}, {group: \"\", resources: [pods]}]", &alice, "GET", pods, true),
        ("namespaces_listed", "  namespaces: [ns1]", &alice, "GET", pods, true),
        ("namespaces_other", "  namespaces: [ns2]", &alice, "GET", pods, false),
        ("namespaces_cluster_scope", "  namespaces: [\"\"]", &alice, "GET", "/apis/stable.example.com/v1/bars", true),
        ("namespaces_cluster_scope_not_namespaced", "  namespaces: [\"\"]", &alice, "GET", pods, false),
        ("namespaces_all_namespaces_list", "  namespaces: [\"\"]", &alice, "GET", "/api/v1/pods", true),
        ("namespaces_not_nonresource", "  namespaces: [ns1]", &alice, "GET", "/healthz", false),
        ("resources_not_nonresource", "  resources: [{group: \"*\"}]", &alice, "GET", "/apis", false),
        ("urls_exact", "  nonResourceURLs: [/healthz]", &alice, "GET", "/healthz", true),
        ("urls_exact_not_longer", "  nonResourceURLs: [/healthz]", &alice, "GET", "/healthz/ping", false),
        ("urls_prefix", "  nonResourceURLs: [\"/healthz*\"]", &alice, "GET", "/healthz/ping", true),
        ("urls_prefix_bare", "  nonResourceURLs: [\"/healthz*\"]", &alice, "GET", "/healthzz", true),
        ("urls_prefix_other", "  nonResourceURLs: [\"/livez*\"]", &alice, "GET", "/healthz", false),
        ("urls_star", "  nonResourceURLs: [\"*\"]", &alice, "GET", "/version", true),
        ("urls_not_resource_request", "  nonResourceURLs: [\"*\"]", &alice, "GET", pods, false),
        ("urls_group_discovery", "  nonResourceURLs: [\"/apis*\"]", &alice, "GET", "/apis/stable.example.com/v1", true),
        ("all_fields_and", "  users: [alice]\n  verbs: [create]\n  namespaces: [ns1]\n  resources: [{group: \"\", resources: [pods]}]", &alice, "POST", pods, true),
        ("all_fields_one_fails", "  users: [alice]\n  verbs: [delete]\n  namespaces: [ns1]\n  resources: [{group: \"\", resources: [pods]}]", &alice, "POST", pods, false),
        ("empty_rule_matches_all", "", &bob, "DELETE", "/healthz", true),
    ];
    for (name, rule, who, method, path, want) in cases {
        assert_eq!(matched(rule, who, method, path), *want, "{name}");
    }
}

#[test]
fn resource_matches_every_pattern_kind() {
    #[rustfmt::skip]
    let cases = [
        ("*", "pods", "", true),
        ("*", "pods", "log", true),
        ("pods", "pods", "", true),
        ("pods", "pods", "log", false),
        ("pods/log", "pods", "log", true),
        ("pods/log", "pods", "", false),
        ("pods/log", "podsx", "log", false),
        ("pod/slog", "pods", "log", false),
        ("*/log", "pods", "log", true),
        ("*/log", "pods", "", false),
        ("*/", "pods", "", false),
        ("pods/*", "pods", "", true),
        ("pods/*", "pods", "log", true),
        ("pods/*", "secrets", "log", false),
        ("*/*", "pods", "log", false),
        ("*/*", "pods", "*", true),
    ];
    for (res, resource, sub, want) in cases {
        assert_eq!(
            rule::resource_matches(res, resource, sub),
            want,
            "{res} vs {resource}/{sub}"
        );
    }
}

#[test]
fn evaluate_first_match_wins() {
    let p = policy(
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n  users: [alice]\n- level: None\n  users: [alice, bob]\n- level: Metadata\n",
    );
    let get = request("GET", "/api/v1/namespaces/a/pods");
    let level = |name| p.evaluate(&user(name, &[]), &get).level;
    assert_eq!(level("alice"), Level::RequestResponse);
    assert_eq!(level("bob"), Level::None);
    assert_eq!(level("carol"), Level::Metadata);
}

#[test]
fn evaluate_no_rule_matching_none_with_policy_settings() {
    let p = policy(
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nomitManagedFields: true\nrules:\n- level: Metadata\n  users: [alice]\n",
    );
    let got = p.evaluate(&user("bob", &[]), &request("GET", "/healthz"));
    assert_eq!(
        got,
        RequestAuditConfig {
            level: Level::None,
            omit_stages: vec![Stage::RequestReceived],
            omit_managed_fields: true,
        }
    );
    let empty = Policy::default().evaluate(&user("bob", &[]), &request("GET", "/healthz"));
    assert_eq!(empty.level, Level::None);
    assert!(empty.omit_stages.is_empty() && !empty.omit_managed_fields);
}

#[test]
fn evaluate_omit_stages_policy_union_rule() {
    let p = policy(
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Request\n  users: [alice]\n  omitStages: [ResponseStarted, RequestReceived, ResponseStarted]\n- level: Metadata\n",
    );
    let get = request("GET", "/healthz");
    let alice = p.evaluate(&user("alice", &[]), &get);
    assert_eq!(
        alice.omit_stages,
        vec![Stage::RequestReceived, Stage::ResponseStarted]
    );
    let bob = p.evaluate(&user("bob", &[]), &get);
    assert_eq!(bob.omit_stages, vec![Stage::RequestReceived]);
}

#[test]
fn evaluate_omit_managed_fields_rule_overrides_policy() {
    let p = policy(
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitManagedFields: true\nrules:\n- level: Request\n  users: [a]\n  omitManagedFields: false\n- level: Request\n  users: [b]\n- level: Request\n  users: [c]\n  omitManagedFields: true\n",
    );
    let get = request("GET", "/healthz");
    let omit = |name| p.evaluate(&user(name, &[]), &get).omit_managed_fields;
    assert!(!omit("a"), "the rule's false beats the policy's true");
    assert!(omit("b"), "no rule setting: the policy's");
    assert!(omit("c"));
    let q = policy(
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Request\n  omitManagedFields: true\n",
    );
    assert!(q.evaluate(&user("x", &[]), &get).omit_managed_fields);
}

#[test]
fn names_large_lists_use_a_set_same_answers() {
    let many: Vec<String> = (0..100).map(|i| format!("u{i}")).collect();
    let names = rule::Names::new(&many);
    assert!(names.contains("u0") && names.contains("u99"));
    assert!(!names.contains("u100") && !names.is_empty());
    let few = rule::Names::new(&many[..3]);
    assert!(few.contains("u2") && !few.contains("u3"));
    assert!(rule::Names::new(&[]).is_empty());
}
