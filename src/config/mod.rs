//! Configuration stage: command-line flags (k8s.io/apiserver's names) into typed flags
//! ([`ServeFlags`]), validated into a [`validate::Config`] with every problem reported at once.

pub mod admission;
pub mod audit;
pub mod auth;
pub mod ciphers;
pub mod encryption;
pub mod migrate;
pub mod offload;
pub mod register;
pub mod tracing;
pub mod transport;
pub mod validate;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Command line of the `crd-apiserver` binary.
#[derive(Parser, Debug)]
#[command(
    name = "crd-apiserver",
    version,
    about = "Serves CRD-defined resources as a Kubernetes aggregated apiserver"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub serve: ServeFlags,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Development mode: generated PKI and kubeconfig under pki/dev, example CRDs, embedded store.
    Dev(Box<ServeFlags>),
    /// Rewrites every object of the given resources at its storage version, through a
    /// running server (kube's StorageVersionMigration request per object).
    Migrate(migrate::MigrateFlags),
    /// Deletes the APIServices this server registered (for uninstall hooks).
    Unregister(register::UnregisterFlags),
    /// Offload mode: `status` shows each taken-over resource's phase; `--undo <crd>`
    /// moves one back to the host cluster.
    Offload(offload::OffloadCommand),
}

/// How log lines are written to stderr.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Flags shared by serving and dev mode.
#[derive(Args, Debug, Clone)]
pub struct ServeFlags {
    /// CustomResourceDefinition manifests: a file or a directory of YAML/JSON files (repeatable).
    #[arg(long = "crd-dir", env = "CRD_APISERVER_CRD_DIR", value_delimiter = ',')]
    pub crd_dir: Vec<PathBuf>,
    /// Port for HTTPS.
    #[arg(long = "secure-port", default_value_t = 8443)]
    pub secure_port: u16,
    /// Address to listen on.
    #[arg(long = "bind-address", default_value = "0.0.0.0")]
    pub bind_address: IpAddr,
    /// Serving certificate (PEM, leaf first); with --tls-private-key-file.
    #[arg(long = "tls-cert-file")]
    pub tls_cert_file: Option<PathBuf>,
    /// Serving private key (PEM).
    #[arg(long = "tls-private-key-file")]
    pub tls_private_key_file: Option<PathBuf>,
    /// Where a self-signed serving certificate is written when no certificate is given.
    #[arg(
        long = "cert-dir",
        default_value = "apiserver.local.config/certificates"
    )]
    pub cert_dir: PathBuf,
    /// Directory of the embedded store.
    #[arg(long = "data-dir", default_value = "data")]
    pub data_dir: PathBuf,
    /// etcd endpoints (comma-separated); unset = the embedded store under --data-dir.
    #[arg(long = "etcd-servers", value_delimiter = ',')]
    pub etcd_servers: Vec<String>,
    /// CA bundle that etcd's serving certificate must chain to.
    #[arg(long = "etcd-cafile")]
    pub etcd_cafile: Option<PathBuf>,
    /// Client certificate for etcd (PEM).
    #[arg(long = "etcd-certfile")]
    pub etcd_certfile: Option<PathBuf>,
    /// Client key for etcd (PEM).
    #[arg(long = "etcd-keyfile")]
    pub etcd_keyfile: Option<PathBuf>,
    /// How long connecting to etcd may take at start-up and on reconnects.
    #[arg(long = "etcd-dial-timeout", default_value = "20s", value_parser = parse_duration)]
    pub etcd_dial_timeout: Duration,
    /// How long one storage request may take before the client gets a 504.
    #[arg(long = "request-timeout", default_value = "60s", value_parser = parse_duration)]
    pub request_timeout: Duration,
    /// Largest stored form of one object, in bytes (etcd's default request limit, 1.5 MiB);
    /// writes over it are refused with 413 on every store.
    #[arg(long = "max-object-size", default_value_t = 1536 * 1024)]
    pub max_object_size: usize,
    /// Prefix of every storage key.
    #[arg(long = "etcd-prefix", default_value = "/registry")]
    pub etcd_prefix: String,
    /// How often storage history is compacted (to the revision seen one interval earlier); 0 disables.
    #[arg(long = "etcd-compaction-interval", default_value = "5m", value_parser = parse_duration)]
    pub compaction_interval: Duration,
    /// How often an idle watch with allowWatchBookmarks gets a BOOKMARK event.
    #[arg(long = "watch-bookmark-interval", default_value = "60s", value_parser = parse_duration)]
    pub bookmark_interval: Duration,
    /// Events each resource's watch cache keeps for watches to resume from (kube's
    /// `--default-watch-cache-size`); 0 serves every read and watch from the store directly.
    #[arg(long = "default-watch-cache-size", default_value_t = crate::storage::cache::DEFAULT_WINDOW)]
    pub watch_cache_size: usize,
    /// Start even when objects are stored at a version no longer in their CRD's
    /// spec.versions (they cannot be read; each is logged as a warning).
    #[arg(long = "allow-unmigrated-versions")]
    pub allow_unmigrated_versions: bool,
    /// How long in-flight requests may take to finish after SIGTERM.
    #[arg(long = "shutdown-timeout", default_value = "60s", value_parser = parse_duration)]
    pub shutdown_timeout: Duration,
    #[command(flatten)]
    pub limits: LimitFlags,
    #[command(flatten)]
    pub transport: transport::TransportFlags,
    /// Dev mode only: where the dev PKI and kubeconfig are kept.
    #[arg(long = "dev-pki-dir", default_value = "pki/dev")]
    pub dev_pki_dir: PathBuf,
    #[command(flatten)]
    pub auth: auth::AuthFlags,
    #[command(flatten)]
    pub admission: admission::AdmissionFlags,
    #[command(flatten)]
    pub audit: audit::AuditFlags,
    #[command(flatten)]
    pub encryption: encryption::EncryptionFlags,
    #[command(flatten)]
    pub tracing: tracing::TracingFlags,
    #[command(flatten)]
    pub register: register::RegisterFlags,
    #[command(flatten)]
    pub offload: offload::OffloadFlags,
    /// Log format.
    #[arg(long = "log-format", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// What one client, or a crowd of strangers, can make the server hold: requests in
