//! The APIService we want for one served group/version: routed to our Service, with
//! kube's priorities for CRDs (or the flags'), and the CA bundle that verifies our serving
//! certificate, which changes when our CA rotates.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::ByteString;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::{
    APIService, APIServiceSpec, ServiceReference,
};
use tokio::sync::watch;

use super::OWNER_LABEL;

/// Where our APIServices route, and how they rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub service_namespace: String,
    pub service_name: String,
    pub service_port: i32,
    pub group_priority_minimum: i32,
    pub version_priority: i32,
}

impl Route {
    /// The value of [`OWNER_LABEL`] on our APIServices: `<namespace>.<name>` of the Service.
    pub fn owner(&self) -> String {
        format!("{}.{}", self.service_namespace, self.service_name)
    }
}

/// The desired APIServices: the route and the live CA bundle (PEM).
#[derive(Debug, Clone)]
pub struct Desired {
    pub route: Route,
    pub ca_bundle: watch::Receiver<Arc<Vec<u8>>>,
}

impl Desired {
    /// `<version>.<group>`, kube's APIService name.
    pub fn name(group: &str, version: &str) -> String {
        format!("{version}.{group}")
    }

    /// The APIService for `group`/`version` as we apply it (name, our owner label, spec).
    pub fn apiservice(&self, group: &str, version: &str) -> APIService {
        let route = &self.route;
        let bundle = self.ca_bundle.borrow().clone();
        APIService {
            metadata: ObjectMeta {
                name: Some(Desired::name(group, version)),
                labels: Some(BTreeMap::from([(OWNER_LABEL.to_string(), route.owner())])),
                ..ObjectMeta::default()
            },
            spec: Some(APIServiceSpec {
                group: Some(group.to_string()),
                version: Some(version.to_string()),
                group_priority_minimum: route.group_priority_minimum,
                version_priority: route.version_priority,
                service: Some(ServiceReference {
                    namespace: Some(route.service_namespace.clone()),
                    name: Some(route.service_name.clone()),
                    port: Some(route.service_port),
                }),
                ca_bundle: (!bundle.is_empty()).then(|| ByteString(bundle.as_ref().clone())),
                // Said explicitly, so a server-side apply owns it: `true` set by another
                // manager is taken back (TLS to us is always verified).
                insecure_skip_tls_verify: Some(false),
            }),
            status: None,
        }
    }

    /// Whether `apiservice` is one of ours (its owner label names our Service).
    pub fn owns(&self, apiservice: &APIService) -> bool {
        apiservice
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(OWNER_LABEL))
            .is_some_and(|owner| *owner == self.route.owner())
    }
}
