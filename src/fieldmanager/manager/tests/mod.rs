//! Table tests of the field manager, ported as data from kube's managedfields/internal
//! tests (fieldmanager, managedfieldsupdater, capmanagers, skipnonapplied, conflict,
//! lastappliedmanager, lastappliedupdater) on a Deployment-like custom resource.

mod apply_tests;
mod converted_tests;
mod lastapplied_tests;
mod update_tests;

use jiff::Timestamp;
use serde_json::{Value, json};

use super::*;
use crate::schema::Schema;
use crate::schema::typed::resource_type;

pub(super) const V1: &str = "apps.example.com/v1";
pub(super) const KIND: &str = "Deployment";

/// A Deployment's shape as a CRD schema: an atomic selector, a list-map of containers,
/// a status.
fn deployment_schema() -> Value {
    let labels = json!({"type": "object", "additionalProperties": {"type": "string"}});
    json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "replicas": {"type": "integer"},
            "paused": {"type": "boolean"},
            "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                         "properties": {"matchLabels": labels}},
            "template": {"type": "object", "properties": {
                "metadata": {"type": "object", "properties": {"labels": labels}},
                "spec": {"type": "object", "properties": {
                    "containers": {"type": "array", "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["name"],
                        "items": {"type": "object", "properties": {
                            "name": {"type": "string"}, "image": {"type": "string"}}}}}}}},
            "data": {"type": "object", "additionalProperties": {"type": "string"}}}},
        "status": {"type": "object", "properties": {
            "replicas": {"type": "integer"}, "phase": {"type": "string"}}}}})
}

pub(super) fn versions() -> CrdVersions {
    let ty = resource_type(&Schema::parse(&deployment_schema()));
    CrdVersions::new([
        (V1.to_string(), ty.clone()),
        ("apps.example.com/v2".to_string(), ty),
    ])
}

/// `t(n)`: `n` seconds past a fixed instant.
pub(super) fn t(n: i64) -> Timestamp {
    Timestamp::from_second(1_700_000_000 + n).unwrap()
}

/// Upstream's `TestFieldManager`: a live object that each successful write replaces.
pub(super) struct Fixture {
    pub versions: CrdVersions,
    pub reset: ResetFields,
    pub subresource: &'static str,
    pub live: Option<Value>,
}

impl Fixture {
    pub fn new() -> Fixture {
        Fixture {
            versions: versions(),
            reset: ResetFields::new(),
            subresource: "",
            live: None,
        }
    }

    pub fn fm(&self) -> FieldManager<'_> {
        FieldManager {
            converter: &self.versions,
            api_version: V1,
            kind: KIND,
            subresource: self.subresource,
            reset_fields: &self.reset,
        }
    }

    pub fn update(&mut self, mut new: Value, manager: &str, now: i64) -> Result<(), Error> {
        let result = self
            .fm()
            .update(self.live.as_ref(), &mut new, manager, t(now));
        self.live = Some(new);
        result
    }

    pub fn apply(
        &mut self,
        patch: Value,
        manager: &str,
        force: bool,
        now: i64,
    ) -> Result<(), Error> {
        let out = self
            .fm()
            .apply(self.live.as_ref(), &patch, manager, force, t(now))?;
        self.live = Some(out);
        Ok(())
    }

    pub fn live(&self) -> &Value {
        self.live.as_ref().unwrap()
    }

    pub fn managed_fields(&self) -> Value {
        self.live()["metadata"]
            .get("managedFields")
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// `manager/operation[/subresource]@seconds` per entry, in stored order.
    pub fn summary(&self) -> Vec<String> {
        let Value::Array(items) = self.managed_fields() else {
            return vec![];
        };
        items
            .iter()
            .map(|e| {
                let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                let time = e
                    .get("time")
                    .and_then(Value::as_str)
                    .map(|x| x.parse::<Timestamp>().unwrap().as_second() - 1_700_000_000)
                    .map_or("-".to_string(), |n| n.to_string());
                let mut out = format!("{}/{}", s("manager"), s("operation"));
                if !s("subresource").is_empty() {
                    out.push_str(&format!("/{}", s("subresource")));
                }
                format!("{out}@{time}")
            })
            .collect()
    }

    /// The fields of `manager`'s entry as paths.
    pub fn owned(&self, manager: &str) -> Vec<String> {
        let Value::Array(items) = self.managed_fields() else {
            return vec![];
        };
        items
            .iter()
            .filter(|e| e["manager"] == manager)
            .flat_map(|e| {
                let set =
                    crate::fieldmanager::fieldpath::Set::from_fields_v1(&e["fieldsV1"]).unwrap();
                set.leaves()
                    .paths()
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// A Deployment object at v1 around `body` (merged over apiVersion/kind/name).
pub(super) fn deploy(body: Value) -> Value {
    let mut obj = json!({"apiVersion": V1, "kind": KIND, "metadata": {"name": "d"}});
    crate::fieldmanager::manager::tests::merge_into(&mut obj, body);
    obj
}

/// JSON merge of `patch` into `target` (objects recursively, anything else replaced).
pub(super) fn merge_into(target: &mut Value, patch: Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                merge_into(t.entry(k).or_insert(Value::Null), v);
            }
        }
        (t, p) => *t = p,
    }
}
