//! Flags into a validated [`Config`]: every problem is found and reported at once, before
//! anything is opened or listens (as definition errors are), and the choices that come in
//! pairs (serving pair or self-signed, embedded store or etcd) become enums.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::ServeFlags;
use super::admission::AdmissionSettings;
use super::transport::Transport;
use crate::audit::backend::AuditSettings;
use crate::storage::encryption::config::EncryptionConfiguration;
use crate::storage::etcd::EtcdConfig;

/// Where the serving certificate comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Serving {
    /// `--tls-cert-file` and `--tls-private-key-file`, followed while serving.
    Files { cert: PathBuf, key: PathBuf },
    /// A self-signed pair kept in `--cert-dir`.
    SelfSigned { cert_dir: PathBuf },
    /// Our own CA and serving certificate kept in the host cluster's Secret
    /// `--serving-ca-secret` (`namespace`/`name`), the pair written under `--cert-dir`.
    CaSecret {
        namespace: String,
        name: String,
        cert_dir: PathBuf,
    },
}

/// Which store holds the objects.
#[derive(Debug, Clone)]
pub enum StoreChoice {
    /// The embedded store under `--data-dir`.
    Embedded { data_dir: PathBuf },
    /// etcd at `--etcd-servers`.
    Etcd(EtcdConfig),
}

/// The configuration the server starts from: the flags, checked, with their choices made.
#[derive(Debug, Clone)]
pub struct Config {
    pub flags: ServeFlags,
    pub serving: Serving,
    pub store: StoreChoice,
    pub transport: Transport,
    /// The webhook transports' settings (`--admission-control-config-file`,
    /// `--admission-webhook-service-address`, the answer bound).
    pub admission: AdmissionSettings,
    /// The `--audit-*` flags: the policy file and the backends.
    pub audit: AuditSettings,
    /// `--encryption-provider-config`, read and checked (`None` without the flag).
    pub encryption: Option<EncryptionConfiguration>,
    /// `--tracing-config-file`'s configuration; `None`: nothing is traced.
    pub tracing: Option<crate::telemetry::TracingConfiguration>,
}

/// Every problem of a command line, one `--flag: problem` per line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.join("\n"))]
pub struct ConfigErrors {
    pub problems: Vec<String>,
}

impl ServeFlags {
    /// Checks every flag and returns the configuration, or all problems found.
    pub fn validate(self) -> Result<Config, ConfigErrors> {
        let mut problems = Problems::default();
        problems.check_definitions(&self.crd_dir);
        let serving = problems.serving(&self);
        let store = problems.store(&self);
        let transport = problems.transport(&self.transport);
        let admission = problems.admission(&self.admission, self.max_object_size);
        let audit = problems.audit(&self.audit);
        let encryption = problems.encryption(&self.encryption);
        let tracing = problems.tracing(&self.tracing);
        problems.check_files(&self);
        problems.check_durations(&self);
        problems.check_limits(&self);
        problems.check_always_allow_paths(&self.auth.authorization_always_allow_paths);
        problems.check_register(&self);
        match (
            serving, store, transport, admission, audit, encryption, tracing,
        ) {
            (
                Some(serving),
                Some(store),
                Some(transport),
                Some(admission),
                Some(audit),
                Some(encryption),
                Some(tracing),
            ) if problems.0.is_empty() => Ok(Config {
                flags: self,
                serving,
                store,
                transport,
                admission,
                audit,
                encryption,
                tracing,
            }),
            _ => Err(ConfigErrors {
                problems: problems.0,
            }),
        }
    }
}

#[derive(Default)]
pub(super) struct Problems(Vec<String>);

impl Problems {
    pub(super) fn add(&mut self, flag: &str, problem: impl std::fmt::Display) {
        self.0.push(format!("--{flag}: {problem}"));
    }

    /// A problem whose text names its flags itself (kube's own wording).
    pub(super) fn raw(&mut self, problem: &str) {
        self.0.push(problem.into());
    }

    pub(super) fn count(&self) -> usize {
        self.0.len()
    }

    #[cfg(test)]
    pub(super) fn into_lines(self) -> Vec<String> {
        self.0
    }

