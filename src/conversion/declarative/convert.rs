//! The declarative converter of one definition: its directions compiled once, the route
//! between two versions (the declared direction, else through the storage version, the
//! hub; a step nobody declared only changes `apiVersion`, as strategy None does), and
//! `crd::conversion::Convert` over it (in process, synchronous, no network).

use futures::future::BoxFuture;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use prometheus_client::metrics::counter::Counter;
use serde_json::{Map, Value};

use super::apply::{Step, apply};
use super::cel::CelRule;
use super::compile::{self, Side};
use super::metrics::DeclarativeMetrics;
use super::spec::{self, Rule};
use crate::conversion::webhook::objects::restore_object_meta;
use crate::crd::conversion::{Convert, ConvertError};
use crate::schema::Schema;
use crate::schema::prune::prune_silently;

/// How one declared direction converts.
#[derive(Debug)]
enum Direction {
    Mappings(Vec<Step>),
    Cel(CelRule),
}

/// One definition's declarative conversion.
#[derive(Debug)]
pub struct Declarative {
    pub(super) group: String,
    pub(super) kind: String,
    /// The storage version: undeclared routes go through it.
    pub(super) hub: String,
    /// Every version of the definition (served or not) with its schema, in spec order.
    pub(super) versions: Vec<(String, Schema)>,
    directions: Vec<(String, String, Direction)>,
    /// Per ordered pair of versions, the objects converted.
    counters: Vec<(String, String, Counter)>,
}

impl Declarative {
    /// Parses and compiles the annotation's `text` for `crd` (not yet proven), counting
    /// into `metrics`.
    pub fn compile(
        crd: &CustomResourceDefinition,
        text: &str,
        metrics: &DeclarativeMetrics,
    ) -> Result<Declarative, String> {
        let spec_ = &crd.spec;
        if let Some(strategy) = spec_.conversion.as_ref().map(|c| c.strategy.as_str())
            && strategy != "None"
        {
            return Err(format!(
                "needs spec.conversion.strategy None (the annotation is the converter), got {strategy}"
            ));
        }
        let versions: Vec<(String, Schema)> = spec_
            .versions
            .iter()
            .map(|v| {
                let schema = v
                    .schema
                    .as_ref()
                    .and_then(|s| s.open_api_v3_schema.as_ref())
                    .and_then(|s| serde_json::to_value(s).ok())
                    .map(|s| Schema::parse(&s))
                    .unwrap_or_default();
                (v.name.clone(), schema)
            })
            .collect();
        let hub = spec_
            .versions
            .iter()
            .find(|v| v.storage)
            .map(|v| v.name.clone())
            .ok_or("the definition has no storage version")?;
        let names: Vec<&str> = versions.iter().map(|(n, _)| n.as_str()).collect();
        let mut directions = Vec::new();
        for (i, entry) in spec::parse(text, &names)?.into_iter().enumerate() {
            let (Some(from), Some(to)) = (side(&versions, &entry.from), side(&versions, &entry.to))
            else {
                continue;
            };
            let direction = match &entry.rule {
                Rule::Mappings(list) => {
                    compile::mappings(list, &from, &to).map(Direction::Mappings)
                }
                Rule::Cel(source) => CelRule::compile(source)
                    .map(Direction::Cel)
                    .map_err(|e| format!("cel: {e}")),
            }
            .map_err(|e| format!("[{i}]: from {} to {}: {e}", entry.from, entry.to))?;
            directions.push((entry.from, entry.to, direction));
        }
        let resource = format!("{}.{}", spec_.names.plural, spec_.group);
        let counters = names
            .iter()
            .flat_map(|a| names.iter().map(move |b| (*a, *b)))
            .filter(|(a, b)| a != b)
            .map(|(a, b)| {
                (
                    a.to_string(),
                    b.to_string(),
                    metrics.counter(&resource, a, b),
                )
            })
            .collect();
        Ok(Declarative {
            counters,
            group: spec_.group.clone(),
            kind: spec_.names.kind.clone(),
            hub,
            versions,
            directions,
        })
    }

    /// The schema of a version.
    pub(super) fn schema(&self, version: &str) -> Option<&Schema> {
        self.versions
            .iter()
            .find(|(n, _)| n == version)
            .map(|(_, s)| s)
    }

    /// The version of `api_version` (`group/version`), if it is one of this definition.
    fn version_of(&self, api_version: &str) -> Option<&str> {
        let version = api_version
            .strip_prefix(self.group.as_str())?
            .strip_prefix('/')?;
        self.versions
            .iter()
            .find(|(n, _)| n == version)
            .map(|(n, _)| n.as_str())
    }