/// flight (k8s.io/apiserver's names and defaults), idle connections, and how long the
/// server keeps serving after SIGTERM while readiness is already red.
#[derive(Args, Debug, Clone)]
pub struct LimitFlags {
    /// Read-only requests (get, list) served at once; more get 429 with Retry-After.
    /// Watches and health probes are not counted. 0 = unlimited.
    #[arg(long = "max-requests-inflight", default_value_t = 400)]
    pub max_requests_inflight: usize,
    /// Mutating requests served at once; more get 429 with Retry-After. 0 = unlimited.
    #[arg(long = "max-mutating-requests-inflight", default_value_t = 200)]
    pub max_mutating_requests_inflight: usize,
    /// Open watches one user may hold (0 = unlimited); more get a 429.
    #[arg(long = "max-watches-per-user", default_value_t = crate::watch::limit::DEFAULT_MAX_WATCHES_PER_USER)]
    pub max_watches_per_user: usize,
    /// After SIGTERM, how long to keep serving with /readyz failing before the listener
    /// closes, so load balancers and endpoints stop routing here first.
    #[arg(long = "shutdown-delay-duration", default_value = "0", value_parser = parse_duration)]
    pub shutdown_delay: Duration,
    /// An HTTP/1.1 or HTTP/2 connection with no request in flight for this long is closed.
    #[arg(long = "connection-idle-timeout", default_value = "90s", value_parser = parse_duration)]
    pub idle_timeout: Duration,
    /// How long a TLS handshake may take (tests shorten it).
    #[arg(long = "tls-handshake-timeout", default_value = "10s", value_parser = parse_duration, hide = true)]
    pub handshake_timeout: Duration,
}

impl ServeFlags {
    pub fn listen_addr(&self) -> SocketAddr {
        SocketAddr::new(self.bind_address, self.secure_port)
    }
}

/// Parses Go-style durations as kube flags take them: `90s`, `5m`, `1h30m`, `250ms`, `0`.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    if text.is_empty() {
        return Err(DurationError::Empty);
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .ok_or_else(|| DurationError::MissingUnit(text.into()))?;
        let (number, tail) = rest.split_at(digits);
        let value: f64 = number
            .parse()
            .map_err(|_| DurationError::Invalid(text.into()))?;
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, next) = tail.split_at(unit_len);
        let seconds = match unit {
            "ms" => value / 1000.0,
            "s" => value,
            "m" => value * 60.0,
            "h" => value * 3600.0,
            _ => return Err(DurationError::UnknownUnit(unit.into(), text.into())),
        };
        total = Duration::try_from_secs_f64(seconds)
            .ok()
            .and_then(|d| total.checked_add(d))
            .ok_or_else(|| DurationError::Invalid(text.into()))?;
        rest = next;
    }
    // Go's time.Duration is int64 nanoseconds; anything longer is refused there too (and
    // would overflow deadlines computed from it).
    if total > Duration::from_nanos(i64::MAX.unsigned_abs()) {
        return Err(DurationError::Invalid(text.into()));
    }
    Ok(total)
}

/// Why a duration flag does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// An empty value.
    #[error("empty duration")]
    Empty,
    /// A number with no unit after it (`5`).
    #[error("missing unit in duration {0:?}")]
    MissingUnit(String),
    /// A unit other than ms, s, m, h.
    #[error("unknown unit {0:?} in duration {1:?}")]
    UnknownUnit(String, String),
    /// A number that does not parse or does not fit a duration.
    #[error("invalid duration {0:?}")]
    Invalid(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_duration_go_forms_parse() {
        let cases = [
            ("0", Some(0.0)),
            ("90s", Some(90.0)),
            ("5m", Some(300.0)),
            ("1h30m", Some(5400.0)),
            ("250ms", Some(0.25)),
            ("5", None),
            ("5x", None),
            ("", None),
            ("1.2.3s", None),
            ("99999999999999999999999h", None),
            ("3000000000000000h", None),
            ("2562047h", Some(2562047.0 * 3600.0)),
        ];
        for (text, want) in cases {
            let got = parse_duration(text).ok().map(|d| d.as_secs_f64());
            assert_eq!(got, want, "{text}");
        }
    }
}