    /// A file read at start-up must be there.
    pub(super) fn readable(&mut self, flag: &str, path: &Path) {
        if !path.is_file() {
            self.add(flag, format!("{} is not a readable file", path.display()));
        }
    }

    fn check_definitions(&mut self, paths: &[PathBuf]) {
        if paths.is_empty() {
            self.add(
                "crd-dir",
                "required: a CustomResourceDefinition file or directory",
            );
        }
        for path in paths.iter().filter(|p| !p.exists()) {
            self.add("crd-dir", format!("{} does not exist", path.display()));
        }
    }

    fn serving(&mut self, flags: &ServeFlags) -> Option<Serving> {
        match (&flags.tls_cert_file, &flags.tls_private_key_file) {
            (Some(cert), Some(key)) => Some(Serving::Files {
                cert: cert.clone(),
                key: key.clone(),
            }),
            (None, None) => match &flags.register.serving_ca_secret {
                None => Some(Serving::SelfSigned {
                    cert_dir: flags.cert_dir.clone(),
                }),
                // A malformed value is reported by `check_register`.
                Some(secret) => {
                    super::register::parse_namespaced(secret)
                        .ok()
                        .map(|(namespace, name)| Serving::CaSecret {
                            namespace,
                            name,
                            cert_dir: flags.cert_dir.clone(),
                        })
                }
            },
            (Some(_), None) => {
                self.add("tls-private-key-file", "required with --tls-cert-file");
                None
            }
            (None, Some(_)) => {
                self.add("tls-cert-file", "required with --tls-private-key-file");
                None
            }
        }
    }

    fn store(&mut self, flags: &ServeFlags) -> Option<StoreChoice> {
        if flags.etcd_servers.is_empty() {
            return Some(StoreChoice::Embedded {
                data_dir: flags.data_dir.clone(),
            });
        }
        let before = self.0.len();
        for server in &flags.etcd_servers {
            if !(server.starts_with("http://") || server.starts_with("https://")) {
                self.add(
                    "etcd-servers",
                    format!("{server:?} is not an http:// or https:// URL"),
                );
            }
        }
        if flags.etcd_certfile.is_some() != flags.etcd_keyfile.is_some() {
            self.add(
                "etcd-certfile",
                "--etcd-certfile and --etcd-keyfile must be given together",
            );
        }
        if !flags.etcd_prefix.starts_with('/') {
            self.add(
                "etcd-prefix",
                format!("{:?} must start with /", flags.etcd_prefix),
            );
        }
        (self.0.len() == before).then(|| {
            StoreChoice::Etcd(EtcdConfig {
                endpoints: flags.etcd_servers.clone(),
                ca_file: flags.etcd_cafile.clone(),
                cert_file: flags.etcd_certfile.clone(),
                key_file: flags.etcd_keyfile.clone(),
                dial_timeout: flags.etcd_dial_timeout,
                request_timeout: flags.request_timeout,
            })
        })
    }

    /// Files the server reads at start-up must be there; a missing one would otherwise
    /// fail half-way through start-up, one problem at a time.
    fn check_files(&mut self, flags: &ServeFlags) {
        let auth = &flags.auth;
        let files: [(&str, Option<&Path>); 10] = [
            ("tls-cert-file", flags.tls_cert_file.as_deref()),
            (
                "tls-private-key-file",
                flags.tls_private_key_file.as_deref(),
            ),
            ("client-ca-file", auth.client_ca_file.as_deref()),
            (
                "requestheader-client-ca-file",
                auth.requestheader_client_ca_file.as_deref(),
            ),
            (
                "authentication-kubeconfig",
                auth.authentication_kubeconfig.as_deref(),
            ),
            (
                "authorization-kubeconfig",
                auth.authorization_kubeconfig.as_deref(),
            ),
            ("kubeconfig", auth.kubeconfig.as_deref()),
            ("etcd-cafile", flags.etcd_cafile.as_deref()),
            ("etcd-certfile", flags.etcd_certfile.as_deref()),
            ("etcd-keyfile", flags.etcd_keyfile.as_deref()),
        ];
        for (flag, path) in files {
            if let Some(path) = path {
                self.readable(flag, path);
            }
        }
    }