    /// Converts `object` (at version `from`) to version `to` along its route; between
    /// two steps the object is pruned by the hub's schema, as if stored there.
    pub fn convert_object(&self, object: Value, from: &str, to: &str) -> Result<Value, String> {
        let hub = self.hub.as_str();
        let declared = |a: &str, b: &str| self.direction(a, b).is_some();
        if from == to {
            return Ok(object);
        }
        if declared(from, to) || from == hub || to == hub {
            return self.step(object, from, to);
        }
        let mut stored = self.step(object, from, hub)?;
        if let Some(schema) = self.schema(hub) {
            prune_silently(&mut stored, schema);
        }
        self.step(stored, hub, to)
    }

    fn count(&self, from: &str, to: &str) {
        if let Some((_, _, counter)) = self.counters.iter().find(|(a, b, _)| a == from && b == to) {
            counter.inc();
        }
    }

    fn direction(&self, from: &str, to: &str) -> Option<&Direction> {
        self.directions
            .iter()
            .find(|(a, b, _)| a == from && b == to)
            .map(|(_, _, d)| d)
    }

    /// One direction: declared, or `apiVersion` only.
    fn step(&self, object: Value, from: &str, to: &str) -> Result<Value, String> {
        // The input's metadata, for kube's `restoreObjectMeta` on the result.
        let original = object
            .get("metadata")
            .map(|m| serde_json::json!({ "metadata": m.clone() }));
        let mut converted = match self.direction(from, to) {
            None => object,
            Some(Direction::Mappings(steps)) => {
                let mut copy = object;
                apply(steps, &mut copy);
                copy
            }
            Some(Direction::Cel(rule)) => {
                let result = rule
                    .evaluate(&object)
                    .map_err(|e| format!("from {from} to {to}: cel: {e}"))?;
                keep_metadata(&object, result)
            }
        };
        // As a webhook's answer is checked: only labels and annotations may change, and
        // they must be valid (a mapping or CEL result cannot store what kube refuses).
        if let Some(original) = &original {
            restore_object_meta(original, &mut converted)
                .map_err(|e| format!("from {from} to {to}: invalid metadata: {e}"))?;
        }
        let Value::Object(fields) = &mut converted else {
            return Err("the object is not a JSON object".to_string());
        };
        fields.insert(
            "apiVersion".to_string(),
            Value::String(format!("{}/{to}", self.group)),
        );
        Ok(converted)
    }

    fn convert_all(
        &self,
        objects: Vec<Value>,
        to_api_version: &str,
    ) -> Result<Vec<Value>, ConvertError> {
        let kind = &self.kind;
        let to = self.version_of(to_api_version);
        objects
            .into_iter()
            .map(|object| {
                let api_version = object.get("apiVersion").and_then(Value::as_str);
                if api_version == Some(to_api_version) {
                    return Ok(object);
                }
                let api_version = api_version.unwrap_or_default().to_string();
                let fail = |e: String| {
                    ConvertError::new(format!(
                        "declarative conversion for {api_version}, Kind={kind} failed: {e}"
                    ))
                };
                let to = to.ok_or_else(|| {
                    fail(format!(
                        "{to_api_version} is not a version of this resource"
                    ))
                })?;
                let from = self.version_of(&api_version).ok_or_else(|| {
                    fail(format!("{api_version:?} is not a version of this resource"))
                })?;
                self.count(from, to);
                self.convert_object(object, from, to).map_err(fail)
            })
            .collect()
    }
}

/// A version's name and schema, if it is one of `versions`.
fn side<'a>(versions: &'a [(String, Schema)], name: &str) -> Option<Side<'a>> {
    versions
        .iter()
        .find(|(n, _)| n == name)
        .map(|(version, schema)| Side { version, schema })
}

/// A CEL result keeps the input's `kind` and `metadata`, except the labels and
/// annotations the result sets.
fn keep_metadata(input: &Value, result: Value) -> Value {
    let Value::Object(mut fields) = result else {
        return result;
    };
    if let Some(kind) = input.get("kind") {
        fields.insert("kind".to_string(), kind.clone());
    }
    let mut metadata = match input.get("metadata") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    if let Some(Value::Object(out)) = fields.get("metadata") {
        for key in ["labels", "annotations"] {
            if let Some(v) = out.get(key) {
                metadata.insert(key.to_string(), v.clone());
            }
        }
    }
    fields.insert("metadata".to_string(), Value::Object(metadata));
    Value::Object(fields)
}

impl Convert for Declarative {
    fn convert<'a>(
        &'a self,
        objects: Vec<Value>,
        to_api_version: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Value>, ConvertError>> {
        Box::pin(std::future::ready(
            self.convert_all(objects, to_api_version),
        ))
    }
}
