//! The catalog's versions: served ones for routing, every one for conversion, and the
//! storage version's schema whether or not it is served; the factory's refusals.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Value, json};

use super::*;
use crate::crd::conversion::{Conversion, ConverterFactory, NoConverters};

fn schema(field: &str) -> Value {
    json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {field: {"type": "string"}}}}}})
}

/// v1 keeps `spec.a`, v2 keeps `spec.b`; `v1_served` says whether the storage version v1
/// is served.
fn crd(v1_served: bool) -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {
            "group": "stable.example.com",
            "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab"},
            "versions": [
                {"name": "v1", "served": v1_served, "storage": true, "schema": schema("a")},
                {"name": "v2", "served": true, "storage": false, "schema": schema("b")},
            ],
        },
    }))
    .unwrap()
}

/// What the storage version's schema keeps of an object with both fields.
fn pruned_by_storage_schema(resource: &ServedResource) -> Value {
    let mut object = json!({"spec": {"a": "x", "b": "y"}});
    crate::schema::prune::prune_silently(&mut object, resource.storage_schema());
    object
}

#[test]
fn build_unserved_storage_version_compiles_its_schema() {
    let catalog = Catalog::build(&[crd(false)]).unwrap();
    let resource = &catalog.resources()[0];
    let served: Vec<&str> = resource.versions.iter().map(|v| &*v.name).collect();
    assert_eq!(served, ["v2"]);
    assert_eq!(resource.all_versions, ["v1", "v2"]);
    assert_eq!(resource.storage_version, "v1");
    assert_eq!(resource.storage_api_version, "stable.example.com/v1");
    assert!(matches!(
        resource.storage_schema,
        StorageSchema::Unserved(_)
    ));
    assert_eq!(
        pruned_by_storage_schema(resource),
        json!({"spec": {"a": "x"}})
    );
    assert!(resource.has_version("v1") && resource.has_version("v2"));
    assert!(!resource.has_version("v3"));
    assert!(
        catalog
            .lookup("stable.example.com", "v1", "crontabs")
            .is_none()
    );
    assert!(
        catalog
            .lookup("stable.example.com", "v2", "crontabs")
            .is_some()
    );
    let groups = catalog.groups();
    assert_eq!(
        groups[0].versions,
        ["v2"],
        "discovery lists served versions only"
    );
}

#[test]
fn build_served_storage_version_shares_served_schema() {
    let catalog = Catalog::build(&[crd(true)]).unwrap();
    let resource = &catalog.resources()[0];
    assert!(matches!(resource.storage_schema, StorageSchema::Served));
    assert_eq!(
        pruned_by_storage_schema(resource),
        json!({"spec": {"a": "x"}})
    );
    assert_eq!(resource.all_versions, ["v1", "v2"]);
    assert_eq!(resource.versions.len(), 2);
}

struct Refuses;

impl ConverterFactory for Refuses {
    fn new_converter(&self, _: &CustomResourceDefinition) -> Result<Conversion, String> {
        Err("no converter for you".into())
    }
}

#[test]
fn build_with_factory_error_names_definition() {
    let err = Catalog::build_with(&[crd(true)], &Refuses).err().unwrap();
    assert_eq!(
        err.to_string(),
        "crontabs.stable.example.com: spec.conversion: no converter for you"
    );
    let mut webhook = crd(true);
    webhook.spec.conversion = serde_json::from_value(json!({"strategy": "Webhook"})).unwrap();
    let err = Catalog::build_with(&[webhook], &NoConverters)
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        r#"crontabs.stable.example.com: spec.conversion: conversion strategy "Webhook" needs a converter factory"#
    );
}
