//! Table tests for the creation-time checks: one failing case per rule, every problem at
//! once, conflicts across definitions, and the example manifests.

use serde_json::{Value, json};

use super::*;
use crate::crd::load::{LoadedCrd, load_paths};

fn base() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {
            "group": "stable.example.com",
            "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "shortNames": ["ct"]},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object"}},
            }],
        },
    })
}

fn crd(value: Value) -> CustomResourceDefinition {
    serde_json::from_value(value).unwrap()
}

fn loaded(source: &str, value: Value) -> LoadedCrd {
    LoadedCrd {
        source: source.to_string(),
        crd: crd(value),
    }
}

fn messages(value: Value) -> Vec<String> {
    check(&crd(value)).iter().map(FieldError::message).collect()
}

const DNS1035: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

type Mutation = fn(&mut Value);

fn push_version(value: &mut Value, version: Value) {
    value["spec"]["versions"]
        .as_array_mut()
        .unwrap()
        .push(version);
}

#[test]
fn check_invalid_names_reports_kube_message() {
    let cases: Vec<(&str, Mutation, String)> = vec![
        ("name not plural.group", |v| v["metadata"]["name"] = json!("foo.stable.example.com"),
         r#"metadata.name: Invalid value: "foo.stable.example.com": must be spec.names.plural+"."+spec.group"#.into()),
        ("name missing", |v| v["metadata"] = json!({}),
         "metadata.name: Required value: name or generateName is required".into()),
        ("namespace set", |v| v["metadata"]["namespace"] = json!("default"),
         "metadata.namespace: Forbidden: not allowed on this type".into()),
        ("group without dot", |v| { v["spec"]["group"] = json!("example"); v["metadata"]["name"] = json!("crontabs.example") },
         r#"spec.group: Invalid value: "example": should be a domain with at least one dot"#.into()),
        ("group upper case", |v| { v["spec"]["group"] = json!("Example.com"); v["metadata"]["name"] = json!("crontabs.example.com") },
         r#"metadata.name: Invalid value: "crontabs.example.com": must be spec.names.plural+"."+spec.group
spec.group: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"#.into()),
        ("group missing", |v| { v["spec"]["group"] = json!(""); v["metadata"]["name"] = json!("crontabs") },
         "metadata.name: Invalid value: \"crontabs\": must be spec.names.plural+\".\"+spec.group\nspec.group: Required value".into()),
        ("plural upper case", |v| { v["spec"]["names"]["plural"] = json!("Foo"); v["metadata"]["name"] = json!("foo.stable.example.com") },
         format!(r#"metadata.name: Invalid value: "foo.stable.example.com": must be spec.names.plural+"."+spec.group
spec.names.plural: Invalid value: "Foo": {DNS1035}"#)),
        ("singular with dot", |v| v["spec"]["names"]["singular"] = json!("cron.tab"),
         format!(r#"spec.names.singular: Invalid value: "cron.tab": {DNS1035}"#)),
        ("short name invalid", |v| v["spec"]["names"]["shortNames"] = json!(["ct", "C_T"]),
         format!(r#"spec.names.shortNames[1]: Invalid value: "C_T": {DNS1035}"#)),
        ("kind invalid", |v| { v["spec"]["names"]["kind"] = json!("Cron.Tab"); v["spec"]["names"]["listKind"] = json!("CronTabList") },
         format!(r#"spec.names.kind: Invalid value: "Cron.Tab": may have mixed case, but should otherwise match: {DNS1035}"#)),
        ("kind missing", |v| v["spec"]["names"]["kind"] = json!(""),
         "spec.names.kind: Required value\nspec.names.listKind: Required value".into()),
        ("list kind equals kind", |v| v["spec"]["names"]["listKind"] = json!("CronTab"),
         r#"spec.names.listKind: Invalid value: "CronTab": kind and listKind may not be the same"#.into()),
        ("category empty", |v| v["spec"]["names"]["categories"] = json!([""]),
         format!(r#"spec.names.categories[0]: Invalid value: "": {DNS1035}"#)),
    ];
    assert_cases(cases);
}

#[test]
fn check_invalid_spec_reports_kube_message() {
    let cases: Vec<(&str, Mutation, String)> = vec![
        ("scope unknown", |v| v["spec"]["scope"] = json!("Global"),
         r#"spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced""#.into()),
        ("scope missing", |v| v["spec"]["scope"] = json!(""),
         "spec.scope: Required value".into()),
        ("no versions", |v| v["spec"]["versions"] = json!([]),
         "spec.versions: Invalid value: []: must have exactly one version marked as storage version".into()),
        ("no served version", |v| v["spec"]["versions"][0]["served"] = json!(false),
         r#"spec.versions: Invalid value: [{"name":"v1","served":false,"storage":true}]: must have at least one served version"#.into()),
        ("two storage versions", |v| push_version(v, json!({"name": "v2", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}})),
         r#"spec.versions: Invalid value: [{"name":"v1","served":true,"storage":true},{"name":"v2","served":true,"storage":true}]: must have exactly one version marked as storage version"#.into()),
        ("duplicate version names", |v| push_version(v, json!({"name": "v1", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}})),
         r#"spec.versions: Invalid value: [{"name":"v1","served":true,"storage":true},{"name":"v1","served":true,"storage":false}]: must contain unique version names"#.into()),
        ("version name invalid", |v| v["spec"]["versions"][0]["name"] = json!("1"),
         format!(r#"spec.versions[0].name: Invalid value: "1": {DNS1035}"#)),
        ("schema missing", |v| v["spec"]["versions"][0]["schema"] = json!(null),
         "spec.versions[0].schema.openAPIV3Schema: Required value".into()),
        ("warning not deprecated", |v| v["spec"]["versions"][0]["deprecationWarning"] = json!("old"),
         r#"spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions"#.into()),
        ("scale spec path outside spec", |v| v["spec"]["versions"][0]["subresources"] = json!({"scale": {"specReplicasPath": ".status.replicas", "statusReplicasPath": ".status.replicas"}}),
         r#"spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec"#.into()),
        ("scale status path not a path", |v| v["spec"]["versions"][0]["subresources"] = json!({"scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": "status.replicas"}}),
         r#"spec.versions[0].subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with ."#.into()),
        ("scale status path missing", |v| v["spec"]["versions"][0]["subresources"] = json!({"scale": {"specReplicasPath": ".spec.replicas"}}),
         "spec.versions[0].subresources.scale.statusReplicasPath: Required value".into()),
        ("scale selector path outside", |v| v["spec"]["versions"][0]["subresources"] = json!({"scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".metadata.labels"}}),
         r#"spec.versions[0].subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status"#.into()),
        ("column name missing", |v| v["spec"]["versions"][0]["additionalPrinterColumns"] = json!([{"name": "", "type": "string", "jsonPath": ".spec.a"}]),
         "spec.versions[0].additionalPrinterColumns[0].name: Required value".into()),
        ("column type unknown", |v| v["spec"]["versions"][0]["additionalPrinterColumns"] = json!([{"name": "A", "type": "object", "jsonPath": ".spec.a"}]),
         r#"spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "object": must be one of boolean,date,integer,number,string"#.into()),
        ("column format unknown", |v| v["spec"]["versions"][0]["additionalPrinterColumns"] = json!([{"name": "A", "type": "string", "format": "uuid", "jsonPath": ".spec.a"}]),
         r#"spec.versions[0].additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password"#.into()),
        ("column path missing", |v| v["spec"]["versions"][0]["additionalPrinterColumns"] = json!([{"name": "A", "type": "string", "jsonPath": ""}]),
         "spec.versions[0].additionalPrinterColumns[0].JSONPath: Required value".into()),
        ("conversion webhook without client config", |v| v["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"]}}),
         "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook".into()),
        ("conversion none with webhook", |v| v["spec"]["conversion"] = json!({"strategy": "None", "webhook": {"conversionReviewVersions": ["v1"]}}),
         "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook".into()),
        ("preserve unknown fields", |v| v["spec"]["preserveUnknownFields"] = json!(true),
         "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead".into()),
        ("protected group unapproved", |v| { v["spec"]["group"] = json!("x.k8s.io"); v["metadata"]["name"] = json!("crontabs.x.k8s.io") },
         r#"metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111"#.into()),
    ];
    assert_cases(cases);
}

fn assert_cases(cases: Vec<(&str, Mutation, String)>) {
    for (name, mutate, want) in cases {
        let mut value = base();
        mutate(&mut value);
        assert_eq!(messages(value).join("\n"), want, "case {name}");
    }
}

#[test]
fn check_valid_definitions_report_nothing() {
    let cases: Vec<(&str, Mutation)> = vec![
        ("base", |_| {}),
        ("singular and list kind defaulted", |v| {
            v["spec"]["names"] = json!({"plural": "crontabs", "kind": "CronTab"})
        }),
        ("deprecated with warning", |v| {
            v["spec"]["versions"][0]["deprecated"] = json!(true);
            v["spec"]["versions"][0]["deprecationWarning"] = json!("use v2")
        }),
        ("conversion none", |v| {
            v["spec"]["conversion"] = json!({"strategy": "None"})
        }),
        ("cluster scope", |v| v["spec"]["scope"] = json!("Cluster")),
        ("protected group approved", |v| {
            v["spec"]["group"] = json!("x.k8s.io");
            v["metadata"]["name"] = json!("crontabs.x.k8s.io");
            v["metadata"]["annotations"] = json!({"api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/1"})
        }),
        ("protected group bypassed", |v| {
            v["spec"]["group"] = json!("x.k8s.io");
            v["metadata"]["name"] = json!("crontabs.x.k8s.io");
            v["metadata"]["annotations"] =
                json!({"api-approved.kubernetes.io": "unapproved, testing"})
        }),
    ];
    for (name, mutate) in cases {
        let mut value = base();
        mutate(&mut value);
        assert_eq!(messages(value), Vec::<String>::new(), "case {name}");
    }
}

#[test]
fn check_all_many_problems_reports_every_one() {
    let mut value = base();
    value["metadata"]["name"] = json!("wrong");
    value["spec"]["scope"] = json!("");
    value["spec"]["names"]["shortNames"] = json!(["Bad"]);
    value["spec"]["versions"][0]["storage"] = json!(false);
    value["spec"]["conversion"] = json!({"strategy": "Webhook"});
    let err = check_all(&[loaded("dir/a.yaml (document 1)", value)]).unwrap_err();
    let lines: Vec<String> = err.to_string().lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 6, "{err}");
    for (line, field) in lines.iter().zip([
        "metadata.name",
        "spec.scope",
        "spec.versions",
        "spec.names.shortNames[0]",
        "spec.conversion.webhookClientConfig",
        "spec.conversion.conversionReviewVersions",
    ]) {
        assert!(
            line.starts_with(&format!("dir/a.yaml (document 1) wrong: {field}: ")),
            "{line}"
        );
    }
}

fn named(plural: &str, singular: &str, kind: &str, short: &[&str]) -> Value {
    let mut value = base();
    value["metadata"]["name"] = json!(format!("{plural}.stable.example.com"));
    value["spec"]["names"] =
        json!({"plural": plural, "singular": singular, "kind": kind, "shortNames": short});
    value
}

#[test]
fn check_all_name_conflicts_report_later_definition() {
    let first = || loaded("a.yaml (document 1)", base());
    let cases: Vec<(&str, LoadedCrd, &str)> = vec![
        (
            "same metadata.name",
            loaded("b.yaml (document 1)", base()),
            r#"b.yaml (document 1) crontabs.stable.example.com: metadata.name: Duplicate value: "crontabs.stable.example.com": already defined in a.yaml (document 1)"#,
        ),
        (
            "short name taken",
            loaded(
                "b.yaml (document 1)",
                named("cronjobs", "cronjob", "CronJob", &["ct"]),
            ),
            r#"b.yaml (document 1) cronjobs.stable.example.com: spec.names.shortNames[0]: Invalid value: "ct": already in use by crontabs.stable.example.com (NamesAccepted=False, reason ShortNamesConflict)"#,
        ),
        (
            "singular equals other plural",
            loaded("b.yaml (document 1)", named("tabs", "crontabs", "Tab", &[])),
            r#"b.yaml (document 1) tabs.stable.example.com: spec.names.singular: Invalid value: "crontabs": already in use by crontabs.stable.example.com (NamesAccepted=False, reason SingularConflict)"#,
        ),
        (
            "kind taken",
            loaded(
                "b.yaml (document 1)",
                named("crontabs2", "crontab2", "CronTab", &[]),
            ),
            r#"b.yaml (document 1) crontabs2.stable.example.com: spec.names.kind: Invalid value: "CronTab": already in use by crontabs.stable.example.com (NamesAccepted=False, reason KindConflict)"#,
        ),
    ];
    for (name, second, want) in cases {
        let err = check_all(&[first(), second]).unwrap_err();
        let got: Vec<String> = err.problems.iter().map(ToString::to_string).collect();
        let list_kind_conflict = name == "kind taken";
        assert_eq!(got[0], want, "case {name}");
        assert_eq!(
            got.len(),
            if list_kind_conflict { 2 } else { 1 },
            "case {name}: {got:?}"
        );
    }
}

#[test]
fn check_all_same_names_in_other_group_pass() {
    let mut other = base();
    other["spec"]["group"] = json!("other.example.com");
    other["metadata"]["name"] = json!("crontabs.other.example.com");
    let crds = [loaded("a", base()), loaded("b", other)];
    assert_eq!(check_all(&crds), Ok(()));
}

#[test]
fn list_kind_and_singular_default_from_kind() {
    let mut value = base();
    value["spec"]["names"] = json!({"plural": "crontabs", "kind": "CronTab"});
    let crd = crd(value);
    assert_eq!(list_kind(&crd), "CronTabList");
    assert_eq!(singular(&crd), "crontab");
}

#[test]
fn check_all_example_manifests_pass() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("manifests/examples");
    let crds = load_paths(&[dir.join("crontab-crd.yaml"), dir.join("widget-crd.yaml")]).unwrap();
    assert_eq!(crds.len(), 2);
    assert_eq!(check_all(&crds), Ok(()));
    let widget = &crds[1].crd;
    assert_eq!(widget.spec.scope, "Cluster");
    assert_eq!(widget.spec.versions[0].deprecated, Some(true));
}

#[test]
fn check_non_structural_schema_reports_kube_message() {
    let cases: Vec<(&str, Mutation, String)> = vec![
        ("property without type", |v| v["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = json!({"type": "object", "properties": {"spec": {}}}),
         "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields".into()),
        ("root not object", |v| v["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = json!({"type": "string"}),
         r#"spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root"#.into()),
        ("metadata restricted", |v| v["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = json!({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}}}),
         "spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified".into()),
        ("status root keyword", |v| {
            v["spec"]["versions"][0]["subresources"] = json!({"status": {}});
            v["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = json!({"type": "array", "items": {"type": "string"}})
         },
         "spec.validation.openAPIV3Schema.type: Invalid value: \"array\": only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled\nspec.validation.openAPIV3Schema.type: Invalid value: \"array\": must be object at the root".into()),
        ("versions with different schemas checked each", |v| {
            v["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = json!({"type": "object", "properties": {"spec": {}}});
            push_version(v, json!({"name": "v2", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}}))
         },
         "spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields".into()),
    ];
    assert_cases(cases);
}
