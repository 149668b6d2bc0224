//! `spec.conversion` texts through the whole definition check, one case per rule.

use serde_json::{Value, json};

use crate::crd::check::check;
use crate::error::FieldError;

const DNS1035: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const CC: &str = "spec.conversion.webhookClientConfig";
const CRV: &str = "spec.conversion.conversionReviewVersions";

/// A valid two-version definition converting through a webhook at a URL.
fn webhook_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {
            "group": "stable.example.com",
            "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab"},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}},
                {"name": "v2", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}},
            ],
            "conversion": {"strategy": "Webhook", "webhook": {
                "clientConfig": {"url": "https://conv.example.com/convert"},
                "conversionReviewVersions": ["v1"],
            }},
        },
    })
}

fn messages(value: Value) -> Vec<String> {
    let crd = serde_json::from_value(value).unwrap();
    check(&crd).iter().map(FieldError::message).collect()
}

type Mutation = fn(&mut Value);

fn conversion(v: &mut Value) -> &mut Value {
    &mut v["spec"]["conversion"]
}

#[test]
fn check_valid_conversions_report_nothing() {
    let cases: Vec<(&str, Mutation)> = vec![
        ("webhook url", |_| {}),
        ("webhook service defaulted port", |v| {
            conversion(v)["webhook"]["clientConfig"] =
                json!({"service": {"name": "conv", "namespace": "ns", "path": "/convert"}})
        }),
        ("webhook service with port", |v| {
            conversion(v)["webhook"]["clientConfig"] =
                json!({"service": {"name": "conv", "namespace": "ns", "port": 8443}})
        }),
        ("one unknown review version among known", |v| {
            conversion(v)["webhook"]["conversionReviewVersions"] = json!(["v3", "v1beta1"])
        }),
        ("invalid caBundle allowed on create", |v| {
            conversion(v)["webhook"]["clientConfig"]["caBundle"] = json!("bm90IGEgY2VydA==")
        }),
        ("none without webhook", |v| {
            *conversion(v) = json!({"strategy": "None"})
        }),
        (
            "none with empty webhook",
            |v| {
                *conversion(v) =
                    json!({"strategy": "None", "webhook": {"conversionReviewVersions": []}})
            },
        ),
        ("unserved storage version", |v| {
            v["spec"]["versions"][0]["served"] = json!(false)
        }),
    ];
    for (name, mutate) in cases {
        let mut value = webhook_crd();
        mutate(&mut value);
        assert_eq!(messages(value), Vec::<String>::new(), "case {name}");
    }
}

#[test]
fn check_invalid_conversions_report_kube_message() {
    let cases: Vec<(&str, Mutation, Vec<String>)> = vec![
        ("strategy empty", |v| conversion(v)["strategy"] = json!(""),
         vec!["spec.conversion.strategy: Required value".into(),
              format!("{CC}: Forbidden: should not be set when strategy is not set to Webhook"),
              format!("{CRV}: Forbidden: should not be set when strategy is not set to Webhook")]),
        ("strategy unknown", |v| conversion(v)["strategy"] = json!("Other"),
         vec![r#"spec.conversion.strategy: Unsupported value: "Other": supported values: "None", "Webhook""#.into(),
              format!("{CC}: Forbidden: should not be set when strategy is not set to Webhook"),
              format!("{CRV}: Forbidden: should not be set when strategy is not set to Webhook")]),
        ("none with client config", |v| conversion(v)["strategy"] = json!("None"),
         vec![format!("{CC}: Forbidden: should not be set when strategy is not set to Webhook"),
              format!("{CRV}: Forbidden: should not be set when strategy is not set to Webhook")]),
        ("preserve unknown fields", |v| v["spec"]["preserveUnknownFields"] = json!(true),
         vec!["spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead".into(),
              r#"spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true"#.into()]),
        ("no webhook", |v| *conversion(v) = json!({"strategy": "Webhook"}),
         vec![format!("{CC}: Required value: required when strategy is set to Webhook"), format!("{CRV}: Required value")]),
        ("no client config", |v| conversion(v)["webhook"] = json!({"conversionReviewVersions": ["v1"]}),
         vec![format!("{CC}: Required value: required when strategy is set to Webhook")]),
        ("neither url nor service", |v| conversion(v)["webhook"]["clientConfig"] = json!({}),
         vec![format!("{CC}: Required value: exactly one of url or service is required")]),
        ("url and service", |v| conversion(v)["webhook"]["clientConfig"]["service"] = json!({"name": "conv", "namespace": "ns"}),
         vec![format!("{CC}: Required value: exactly one of url or service is required")]),
        ("url not https", |v| conversion(v)["webhook"]["clientConfig"]["url"] = json!("http://conv.example.com/convert"),
         vec![format!(r#"{CC}.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]"#)]),
        ("service namespace empty", |v| conversion(v)["webhook"]["clientConfig"] = json!({"service": {"name": "conv", "namespace": ""}}),
         vec![format!("{CC}.service.name: Required value")]),
        ("service port invalid", |v| conversion(v)["webhook"]["clientConfig"] = json!({"service": {"name": "conv", "namespace": "ns", "port": 0}}),
         vec![format!("{CC}.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive")]),
        ("service path relative", |v| conversion(v)["webhook"]["clientConfig"] = json!({"service": {"name": "conv", "namespace": "ns", "path": "convert"}}),
         vec![format!(r#"{CC}.service.path: Invalid value: "convert": must start with a '/'"#)]),
        ("review versions empty", |v| conversion(v)["webhook"]["conversionReviewVersions"] = json!([]),
         vec![format!("{CRV}: Required value")]),
        ("review version duplicate", |v| conversion(v)["webhook"]["conversionReviewVersions"] = json!(["v1", "v1beta1", "v1"]),
         vec![format!(r#"{CRV}[2]: Invalid value: "v1": duplicate version"#)]),
        ("review version not a label", |v| conversion(v)["webhook"]["conversionReviewVersions"] = json!(["v1", "V2"]),
         vec![format!(r#"{CRV}[1]: Invalid value: "V2": {DNS1035}"#)]),
        ("review versions unknown", |v| conversion(v)["webhook"]["conversionReviewVersions"] = json!(["v3"]),
         vec![format!(r#"{CRV}: Invalid value: []string{{"v3"}}: must include at least one of v1, v1beta1"#)]),
        ("review versions unknown and invalid", |v| conversion(v)["webhook"]["conversionReviewVersions"] = json!(["V3", "v4", "V3"]),
         vec![format!(r#"{CRV}[0]: Invalid value: "V3": {DNS1035}"#),
              format!(r#"{CRV}[2]: Invalid value: "V3": duplicate version"#),
              format!(r#"{CRV}: Invalid value: []string{{"V3", "v4", "V3"}}: must include at least one of v1, v1beta1"#)]),
    ];
    for (name, mutate, want) in cases {
        let mut value = webhook_crd();
        mutate(&mut value);
        assert_eq!(messages(value), want, "case {name}");
    }
}
