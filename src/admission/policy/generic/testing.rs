//! Test fixtures shared by the generic policy tests: a policy kind whose compiled form
//! counts compilations, builders of policies and bindings, and a param store in memory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use k8s_openapi::api::admissionregistration::v1::{
    ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding,
};
use serde_json::{Value, json};

use super::kind::{BindingView, PolicyKind, PolicyView};
use super::kinds::ValidatingPolicies;
use super::params::{ParamScope, ParamStore, Resolution};
use crate::selector::label::LabelSelector;

pub static COMPILED: AtomicUsize = AtomicUsize::new(0);

/// ValidatingAdmissionPolicy whose compiled form is the compilation's number.
pub struct Counted;

impl PolicyKind for Counted {
    type Policy = ValidatingAdmissionPolicy;
    type Binding = ValidatingAdmissionPolicyBinding;
    type Compiled = usize;
    const KIND: &'static str = "ValidatingAdmissionPolicy";
    const RESOURCES: (&'static str, &'static str) = ("policies", "bindings");
    const VERSIONING: super::kind::Versioning = super::kind::Versioning::AfterParams;

    fn compile(_policy: &ValidatingAdmissionPolicy) -> usize {
        COMPILED.fetch_add(1, Ordering::SeqCst) + 1
    }
    fn policy(policy: &ValidatingAdmissionPolicy) -> PolicyView<'_> {
        ValidatingPolicies::policy(policy)
    }
    fn binding(binding: &ValidatingAdmissionPolicyBinding) -> BindingView<'_> {
        ValidatingPolicies::binding(binding)
    }
    fn same_policy(a: &ValidatingAdmissionPolicy, b: &ValidatingAdmissionPolicy) -> bool {
        a.spec == b.spec
    }
}

/// A defaulted policy `name` on crontabs, `spec` fields merged over it.
pub fn policy(name: &str, spec: Value) -> ValidatingAdmissionPolicy {
    let mut base = json!({"failurePolicy": "Fail", "matchConstraints": {
        "namespaceSelector": {}, "objectSelector": {}, "matchPolicy": "Equivalent",
        "resourceRules": [{"operations": ["*"], "apiGroups": ["stable.example.com"],
            "apiVersions": ["*"], "resources": ["crontabs"]}]}});
    for (k, v) in spec.as_object().unwrap() {
        base[k] = v.clone();
    }
    serde_json::from_value(json!({"metadata": {"name": name}, "spec": base})).unwrap()
}

/// A binding `name` of `policy`, `spec` fields merged over it.
pub fn binding(name: &str, policy: &str, spec: Value) -> ValidatingAdmissionPolicyBinding {
    let mut base = json!({"policyName": policy, "validationActions": ["Deny"]});
    for (k, v) in spec.as_object().unwrap() {
        base[k] = v.clone();
    }
    serde_json::from_value(json!({"metadata": {"name": name}, "spec": base})).unwrap()
}

/// Param objects in memory: `(namespace, object)`.
pub struct MemoryStore {
    pub resolution: Resolution,
    pub synced: bool,
    pub objects: Vec<(String, Value)>,
}

impl MemoryStore {
    pub fn namespaced(objects: &[(&str, Value)]) -> MemoryStore {
        MemoryStore {
            resolution: Resolution::Known(ParamScope::Namespaced),
            synced: true,
            objects: objects
                .iter()
                .map(|(ns, o)| (ns.to_string(), o.clone()))
                .collect(),
        }
    }
}

#[async_trait::async_trait]
impl ParamStore for MemoryStore {
    fn resolution(&self) -> Resolution {
        self.resolution
    }
    fn synced(&self) -> bool {
        self.synced
    }
    fn wait_ready(
        &self,
        _within: std::time::Duration,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        Box::pin(async {})
    }
    async fn get(&self, namespace: &str, name: &str) -> Result<Option<Arc<Value>>, String> {
        let found = self
            .objects
            .iter()
            .find(|(ns, o)| ns == namespace && o["metadata"]["name"].as_str() == Some(name));
        Ok(found.map(|(_, o)| Arc::new(o.clone())))
    }
    async fn list(
        &self,
        namespace: &str,
        selector: &LabelSelector,
    ) -> Result<Vec<Arc<Value>>, String> {
        let empty = serde_json::Map::new();
        let selected = self.objects.iter().filter(|(ns, o)| {
            let labels = o["metadata"]["labels"].as_object().unwrap_or(&empty);
            (namespace.is_empty() || ns == namespace) && selector.matches(labels)
        });
        Ok(selected.map(|(_, o)| Arc::new(o.clone())).collect())
    }
}
