//! Start-up's definitions: the factory's refusal is a definition error naming the
//! definition (exit 64), its converter reaches the catalog, and the checks run first.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::future::BoxFuture;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use super::*;
use crate::crd::conversion::{Conversion, Convert, ConvertError, NoConverters};

fn webhook_crd(url: &str) -> String {
    format!(
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: crontabs.stable.example.com}}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {{plural: crontabs, singular: crontab, kind: CronTab}}
  versions:
  - {{name: v1, served: false, storage: true, schema: {{openAPIV3Schema: {{type: object}}}}}}
  - {{name: v2, served: true, storage: false, schema: {{openAPIV3Schema: {{type: object}}}}}}
  conversion:
    strategy: Webhook
    webhook:
      clientConfig: {{url: "{url}"}}
      conversionReviewVersions: [v1]
"#
    )
}

/// Writes the manifest to a temp dir kept alive by the returned guard.
fn manifest(text: &str) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crd.yaml");
    std::fs::write(&path, text).unwrap();
    (dir, vec![path])
}

struct Same;

impl Convert for Same {
    fn convert<'a>(
        &'a self,
        objects: Vec<Value>,
        _: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Value>, ConvertError>> {
        Box::pin(async move { Ok(objects) })
    }
}

/// Gives every definition the same converter and counts the calls.
#[derive(Default)]
struct Counting(AtomicUsize);

impl ConverterFactory for Counting {
    fn new_converter(&self, _: &CustomResourceDefinition) -> Result<Conversion, String> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(Conversion::Converter(Arc::new(Same)))
    }
}

#[test]
fn load_catalog_factory_refusal_is_definition_error() {
    let (_dir, paths) = manifest(&webhook_crd("https://conv.example.com/convert"));
    let err = load_catalog(&paths, &NoConverters).err().unwrap();
    assert_eq!(err.exit_code(), 64);
    assert_eq!(
        err.to_string(),
        "invalid CustomResourceDefinitions:\ncrontabs.stable.example.com: spec.conversion: conversion strategy \"Webhook\" needs a converter factory"
    );
}

#[test]
fn load_catalog_factory_converter_reaches_catalog() {
    let (_dir, paths) = manifest(&webhook_crd("https://conv.example.com/convert"));
    let factory = Counting::default();
    let catalog = load_catalog(&paths, &factory).unwrap();
    let resource = &catalog.resources()[0];
    assert!(matches!(resource.conversion, Conversion::Converter(_)));
    assert_eq!(resource.all_versions, ["v1", "v2"]);
    assert_eq!(factory.0.load(Ordering::SeqCst), 1);
}

#[test]
fn load_catalog_invalid_webhook_refused_before_factory() {
    let (dir, paths) = manifest(&webhook_crd("http://conv.example.com/convert"));
    let factory = Counting::default();
    let err = load_catalog(&paths, &factory).err().unwrap();
    assert_eq!(err.exit_code(), 64);
    let source = dir.path().join("crd.yaml");
    assert_eq!(
        err.to_string(),
        format!(
            "invalid CustomResourceDefinitions:\n{} (document 1) crontabs.stable.example.com: spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
            source.display()
        )
    );
    assert_eq!(
        factory.0.load(Ordering::SeqCst),
        0,
        "the factory never sees a refused definition"
    );
}
