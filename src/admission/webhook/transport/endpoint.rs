//! Where a webhook is called: kube's `admissionregistration.k8s.io/v1` `WebhookClientConfig`
//! (`url`, or `service` {namespace, name, path, port}) with its `caBundle`.

/// A webhook's `clientConfig`, as the transport calls it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `clientConfig.url`, called as given.
    Url {
        url: String,
        /// `clientConfig.caBundle` (PEM); `None`: the system roots.
        ca_bundle: Option<Vec<u8>>,
    },
    /// `clientConfig.service`: `https://<name>.<namespace>.svc:<port><path>` (kube's
    /// default service resolver), verified as `<name>.<namespace>.svc`.
    Service {
        namespace: String,
        name: String,
        /// `service.path`; `None` calls the root.
        path: Option<String>,
        /// `service.port` (kube's default 443).
        port: u16,
        /// `clientConfig.caBundle` (PEM); `None`: the system roots.
        ca_bundle: Option<Vec<u8>>,
    },
}

impl Endpoint {
    /// The PEM roots this endpoint pins, if any.
    pub fn ca_bundle(&self) -> Option<&[u8]> {
        match self {
            Endpoint::Url { ca_bundle, .. } | Endpoint::Service { ca_bundle, .. } => {
                ca_bundle.as_deref()
            }
        }
    }
}
