//! The fake kube-apiserver as the host cluster of crd-apiserver's registration and offload:
//! the kinds it serves for them — APIServices (`apiregistration.k8s.io/v1`, with status the
//! test sets: [`FakeKube::set_apiservice_available`]), Secrets, `events.k8s.io/v1` Events,
//! Leases, CustomResourceDefinitions — and the host's custom resources: a CRD written (by a
//! test or through the API) has its served versions served as collections (first definition
//! of a group/version/plural wins; deleting the CRD leaves them served) and gets the status
//! kube's establishing controller writes (NamesAccepted, Established, storedVersions). Also
//! their strategies' quirks: a Secret's `stringData`, create-on-update of Leases and Events.

use std::sync::Arc;

use serde_json::{Value, json};

use super::FakeKube;
use super::collections::{Collection, Collections, Resource};

const fn kind(
    group: &'static str,
    plural: &'static str,
    kind: &'static str,
    namespaced: bool,
    status: bool,
) -> Resource {
    Resource {
        group,
        version: "v1",
        plural,
        kind,
        namespaced,
        status,
    }
}

pub const APISERVICES: Resource = kind(
    "apiregistration.k8s.io",
    "apiservices",
    "APIService",
    false,
    true,
);
pub const SECRETS: Resource = kind("", "secrets", "Secret", true, false);
pub const EVENTS: Resource = kind("events.k8s.io", "events", "Event", true, false);
pub const LEASES: Resource = kind("coordination.k8s.io", "leases", "Lease", true, false);
pub const CRDS: Resource = kind(
    "apiextensions.k8s.io",
    "customresourcedefinitions",
    "CustomResourceDefinition",
    false,
    true,
);

/// Served beside the defaults of `fake_kube_collections.rs`.
pub const HOST_RESOURCES: [Resource; 5] = [APISERVICES, SECRETS, EVENTS, LEASES, CRDS];

fn leak(text: &str) -> &'static str {
    Box::leak(text.to_string().into_boxed_str())
}

/// The kinds a CRD defines, one per served version.
pub fn crd_resources(crd: &Value) -> Vec<Resource> {
    let spec = &crd["spec"];
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let group = text(&spec["group"]);
    let plural = text(&spec["names"]["plural"]);
    let kind = text(&spec["names"]["kind"]);
    let versions = spec["versions"].as_array().cloned().unwrap_or_default();
    versions
        .iter()
        .filter(|v| v["served"] != false)
        .map(|v| Resource {
            group: leak(&group),
            version: leak(&text(&v["name"])),
            plural: leak(&plural),
            kind: leak(&kind),
            namespaced: spec["scope"] == "Namespaced",
            status: v["subresources"].get("status").is_some(),
        })
        .collect()
}

/// Serves the kinds of `crd` and, once, writes the status kube's controllers give it.
pub(super) fn serve_crd(collections: &Collections, crd: &Value) {
    for resource in crd_resources(crd) {
        collections.add(resource);
    }
    let established = crd["status"]["conditions"]
        .as_array()
        .is_some_and(|c| c.iter().any(|c| c["type"] == "Established"));
    if established || crd["metadata"]["deletionTimestamp"].is_string() {
        return;
    }
    let collection: Arc<Collection> = collections.get(&CRDS);
    let mut state = collection.lock();
    let key = (
        String::new(),
        crd["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    );
    let Some(mut stored) = state.objects.get(&key).cloned() else {
        return;
    };
    let storage = stored["spec"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|v| v["storage"] == true)
        .map(|v| v["name"].clone())
        .unwrap_or(Value::Null);
    let now = jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let condition = |kind: &str, reason: &str, message: &str| {
        json!({"type": kind, "status": "True", "lastTransitionTime": now,
            "reason": reason, "message": message})
    };
    stored["status"] = json!({
        "conditions": [
            condition("NamesAccepted", "NoConflicts", "no conflicts found"),
            condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
        ],
        "acceptedNames": stored["spec"]["names"],
        "storedVersions": [storage],
    });
    collection.commit(&mut state, &key, Some(stored));
}

impl FakeKube {
    /// Sets the `Available` condition of an APIService (as kube-aggregator's status
    /// controller would); watchers see MODIFIED. Panics if the APIService does not exist.
    pub fn set_apiservice_available(&self, name: &str, available: bool, reason: &str) {
        let collection = self.collections().get(&APISERVICES);
        let mut state = collection.lock();
        let key = (String::new(), name.to_string());
        let mut stored = state
            .objects
            .get(&key)
            .cloned()
            .unwrap_or_else(|| panic!("no APIService {name}"));
        let (status, message) = match available {
            true => ("True", "all checks passed".to_string()),
            false => ("False", format!("set by the test: {reason}")),
        };
        let now = jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        stored["status"] = json!({"conditions": [{"type": "Available", "status": status,
            "lastTransitionTime": now, "reason": reason, "message": message}]});
        collection.commit(&mut state, &key, Some(stored));
    }

    /// Puts a CRD (`apiextensions.k8s.io/v1`) and serves its kinds (see the module's text).
    pub fn put_crd(&self, crd: Value) {
        let name = crd["metadata"]["name"].as_str().expect("name").to_string();
        self.put_object(crd);
        let stored = self.object(&CRDS, None, &name).expect("the CRD just put");
        serve_crd(self.collections(), &stored);
    }
}

/// Whether a PUT of a missing object creates it (kube's lease and event strategies).
pub(super) fn creates_on_update(resource: &Resource) -> bool {
    matches!(
        (resource.group, resource.plural),
        ("coordination.k8s.io", "leases") | ("events.k8s.io" | "", "events")
    )
}

/// A Secret's write-only `stringData` moved into `data`, base64-encoded, as kube's Secret
/// strategy does.
pub(super) fn string_data(resource: &Resource, object: &mut Value) {
    use base64::Engine;
    if resource.plural != "secrets" || !resource.group.is_empty() {
        return;
    }
    let data_ok = object
        .get("data")
        .is_none_or(|d| d.is_object() || d.is_null());
    let strings = object.as_object_mut().and_then(|o| o.remove("stringData"));
    let (Some(Value::Object(strings)), true) = (strings, data_ok) else {
        return;
    };
    for (key, value) in strings {
        let text = value.as_str().unwrap_or_default();
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        object["data"][key] = json!(encoded);
    }
}
