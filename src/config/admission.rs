//! Admission flags (k8s.io/apiserver's `--admission-control-config-file`, and
//! `--admission-webhook-service-address` for calling `clientConfig.service` webhooks
//! from outside the cluster), read and checked at start-up into [`AdmissionSettings`].

pub mod users;

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

use clap::Args;

use super::validate::Problems;
use users::AdmissionUsers;

/// How many times `--max-object-size` a webhook's answer may be: a mutating webhook
/// answers with the object (or a patch of it) inside an AdmissionReview.
pub const RESPONSE_SIZE_FACTOR: usize = 3;

/// Flags of the admission webhooks, flattened into the serve flags.
#[derive(Args, Debug, Clone, Default)]
pub struct AdmissionFlags {
    /// File with admission control configuration (kube's `AdmissionConfiguration`: the
    /// webhook plugins' `kubeConfigFile` users, picked per webhook host).
    #[arg(long = "admission-control-config-file")]
    pub admission_control_config_file: Option<PathBuf>,
    /// `<namespace>/<name>=<host:port>`: call the webhooks of that service there
    /// (still verifying `<name>.<namespace>.svc`), for running outside a cluster; repeatable.
    #[arg(long = "admission-webhook-service-address", value_parser = ServiceAddress::parse)]
    pub admission_webhook_service_address: Vec<ServiceAddress>,
}

/// One `--admission-webhook-service-address` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceAddress {
    pub namespace: String,
    pub name: String,
    /// `host:port`, resolved at start-up.
    pub address: String,
}

impl ServiceAddress {
    /// `<namespace>/<name>=<host:port>`.
    pub fn parse(value: &str) -> Result<ServiceAddress, String> {
        let syntax = || format!("{value:?}: expected <namespace>/<name>=<host:port>");
        let (service, address) = value.split_once('=').ok_or_else(syntax)?;
        let (namespace, name) = service.split_once('/').ok_or_else(syntax)?;
        let parts = [namespace, name, address];
        if parts.iter().any(|p| p.trim().is_empty()) || name.contains('/') {
            return Err(syntax());
        }
        Ok(ServiceAddress {
            namespace: namespace.trim().into(),
            name: name.trim().into(),
            address: address.trim().into(),
        })
    }
}

/// What the webhook transports are built from.
#[derive(Debug, Clone, Default)]
pub struct AdmissionSettings {
    /// Each webhook plugin's users, from `--admission-control-config-file` (none: anonymous).
    pub users: AdmissionUsers,
    /// `(namespace, name, address)` of each `--admission-webhook-service-address`.
    pub service_addresses: Vec<(String, String, SocketAddr)>,
    /// The longest webhook answer read: [`RESPONSE_SIZE_FACTOR`] × `--max-object-size`.
    pub max_response_bytes: usize,
}

impl Problems {
    /// Reads the admission configuration file and resolves the service addresses.
    pub(super) fn admission(
        &mut self,
        flags: &AdmissionFlags,
        max_object_size: usize,
    ) -> Option<AdmissionSettings> {
        let before = self.count();
        let users = match &flags.admission_control_config_file {
            None => AdmissionUsers::default(),
            Some(path) => AdmissionUsers::load(path).unwrap_or_else(|problem| {
                self.add("admission-control-config-file", problem);
                AdmissionUsers::default()
            }),
        };
        let service_addresses = flags
            .admission_webhook_service_address
            .iter()
            .filter_map(|s| match resolve(&s.address) {
                Ok(addr) => Some((s.namespace.clone(), s.name.clone(), addr)),
                Err(problem) => {
                    self.add("admission-webhook-service-address", problem);
                    None
                }
            })
            .collect();
        (self.count() == before).then(|| AdmissionSettings {
            users,
            service_addresses,
            max_response_bytes: max_object_size.saturating_mul(RESPONSE_SIZE_FACTOR),
        })
    }
}

/// `host:port` to the first address it resolves to.
fn resolve(address: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = address.parse() {
        return Ok(addr);
    }
    let mut addrs = address
        .to_socket_addrs()
        .map_err(|e| format!("{address:?}: {e}"))?;
    addrs
        .next()
        .ok_or_else(|| format!("{address:?}: no address found"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_address_parse_forms() {
        let ok = ServiceAddress::parse("webhooks/hook=127.0.0.1:8443").expect("parses");
        assert_eq!(
            ok,
            ServiceAddress {
                namespace: "webhooks".into(),
                name: "hook".into(),
                address: "127.0.0.1:8443".into(),
            }
        );
        for bad in [
            "hook=127.0.0.1:1",
            "ns/hook",
            "/hook=a:1",
            "ns/=a:1",
            "ns/a/b=a:1",
            "ns/a=",
        ] {
            let error = ServiceAddress::parse(bad).expect_err(bad);
            assert!(
                error.ends_with("expected <namespace>/<name>=<host:port>"),
                "{error}"
            );
        }
    }

    #[test]
    fn admission_settings_resolve_and_bound() {
        let mut problems = Problems::default();
        let flags = AdmissionFlags {
            admission_control_config_file: None,
            admission_webhook_service_address: vec![
                ServiceAddress::parse("ns/a=127.0.0.1:8443").expect("parses"),
                ServiceAddress::parse("ns/b=localhost:9443").expect("parses"),
            ],
        };
        let settings = problems.admission(&flags, 1000).expect("valid");
        assert_eq!(settings.max_response_bytes, 3000);
        let got: Vec<(&str, &str, u16)> = settings
            .service_addresses
            .iter()
            .map(|(ns, n, a)| (ns.as_str(), n.as_str(), a.port()))
            .collect();
        assert_eq!(got, [("ns", "a", 8443), ("ns", "b", 9443)]);
        assert!(settings.service_addresses[1].2.ip().is_loopback());
        assert_eq!(problems.count(), 0);
    }

    #[test]
    fn admission_settings_bad_file_and_address_reported() {
        let mut problems = Problems::default();
        let flags = AdmissionFlags {
            admission_control_config_file: Some("/nonexistent/admission.yaml".into()),
            admission_webhook_service_address: vec![
                ServiceAddress::parse("ns/a=127.0.0.1").expect("parses"),
            ],
        };
        assert!(problems.admission(&flags, 1000).is_none());
        let got = problems.into_lines();
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(
            got[0].starts_with(
                "--admission-control-config-file: unable to read admission control configuration from \"/nonexistent/admission.yaml\" ["
            ),
            "{got:?}"
        );
        assert!(
            got[1].starts_with("--admission-webhook-service-address: \"127.0.0.1\": "),
            "{got:?}"
        );
    }
}
