//! An in-process converter for unit tests: `Paint` objects keep their color in
//! `spec.color` at v1 and in `spec.paint` at v2; it counts its calls and the objects it
//! converts, and refuses on demand with a webhook-like message.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use futures::future::BoxFuture;
use serde_json::{Value, json};

use crate::crd::catalog::{Catalog, ServedResource};
use crate::crd::conversion::{Conversion, Convert, ConvertError, ConverterFactory};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

/// The refusal's text.
pub const REFUSED: &str =
    "conversion webhook for example.org/v1, Kind=Paint failed: the test converter refuses";

#[derive(Default)]
pub struct PaintConverter {
    pub calls: AtomicUsize,
    pub objects: AtomicUsize,
    pub fail: AtomicBool,
}

impl PaintConverter {
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    pub fn objects(&self) -> usize {
        self.objects.load(Ordering::SeqCst)
    }
}

impl Convert for PaintConverter {
    fn convert<'a>(
        &'a self,
        objects: Vec<Value>,
        to_api_version: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Value>, ConvertError>> {
        Box::pin(async move {
            let other = |o: &Value| o["apiVersion"] != to_api_version;
            let sent = objects.iter().filter(|o| other(o)).count();
            if sent == 0 {
                return Ok(objects);
            }
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.objects.fetch_add(sent, Ordering::SeqCst);
            // A network call lets other tasks run.
            tokio::task::yield_now().await;
            if self.fail.load(Ordering::SeqCst) {
                return Err(ConvertError::new(REFUSED));
            }
            Ok(objects
                .into_iter()
                .map(|o| {
                    if other(&o) {
                        paint(o, to_api_version)
                    } else {
                        o
                    }
                })
                .collect())
        })
    }
}

/// One object to `to`: the color moves between `spec.color` (v1) and `spec.paint` (v2).
fn paint(mut object: Value, to: &str) -> Value {
    object["apiVersion"] = json!(to);
    let (from, into) = match to.ends_with("/v2") {
        true => ("color", "paint"),
        false => ("paint", "color"),
    };
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut)
        && let Some(value) = spec.remove(from)
    {
        spec.insert(into.into(), value);
    }
    object
}

struct Factory(Arc<PaintConverter>);

impl ConverterFactory for Factory {
    fn new_converter(&self, _: &CustomResourceDefinition) -> Result<Conversion, String> {
        Ok(Conversion::Converter(self.0.clone()))
    }
}

/// `paints.example.org`: v1 (storage) and v2, each with its own color field and a
/// defaulted `spec.size` (1 at v1, 2 at v2), through `converter` (strategy `None`
/// without one).
pub fn resource(converter: Option<&Arc<PaintConverter>>) -> Arc<ServedResource> {
    let schema = |color: &str, size: i64| {
        json!({"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                color: {"type": "string"},
                "size": {"type": "integer", "default": size}}}}}})
    };
    let crd = serde_json::from_value(json!({"apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition", "metadata": {"name": "paints.example.org"},
        "spec": {"group": "example.org", "scope": "Namespaced",
            "names": {"plural": "paints", "kind": "Paint"},
            "conversion": {"strategy": if converter.is_some() { "Webhook" } else { "None" }},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": schema("color", 1)},
                {"name": "v2", "served": true, "storage": false, "schema": schema("paint", 2)}]}}))
    .unwrap();
    let catalog = match converter {
        Some(converter) => Catalog::build_with(&[crd], &Factory(converter.clone())).unwrap(),
        None => Catalog::build(&[crd]).unwrap(),
    };
    catalog.resources()[0].clone()
}

/// A stored Paint at `version` with `color` in that version's field.
pub fn stored(name: &str, version: &str, color: &str) -> Vec<u8> {
    let field = if version == "v2" { "paint" } else { "color" };
    serde_json::to_vec(
        &json!({"apiVersion": format!("example.org/{version}"), "kind": "Paint",
        "metadata": {"name": name, "namespace": "ns", "uid": format!("uid-{name}")},
        "spec": {field: color}}),
    )
    .unwrap()
}
