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
/// `--service-name`'s default.
pub const DEFAULT_SERVICE_NAME: &str = "crd-apiserver";

/// The registration flags, flattened into the serve flags.
#[derive(Args, Debug, Clone)]
pub struct RegisterFlags {
    /// Create and keep an `apiregistration.k8s.io/v1` APIService for each served
    /// group/version in the cluster of `--kubeconfig` (else in-cluster), with the CA of our
    /// serving certificate as `caBundle`.
    #[arg(long = "register-apiservices")]
    pub register_apiservices: bool,
    /// The Service the APIServices route to: its name.
    #[arg(long = "service-name", default_value = DEFAULT_SERVICE_NAME)]
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
    /// The Service (`<namespace>/<name>`) whose APIServices are deleted (those whose
    /// owner label names it); default: the serve flags' defaults, `<the pod's namespace,
    /// else default>/crd-apiserver`.
    #[arg(long = "service")]
    pub service: Option<String>,
    /// Also delete APIServices of groups that offload is moving or has moved here (their
    /// host CRDs carry a `crd-apiserver.io/offload` record): without it they are refused,
    /// as deleting them drops the switched APIService and the host no longer serves the
    /// group (give the groups back first: `crd-apiserver offload --undo`).
    #[arg(long = "force")]
    pub force: bool,
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
            self.ca_bundle_file("apiservice-ca-file", file);
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
        // kube-aggregator's validation of an APIService's spec (ValidateAPIService).
        let priorities = [
            (
                "group-priority-minimum",
                register.group_priority_minimum,
                20000,
            ),
            ("version-priority", register.version_priority, 1000),
        ];
        for (flag, value, max) in priorities {
            if !(1..=max).contains(&value) {
                self.add(
                    flag,
                    format!("Invalid value: {value}: must be positive and less than {max}"),
                );
            }
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

impl super::validate::Problems {
    /// A CA bundle file read at start-up: readable, with a certificate.
    fn ca_bundle_file(&mut self, flag: &str, path: &std::path::Path) {
        if !path.is_file() {
            return self.readable(flag, path);
        }
        let problem = match std::fs::read(path) {
            Ok(pem) => ca_bundle_problem(&pem),
            Err(e) => Some(e.to_string()),
        };
        if let Some(problem) = problem {
            self.add(flag, format!("{}: {problem}", path.display()));
        }
    }
}

/// Why `pem` is no CA bundle: it must hold at least one PEM `CERTIFICATE` block, and
/// each must be an X.509 certificate.
pub fn ca_bundle_problem(pem: &[u8]) -> Option<String> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;
    let mut count = 0;
    for (index, cert) in CertificateDer::pem_slice_iter(pem).enumerate() {
        let cert = match cert {
            Ok(cert) => cert,
            Err(e) => return Some(format!("invalid PEM: {e}")),
        };
        if let Err(e) = x509_parser::parse_x509_certificate(cert.as_ref()) {
            return Some(format!("certificate {}: {e}", index + 1));
        }
        count += 1;
    }
    (count == 0).then(|| "holds no PEM CERTIFICATE block".to_string())
}

/// The service account's namespace file in a pod.
pub const POD_NAMESPACE_FILE: &str = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/// The namespace of our Service: `--service-namespace`, else the pod's namespace (the
/// service account's namespace file), else `default`.
pub fn service_namespace(flag: Option<&str>) -> String {
    service_namespace_in(flag, std::path::Path::new(POD_NAMESPACE_FILE))
}

/// [`service_namespace`] with the pod's namespace read from `pod_namespace_file`.
pub fn service_namespace_in(flag: Option<&str>, pod_namespace_file: &std::path::Path) -> String {
    flag.map(str::to_string)
        .or_else(|| {
            std::fs::read_to_string(pod_namespace_file)
                .ok()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| "default".to_string())
}

/// `crd-apiserver unregister`'s Service when `--service` is not given: the serve flags'
/// defaults, `<the pod's namespace, else default>/crd-apiserver`.
pub fn default_service() -> String {
    format!("{}/{DEFAULT_SERVICE_NAME}", service_namespace(None))
}

#[cfg(test)]
#[path = "register_tests.rs"]
mod tests;