    fn check_durations(&mut self, flags: &ServeFlags) {
        let positive: [(&str, Duration); 6] = [
            ("request-timeout", flags.request_timeout),
            ("etcd-dial-timeout", flags.etcd_dial_timeout),
            ("watch-bookmark-interval", flags.bookmark_interval),
            ("connection-idle-timeout", flags.limits.idle_timeout),
            ("tls-handshake-timeout", flags.limits.handshake_timeout),
            ("shutdown-timeout", flags.shutdown_timeout),
        ];
        for (flag, duration) in positive {
            if duration.is_zero() {
                self.add(flag, "must be greater than 0");
            }
        }
    }

    fn check_limits(&mut self, flags: &ServeFlags) {
        if flags.max_object_size == 0 {
            self.add("max-object-size", "must be greater than 0");
        }
    }

    /// kube allows `*` only at the end of an always-allowed path.
    fn check_always_allow_paths(&mut self, paths: &[String]) {
        for path in paths {
            if path.find('*').is_some_and(|i| i + 1 != path.len()) {
                self.add(
                    "authorization-always-allow-paths",
                    format!("only trailing * allowed in {path:?}"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::config::Cli;

    fn flags(args: &[&str]) -> ServeFlags {
        let mut argv = vec!["crd-apiserver"];
        argv.extend_from_slice(args);
        Cli::try_parse_from(argv).expect("flags parse").serve
    }

    #[test]
    fn validate_good_flags_make_choices() {
        let crds = env!("CARGO_MANIFEST_DIR").to_string() + "/manifests/examples";
        let config = flags(&["--crd-dir", &crds]).validate().expect("valid");
        assert!(matches!(config.serving, Serving::SelfSigned { .. }));
        assert!(matches!(config.store, StoreChoice::Embedded { .. }));
        let config = flags(&[
            "--crd-dir",
            &crds,
            "--etcd-servers",
            "http://127.0.0.1:2379",
        ])
        .validate()
        .expect("valid");
        assert!(matches!(config.store, StoreChoice::Etcd(_)));
    }

    #[test]
    fn validate_bad_flags_report_every_problem() {
        #[rustfmt::skip]
        let cases: [(&str, &[&str], &[&str]); 6] = [
            ("no definitions", &[], &["--crd-dir: required: a CustomResourceDefinition file or directory"]),
            ("half a serving pair", &["--crd-dir", "/", "--tls-cert-file", "/nonexistent.crt"], &[
                "--tls-private-key-file: required with --tls-cert-file",
                "--tls-cert-file: /nonexistent.crt is not a readable file",
            ]),
            ("etcd mistakes", &["--crd-dir", "/", "--etcd-servers", "127.0.0.1:2379", "--etcd-keyfile", "/k", "--etcd-prefix", "registry"], &[
                "--etcd-servers: \"127.0.0.1:2379\" is not an http:// or https:// URL",
                "--etcd-certfile: --etcd-certfile and --etcd-keyfile must be given together",
                "--etcd-prefix: \"registry\" must start with /",
                "--etcd-keyfile: /k is not a readable file",
            ]),
            ("zero durations and sizes", &["--crd-dir", "/", "--request-timeout", "0", "--connection-idle-timeout", "0", "--max-object-size", "0"], &[
                "--request-timeout: must be greater than 0",
                "--connection-idle-timeout: must be greater than 0",
                "--max-object-size: must be greater than 0",
            ]),
            ("missing CA and kubeconfig files", &["--crd-dir", "/nonexistent", "--client-ca-file", "/no-ca", "--kubeconfig", "/no-kc"], &[
                "--crd-dir: /nonexistent does not exist",
                "--client-ca-file: /no-ca is not a readable file",
                "--kubeconfig: /no-kc is not a readable file",
            ]),
            ("star inside an always-allowed path", &["--crd-dir", "/", "--authorization-always-allow-paths", "/a*b,/ok*"], &[
                "--authorization-always-allow-paths: only trailing * allowed in \"/a*b\"",
            ]),
        ];
        for (name, args, want) in cases {
            let got = flags(args).validate().expect_err(name).problems;
            assert_eq!(got, want, "{name}");
        }
    }
}
