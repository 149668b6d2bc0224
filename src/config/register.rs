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

/// `<namespace>/<name>` (a DNS-1123 label and a DNS-1123 subdomain), or why not.
pub fn parse_namespaced(text: &str) -> Result<(String, String), String> {
    let Some((namespace, name)) = text.split_once('/') else {
        return Err(format!(
            "{text:?} invalid, must be of format: <namespace>/<name>"
        ));
    };
    let mut problems = Vec::new();
    for problem in crate::validation::dns::is_dns1123_label(namespace) {
        problems.push(format!("namespace {namespace:?}: {problem}"));
    }
    for problem in crate::validation::dns::is_dns1123_subdomain(name) {
        problems.push(format!("name {name:?}: {problem}"));
    }
    match problems.is_empty() {
        true => Ok((namespace.to_string(), name.to_string())),
        false => Err(format!("{text:?} invalid: {}", problems.join("; "))),
    }
}

impl super::validate::Problems {
    /// The registration and offload flags together: what each needs and excludes.
    pub(super) fn check_register(&mut self, flags: &super::ServeFlags) {
        let register = &flags.register;
        if let Some(secret) = &register.serving_ca_secret {
            if let Err(problem) = parse_namespaced(secret) {
                self.add("serving-ca-secret", problem);
            }
            if flags.tls_cert_file.is_some() {
                self.raw("--serving-ca-secret can not be set with --tls-cert-file");
            }
            if register.apiservice_ca_file.is_some() {
                self.raw("--apiservice-ca-file can not be set with --serving-ca-secret (the APIServices' caBundle is the Secret's ca.crt)");
            }
        }
        if let Some(file) = &register.apiservice_ca_file {
            self.readable("apiservice-ca-file", file);
        }
        if register.register_apiservices
            && register.apiservice_ca_file.is_none()
            && register.serving_ca_secret.is_none()
        {
            self.raw("--register-apiservices must be set with --apiservice-ca-file or --serving-ca-secret (the CA bundle of the APIServices)");
        }
        if let Some(selector) = &flags.offload.offload_selector {
            if !register.register_apiservices {
                self.raw("--offload-selector must be set with --register-apiservices");
            }
            if let Err(e) = crate::selector::label::LabelSelector::parse(selector) {
                self.add("offload-selector", e);
            }
        }
        self.check_service(register);
    }

    fn check_service(&mut self, register: &RegisterFlags) {
        for problem in crate::validation::dns::is_dns1035_label(&register.service_name) {
            self.add("service-name", problem);
        }
        if let Some(namespace) = &register.service_namespace {
            for problem in crate::validation::dns::is_dns1123_label(namespace) {
                self.add("service-namespace", problem);
            }
        }
        if !(1..=65535).contains(&register.service_port) {
            self.add("service-port", "must be between 1 and 65535, inclusive");
        }
        let positive = [
            ("serving-cert-validity", register.serving_cert_validity),
            ("serving-ca-validity", register.serving_ca_validity),
        ];
        for (flag, duration) in positive {
            if duration.is_zero() {
                self.add(flag, "must be greater than 0");
            }
        }
    }
}

/// The namespace of our Service: `--service-namespace`, else the pod's namespace (the
/// service account's namespace file), else `default`.
pub fn service_namespace(flag: Option<&str>) -> String {
    const POD_NAMESPACE: &str = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
    flag.map(str::to_string)
        .or_else(|| {
            std::fs::read_to_string(POD_NAMESPACE)
                .ok()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| "default".to_string())
}

#[cfg(test)]
#[path = "register_tests.rs"]
mod tests;
