//! Tables for reading and checking a policy file: each text is what the reference
//! (k8s.io/apiextensions-apiserver 0.36.4 with `--audit-policy-file`) printed for the same
//! file, between `loading audit policy file: ` and `: from file <path>`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use super::*;

const HEAD: &str = "apiVersion: audit.k8s.io/v1\nkind: Policy\n";
const DNS: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const STAGES: &str = "allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic";

fn error_of(text: &str) -> String {
    match Policy::from_bytes(text.as_bytes()) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn from_bytes_validation_texts_as_kube() {
    let cases: Vec<(&str, String, String)> = vec![
        (
            "level_unsupported",
            format!("{HEAD}rules:\n- level: Foo\n"),
            r#"rules[0].level: Unsupported value: "Foo": supported values: "None", "Metadata", "Request", "RequestResponse""#.into(),
        ),
        (
            "level_missing",
            format!("{HEAD}rules:\n- users: [a]\n"),
            "rules[0].level: Required value".into(),
        ),
        (
            "level_empty",
            format!("{HEAD}rules:\n- level: \"\"\n"),
            "rules[0].level: Required value".into(),
        ),
        (
            "level_html_escaped_as_json",
            format!("{HEAD}rules:\n- level: \"<x>\"\n"),
            r#"rules[0].level: Unsupported value: "\u003cx\u003e": supported values: "None", "Metadata", "Request", "RequestResponse""#.into(),
        ),
        (
            "policy_omit_stage",
            format!("{HEAD}omitStages: [Bogus]\nrules:\n- level: None\n"),
            format!(r#"omitStages[0]: Invalid value: "Bogus": {STAGES}"#),
        ),
        (
            "rule_omit_stages_each",
            format!("{HEAD}rules:\n- level: None\n  omitStages: [ResponseComplete, Bad, \"\"]\n"),
            format!(r#"[rules[0].omitStages[1]: Invalid value: "Bad": {STAGES}, rules[0].omitStages[2]: Invalid value: "": {STAGES}]"#),
        ),
        (
            "url_no_slash",
            format!("{HEAD}rules:\n- level: None\n  nonResourceURLs: [foo]\n"),
            r#"rules[0].nonResourceURLs[0]: Invalid value: "foo": non-resource URL rules must begin with a '/' character"#.into(),
        ),
        (
            "url_empty",
            format!("{HEAD}rules:\n- level: None\n  nonResourceURLs: [\"\"]\n"),
            r#"rules[0].nonResourceURLs[0]: Invalid value: "": non-resource URL rules must begin with a '/' character"#.into(),
        ),
        (
            "url_inner_star",
            format!("{HEAD}rules:\n- level: None\n  nonResourceURLs: [\"/a*b\", \"/ok*\", \"*\"]\n"),
            r#"rules[0].nonResourceURLs[0]: Invalid value: "/a*b": non-resource URL wildcards '*' must be the final character of the rule"#.into(),
        ),
        (
            "urls_with_namespaces",
            format!("{HEAD}rules:\n- level: None\n  nonResourceURLs: [/a]\n  namespaces: [\"\"]\n"),
            r#"rules[0].nonResourceURLs: Invalid value: ["/a"]: rules cannot apply to both regular resources and non-resource URLs"#.into(),
        ),
        (
            "urls_with_resources",
            format!("{HEAD}rules:\n- level: None\n  nonResourceURLs: [/a, /b]\n  resources: [{{group: \"\"}}]\n"),
            r#"rules[0].nonResourceURLs: Invalid value: ["/a","/b"]: rules cannot apply to both regular resources and non-resource URLs"#.into(),
        ),
        (
            "group_not_subdomain",
            format!("{HEAD}rules:\n- level: None\n  resources:\n  - group: \"*\"\n  - group: a/v1\n    resources: [\"*/status\"]\n"),
            format!(r#"rules[0].resources.group: Invalid value: "a/v1": {DNS}"#),
        ),
        (
            "resource_names_without_resources",
            format!("{HEAD}rules:\n- level: None\n  resources:\n  - group: \"\"\n    resourceNames: [x]\n"),
            r#"rules[0].resources.resourceNames: Invalid value: ["x"]: using resourceNames requires at least one resource"#.into(),
        ),
        (
            "zero_rules",
            HEAD.into(),
            "loaded illegal policy with 0 rules".into(),
        ),
        (
            "zero_rules_null",
            format!("{HEAD}rules: null\n"),
            "loaded illegal policy with 0 rules".into(),
        ),
    ];
    for (name, text, want) in cases {
        assert_eq!(error_of(&text), want, "{name}");
    }
}

/// The reference's answer to one file with every kind of mistake, in its order.
#[test]
fn from_bytes_every_error_in_kube_order() {
    let text = format!(
        "{HEAD}omitStages: [Bogus]\nrules:\n- level: Foo\n  nonResourceURLs: [\"foo\", \"/a*b\"]\n  namespaces: [\"\"]\n- resources:\n  - group: \"Bad_Group\"\n    resourceNames: [\"x\"]\n"
    );
    let want = format!(
        r#"[omitStages[0]: Invalid value: "Bogus": {STAGES}, rules[0].level: Unsupported value: "Foo": supported values: "None", "Metadata", "Request", "RequestResponse", rules[0].nonResourceURLs[0]: Invalid value: "foo": non-resource URL rules must begin with a '/' character, rules[0].nonResourceURLs[1]: Invalid value: "/a*b": non-resource URL wildcards '*' must be the final character of the rule, rules[0].nonResourceURLs: Invalid value: ["foo","/a*b"]: rules cannot apply to both regular resources and non-resource URLs, rules[1].level: Required value, rules[1].resources.group: Invalid value: "Bad_Group": {DNS}, rules[1].resources.resourceNames: Invalid value: ["x"]: using resourceNames requires at least one resource]"#
    );
    assert_eq!(error_of(&text), want);
}

#[test]
fn from_bytes_decoding_texts_as_kube() {
    const META: &str = "couldn't get version/kind; json parse error: json: cannot unmarshal";
    const STRUCT: &str = r#"Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#;
    let cases: Vec<(&str, String, String)> = vec![
        (
            "v1beta1",
            "apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n".into(),
            r#"failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1" in scheme "pkg/audit/scheme.go:30""#.into(),
        ),
        (
            "core_v1",
            "apiVersion: v1\nkind: Policy\nrules:\n- level: None\n".into(),
            r#"failed decoding: no kind "Policy" is registered for version "v1" in scheme "pkg/audit/scheme.go:30""#.into(),
        ),
        (
            "group_without_version",
            "apiVersion: audit.k8s.io\nkind: Policy\nrules:\n- level: None\n".into(),
            r#"failed decoding: no kind "Policy" is registered for version "audit.k8s.io" in scheme "pkg/audit/scheme.go:30""#.into(),
        ),
        (
            "other_kind",
            "apiVersion: audit.k8s.io/v1\nkind: Foo\nrules:\n- level: None\n".into(),
            r#"failed decoding: no kind "Foo" is registered for version "audit.k8s.io/v1" in scheme "pkg/audit/scheme.go:30""#.into(),
        ),
        (
            "event_list",
            "apiVersion: audit.k8s.io/v1\nkind: EventList\nrules:\n- level: None\n".into(),
            "failed decoding: converting (v1.EventList) to (audit.Policy): unknown conversion".into(),
        ),
        (
            "no_api_version",
            "kind: Policy\nrules:\n- level: None\n".into(),
            "unknown group version field audit.k8s.io/__internal, Kind=Policy in policy".into(),
        ),
        (
            "no_api_version_other_kind",
            "kind: Foo\nrules:\n- level: None\n".into(),
            r#"failed decoding: no kind "Foo" is registered for the internal version of group "audit.k8s.io" in scheme "pkg/audit/scheme.go:30""#.into(),
        ),
        (
            "empty_file",
            "".into(),
            "unknown group version field audit.k8s.io/__internal, Kind=Policy in policy".into(),
        ),
        (
            "level_number",
            format!("{HEAD}rules:\n- level: 5\n"),
            "failed decoding: json: cannot unmarshal number into Go struct field PolicyRule.rules.level of type v1.Level".into(),
        ),
        (
            "rules_string",
            format!("{HEAD}rules: x\n"),
            "failed decoding: json: cannot unmarshal string into Go struct field Policy.rules of type []v1.PolicyRule".into(),
        ),
        (
            "rule_string",
            format!("{HEAD}rules:\n- a\n"),
            "failed decoding: json: cannot unmarshal string into Go struct field Policy.rules of type v1.PolicyRule".into(),
        ),
        (
            "omit_managed_fields_string",
            format!("{HEAD}omitManagedFields: yes\nrules:\n- level: None\n  omitManagedFields: \"yes\"\n"),
            "failed decoding: json: cannot unmarshal string into Go struct field PolicyRule.rules.omitManagedFields of type bool".into(),
        ),
        (
            "resources_number",
            format!("{HEAD}rules:\n- level: None\n  resources:\n  - group: \"\"\n    resources: 5\n"),
            "failed decoding: json: cannot unmarshal number into Go struct field GroupResources.rules.resources.resources of type []string".into(),
        ),
        (
            "metadata_name_number",
            format!("{HEAD}metadata:\n  name: 5\nrules:\n- level: None\n  users: [1]\n"),
            "failed decoding: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string".into(),
        ),
        (
            "yaml_syntax",
            format!("{HEAD}rules: [\n"),
            "failed decoding: yaml: line 3: did not find expected node content".into(),
        ),
        (
            "json_truncated",
            r#"{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"None"}"#.into(),
            "failed decoding: couldn't get version/kind; json parse error: unexpected end of JSON input".into(),
        ),
        (
            "api_version_number",
            "apiVersion: 5\nkind: Policy\nrules:\n- level: None\n".into(),
            format!("failed decoding: {META} number into Go struct field .apiVersion of type string"),
        ),
        ("top_list", "- 1\n".into(), format!("failed decoding: {META} array into {STRUCT}")),
        ("top_string", "x".into(), format!("failed decoding: {META} string into {STRUCT}")),
    ];
    for (name, text, want) in cases {
        assert_eq!(error_of(&text), want, "{name}");
    }
}

#[test]
fn from_bytes_lenient_forms_accepted() {
    let cases = [
        (
            "no_kind",
            "apiVersion: audit.k8s.io/v1\nrules:\n- level: Metadata\n",
        ),
        (
            "unknown_field_ignored",
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  bogus: 1\n",
        ),
        (
            "json",
            r#"{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"Metadata"}]}"#,
        ),
        (
            "json_duplicate_last_wins",
            r#" {"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"None","level":"Metadata"}]}"#,
        ),
        (
            "yaml_duplicate_last_wins",
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  level: Metadata\n",
        ),
        (
            "nulls_as_empty",
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: null\nrules:\n- level: Metadata\n  users: null\n  resources: null\n",
        ),
    ];
    let info = crate::request::info::parse("GET", "/healthz", &Default::default());
    let user = UserInfo::new("a".into(), vec![]);
    for (name, text) in cases {
        let policy = Policy::from_bytes(text.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            policy.evaluate(&user, &info).level,
            Level::Metadata,
            "{name}"
        );
    }
}

#[test]
fn load_wraps_texts_with_the_file_path() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("policy.yaml");
    std::fs::write(&bad, format!("{HEAD}rules:\n- level: Foo\n")).unwrap();
    let shown = bad.display();
    assert_eq!(
        Policy::load(&bad).unwrap_err(),
        format!(
            r#"loading audit policy file: rules[0].level: Unsupported value: "Foo": supported values: "None", "Metadata", "Request", "RequestResponse": from file {shown}"#
        )
    );
    let missing = dir.path().join("missing.yaml");
    let shown = missing.display();
    assert_eq!(
        Policy::load(&missing).unwrap_err(),
        format!(
            "loading audit policy file: failed to read file path \"{shown}\": open {shown}: no such file or directory"
        )
    );
    let good = dir.path().join("good.yaml");
    std::fs::write(&good, format!("{HEAD}rules:\n- level: RequestResponse\n")).unwrap();
    let info = crate::request::info::parse("GET", "/healthz", &Default::default());
    let level = Policy::load(&good)
        .unwrap()
        .evaluate(&UserInfo::new("a".into(), vec![]), &info)
        .level;
    assert_eq!(level, Level::RequestResponse);
}

/// The reference's start-up answers (hack/audit-oracle's startup.json, `policy_*`): each
/// file's error between `loading audit policy file: ` and `: from file <path>`, or null
/// when the reference started.
#[test]
fn from_bytes_reference_startup_cases() {
    let cases: Vec<serde_json::Value> =
        serde_json::from_str(include_str!("reference_startup.json")).unwrap();
    assert!(cases.len() >= 20, "{}", cases.len());
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let file = case["file"].as_str().unwrap();
        let got = Policy::from_bytes(file.as_bytes()).err();
        assert_eq!(got.as_deref(), case["error"].as_str(), "{name}");
    }
}

#[test]
fn decode_strict_errors_as_the_reference_warns() {
    let unknown = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  colour: red\n  resources: [{group: a, x: 1}]\n";
    assert_eq!(
        file::decode(unknown.as_bytes()).unwrap().strict_errors,
        [
            "unknown field \"rules[0].colour\"",
            "unknown field \"rules[0].resources[0].x\""
        ]
    );
    let duplicate =
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  level: None\n";
    let errors = file::decode(duplicate.as_bytes()).unwrap().strict_errors;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("yaml: unmarshal errors:"),
        "{errors:?}"
    );
    let clean = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n";
    assert!(
        file::decode(clean.as_bytes())
            .unwrap()
            .strict_errors
            .is_empty()
    );
}
