//! The factory: each strategy to its conversion, kube's text for an unknown one.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::json;

use super::Factory;
use super::webhook::metrics::ConversionMetrics;
use crate::crd::conversion::{Conversion, ConverterFactory};

fn crd(conversion: serde_json::Value) -> CustomResourceDefinition {
    let mut value = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {"group": "stable.example.com", "scope": "Namespaced",
            "names": {"plural": "crontabs", "kind": "CronTab"},
            "versions": [{"name": "v1", "served": true, "storage": true}]}});
    if !conversion.is_null() {
        value["spec"]["conversion"] = conversion;
    }
    serde_json::from_value(value).unwrap()
}

fn factory() -> Factory {
    let admission = crate::config::admission::AdmissionSettings {
        max_response_bytes: 1024,
        ..Default::default()
    };
    Factory::new(&admission, ConversionMetrics::default())
}

#[test]
fn new_converter_per_strategy_none_webhook_unknown() {
    let webhook = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
        "clientConfig": {"url": "https://127.0.0.1:1/convert"}}});
    let service = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
        "clientConfig": {"service": {"namespace": "ns", "name": "conv"}, "caBundle": "ICAK"}}});
    let f = factory();
    assert!(matches!(
        f.new_converter(&crd(json!(null))),
        Ok(Conversion::None)
    ));
    assert!(matches!(
        f.new_converter(&crd(json!({"strategy": "None"}))),
        Ok(Conversion::None)
    ));
    assert!(matches!(
        f.new_converter(&crd(webhook)),
        Ok(Conversion::Converter(_))
    ));
    assert!(matches!(
        f.new_converter(&crd(service)),
        Ok(Conversion::Converter(_))
    ));
    assert_eq!(
        f.new_converter(&crd(json!({"strategy": "Magic"}))).err(),
        Some(
            r#"unknown conversion strategy "Magic" for CRD crontabs.stable.example.com"#
                .to_string()
        )
    );
    assert!(
        f.new_converter(&crd(json!({"strategy": "Webhook"})))
            .is_err()
    );
}

#[test]
fn endpoint_service_port_443_and_blank_ca_bundle_none() {
    use crate::webhook::Endpoint;
    let config = serde_json::from_value(json!({"service": {"namespace": "ns", "name": "conv",
        "path": "/c"}, "caBundle": "ICAK"}))
    .unwrap();
    assert_eq!(
        super::webhook::endpoint(&config),
        Ok(Endpoint::Service {
            namespace: "ns".into(),
            name: "conv".into(),
            path: Some("/c".into()),
            port: 443,
            ca_bundle: None,
        })
    );
}
