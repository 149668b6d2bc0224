//! A binding's params (kube's `CollectParams`): the policy's `paramKind` and the
//! binding's `paramRef` (name or selector, namespace, `parameterNotFoundAction`) read
//! from a [`ParamStore`], the objects of that kind as an informer holds them. Pure over
//! the store; the stores are in [`host`] (a dynamic informer over the host cluster) and
//! [`served`] (our own resources, read from our store).

pub mod host;
pub mod served;

use std::fmt;
use std::sync::Arc;

use k8s_openapi::api::admissionregistration::v1::{ParamKind, ParamRef};
use serde_json::Value;

use crate::admission::webhook::matching::Gvk;
use crate::selector::label::LabelSelector;

/// A policy's `paramKind`, as written and parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamKindRef {
    pub api_version: String,
    pub kind: String,
    pub gvk: Gvk,
}

impl ParamKindRef {
    /// kube's `schema.ParseGroupVersion` of `apiVersion`: its error text when it has more
    /// than one `/`.
    pub fn parse(kind: &ParamKind) -> Result<ParamKindRef, String> {
        let api_version = kind.api_version.clone().unwrap_or_default();
        let kind_name = kind.kind.clone().unwrap_or_default();
        let (group, version) = match api_version.split('/').collect::<Vec<_>>().as_slice() {
            [""] => (String::new(), String::new()),
            [version] => (String::new(), version.to_string()),
            [group, version] => (group.to_string(), version.to_string()),
            _ => return Err(format!("unexpected GroupVersion string: {api_version}")),
        };
        let gvk = Gvk {
            group,
            version,
            kind: kind_name.clone(),
        };
        Ok(ParamKindRef {
            api_version,
            kind: kind_name,
            gvk,
        })
    }
}

/// Go's generated `ParamKind.String()`: `&ParamKind{APIVersion:v1,Kind:ConfigMap,}`.
impl fmt::Display for ParamKindRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, k) = (&self.api_version, &self.kind);
        write!(f, "&ParamKind{{APIVersion:{a},Kind:{k},}}")
    }
}

/// Go's `schema.GroupVersionKind.String()`: `group/version, Kind=kind`.
pub fn gvk_string(gvk: &Gvk) -> String {
    format!("{}/{}, Kind={}", gvk.group, gvk.version, gvk.kind)
}

/// Whether a param kind's objects live in namespaces (kube's REST mapping's scope).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamScope {
    Namespaced,
    Cluster,
}

/// What is known of a param kind: still being looked up, not served, or served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    Pending,
    Unknown,
    Known(ParamScope),
}

/// The objects of one param kind (kube's informer and lister for it). Reads are async:
/// a miss in a host informer is asked of the host directly (kube's `getParamDirectly`),
/// and our own resources are read from our store (the watch cache answers from memory).
#[async_trait::async_trait]
pub trait ParamStore: Send + Sync {
    fn resolution(&self) -> Resolution;
    /// Whether the first list has arrived (kube's `HasSynced`).
    fn synced(&self) -> bool;
    /// Waits up to `within` until the kind is resolved (known and synced, or unknown).
    fn wait_ready(
        &self,
        within: std::time::Duration,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>>;
    /// The object `name` in `namespace` (`""`: cluster-scoped); `None` when it is not
    /// found (kube's NotFound), an error text otherwise.
    async fn get(&self, namespace: &str, name: &str) -> Result<Option<Arc<Value>>, String>;
    /// The objects `selector` selects in `namespace` (`""`: every namespace).
    async fn list(
        &self,
        namespace: &str,
        selector: &LabelSelector,
    ) -> Result<Vec<Arc<Value>>, String>;
}

/// The params of one binding: `[None]` when the policy or binding takes none, no entry
/// at all when none was found and the binding allows that.
pub type Params = Vec<Option<Arc<Value>>>;

/// kube's `CollectParams` for a request in `namespace`.
pub async fn collect_params(
    param_kind: Option<&ParamKindRef>,
    store: Option<&dyn ParamStore>,
    param_ref: Option<&ParamRef>,
    namespace: &str,
) -> Result<Params, String> {
    let (Some(kind), Some(param_ref)) = (param_kind, param_ref) else {
        // No paramKind, or a binding that does not use it: evaluated without params.
        return Ok(vec![None]);
    };
    let scope = match store.map(|s| (s, s.resolution())) {
        Some((store, Resolution::Known(scope))) => (store, scope),
        _ => return Err(format!("paramKind kind `{kind}` not known")),
    };
    let (store, scope) = scope;
    let ref_namespace = param_ref.namespace.as_deref().unwrap_or_default();
    let read_namespace = match scope {
        ParamScope::Cluster => "",
        ParamScope::Namespaced if !ref_namespace.is_empty() => ref_namespace,
        ParamScope::Namespaced if !namespace.is_empty() => namespace,
        ParamScope::Namespaced => {
            return Err("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources".to_string());
        }
    };
    if !store.synced() {
        return Err(format!(
            "paramKind kind `{kind}` not yet synced to use for admission"
        ));
    }
    let name = param_ref.name.as_deref().unwrap_or_default();
    let params: Vec<Arc<Value>> = match (&param_ref.selector, name) {
        _ if !ref_namespace.is_empty() && scope == ParamScope::Cluster => {
            return Err(
                "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
                    .to_string(),
            );
        }
        (Some(_), name) if !name.is_empty() => {
            return Err("paramRef.name and paramRef.selector are mutually exclusive".to_string());
        }
        (None, name) if !name.is_empty() => {
            store.get(read_namespace, name).await?.into_iter().collect()
        }
        (Some(selector), _) => {
            let selector = LabelSelector::from_metav1(selector)?;
            store.list(read_namespace, &selector).await?
        }
        (None, _) => return Err("one of name or selector must be provided".to_string()),
    };
    let deny = param_ref.parameter_not_found_action.as_deref() == Some("Deny");
    if params.is_empty() && deny {
        return Err(
            "no params found for policy binding with `Deny` parameterNotFoundAction".to_string(),
        );
    }
    Ok(params.into_iter().map(Some).collect())
}

#[cfg(test)]
mod tests;
