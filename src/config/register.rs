//! Flags of self-registration (`--register-apiservices`: our APIServices kept in the host
//! cluster) and of our own serving CA (`--serving-ca-secret`), and of `crd-apiserver
//! unregister`.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::parse_duration;

/// kube's priorities for the APIServices of CRDs (crdregistration's
/// `GroupPriorityMinimum: 1000`, `VersionPriority: 100`).
pub const DEFAULT_GROUP_PRIORITY_MINIMUM: i32 = 1000;
pub const DEFAULT_VERSION_PRIORITY: i32 = 100;

/// The registration flags, flattened into the serve flags.
#[derive(Args, Debug, Clone)]
pub struct RegisterFlags {
    /// Create and keep an `apiregistration.k8s.io/v1` APIService for each served
    /// group/version in the cluster of `--kubeconfig` (else in-cluster), with the CA of our
    /// serving certificate as `caBundle`.
    #[arg(long = "register-apiservices")]
    pub register_apiservices: bool,
    /// The Service the APIServices route to: its name.
    #[arg(long = "service-name", default_value = "crd-apiserver")]
    pub service_name: String,
    /// The Service the APIServices route to: its namespace (default: the pod's namespace
    /// in a cluster, else `default`).
    #[arg(long = "service-namespace")]
    pub service_namespace: Option<String>,
    /// The Service's port.
    #[arg(long = "service-port", default_value_t = 443)]
    pub service_port: i32,
    /// `spec.groupPriorityMinimum` of our APIServices.
    #[arg(long = "group-priority-minimum", default_value_t = DEFAULT_GROUP_PRIORITY_MINIMUM)]
    pub group_priority_minimum: i32,
    /// `spec.versionPriority` of our APIServices.
    #[arg(long = "version-priority", default_value_t = DEFAULT_VERSION_PRIORITY)]
    pub version_priority: i32,
    /// The CA bundle (PEM) that signed `--tls-cert-file`, put in our APIServices' caBundle.
    #[arg(long = "apiservice-ca-file")]
    pub apiservice_ca_file: Option<PathBuf>,
    /// `<namespace>/<name>` of a Secret holding our own serving CA and certificate
    /// (created if absent, rotated before expiry); instead of `--tls-cert-file`.
    #[arg(long = "serving-ca-secret")]
    pub serving_ca_secret: Option<String>,
    /// Lifetime of a serving certificate issued by our CA (renewed at 80 %).
    #[arg(long = "serving-cert-validity", default_value = "720h", value_parser = parse_duration)]
    pub serving_cert_validity: Duration,
    /// Lifetime of our serving CA (renewed at 80 %; the old CA stays in caBundle until it expires).
    #[arg(long = "serving-ca-validity", default_value = "87600h", value_parser = parse_duration)]
    pub serving_ca_validity: Duration,
}

/// `crd-apiserver unregister`: deletes the APIServices we own (and only those).
#[derive(Args, Debug, Clone)]
pub struct UnregisterFlags {
    /// The cluster's kubeconfig; else KUBECONFIG, ~/.kube/config, or in-cluster.
    #[arg(long = "kubeconfig")]
    pub kubeconfig: Option<PathBuf>,
    /// Only our APIServices routing to this Service (`<namespace>/<name>`); default: all of ours.
    #[arg(long = "service")]
    pub service: Option<String>,
}
