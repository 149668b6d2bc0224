//! Authentication and authorization flags, with k8s.io/apiserver's names and defaults
//! (`DelegatingAuthenticationOptions`, `DelegatingAuthorizationOptions`).
//!
//! Boolean flags take Go's forms: `--anonymous-auth=false`, or bare `--authentication-skip-lookup`.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args};

use super::parse_duration;

/// Flags of the authn/authz stages, flattened into the serve flags.
#[derive(Args, Debug, Clone)]
pub struct AuthFlags {
    /// CA bundle (PEM) that client certificates must chain to (user = CN, groups = O);
    /// unset = the cluster's `client-ca-file` from the authentication ConfigMap.
    #[arg(long = "client-ca-file")]
    pub client_ca_file: Option<PathBuf>,
    /// CA bundle (PEM) of the front proxy's client certificate; unset = from the cluster.
    #[arg(long = "requestheader-client-ca-file")]
    pub requestheader_client_ca_file: Option<PathBuf>,
    /// CNs the front proxy's certificate may have (comma-separated); empty = any.
    #[arg(long = "requestheader-allowed-names", value_delimiter = ',')]
    pub requestheader_allowed_names: Vec<String>,
    /// Headers holding the user name, first non-empty wins.
    #[arg(
        long = "requestheader-username-headers",
        value_delimiter = ',',
        default_value = "x-remote-user"
    )]
    pub requestheader_username_headers: Vec<String>,
    /// Headers holding the user's UID (none by default, as upstream).
    #[arg(long = "requestheader-uid-headers", value_delimiter = ',')]
    pub requestheader_uid_headers: Vec<String>,
    /// Headers holding the user's groups.
    #[arg(
        long = "requestheader-group-headers",
        value_delimiter = ',',
        default_value = "x-remote-group"
    )]
    pub requestheader_group_headers: Vec<String>,
    /// Header prefixes of the user's extra attributes.
    #[arg(
        long = "requestheader-extra-headers-prefix",
        value_delimiter = ',',
        default_value = "x-remote-extra-"
    )]
    pub requestheader_extra_headers_prefix: Vec<String>,
    /// Kubeconfig for TokenReview and the authentication ConfigMap (else --kubeconfig,
    /// else in-cluster).
    #[arg(long = "authentication-kubeconfig")]
    pub authentication_kubeconfig: Option<PathBuf>,
    /// Kubeconfig for SubjectAccessReview (else --kubeconfig, else in-cluster).
    #[arg(long = "authorization-kubeconfig")]
    pub authorization_kubeconfig: Option<PathBuf>,
    /// Kubeconfig for both when the specific flags are not given.
    #[arg(long = "kubeconfig")]
    pub kubeconfig: Option<PathBuf>,
    /// Do not read the authentication ConfigMap from the cluster.
    #[arg(long = "authentication-skip-lookup", action = ArgAction::Set, num_args = 0..=1,
        default_value_t = false, default_missing_value = "true")]
    pub authentication_skip_lookup: bool,
    /// Start even when the ConfigMap lookup fails (requests may then be anonymous).
    #[arg(long = "authentication-tolerate-lookup-failure", action = ArgAction::Set,
        num_args = 0..=1, default_value_t = false, default_missing_value = "true")]
    pub authentication_tolerate_lookup_failure: bool,
    /// Requests no authenticator recognises run as system:anonymous (else 401).
    #[arg(long = "anonymous-auth", action = ArgAction::Set, num_args = 0..=1,
        default_value_t = true, default_missing_value = "true")]
    pub anonymous_auth: bool,
    /// How long TokenReview answers are cached.
    #[arg(long = "authentication-token-webhook-cache-ttl", default_value = "10s",
        value_parser = parse_duration)]
    pub authentication_token_webhook_cache_ttl: Duration,
    /// Non-resource paths anyone may request (a trailing `*` matches a prefix).
    #[arg(
        long = "authorization-always-allow-paths",
        value_delimiter = ',',
        default_value = "/healthz,/readyz,/livez"
    )]
    pub authorization_always_allow_paths: Vec<String>,
    /// Groups that skip SubjectAccessReview.
    #[arg(
        long = "authorization-always-allow-groups",
        value_delimiter = ',',
        default_value = "system:masters"
    )]
    pub authorization_always_allow_groups: Vec<String>,
    /// How long an allowed SubjectAccessReview answer is cached.
    #[arg(long = "authorization-webhook-cache-authorized-ttl", default_value = "10s",
        value_parser = parse_duration)]
    pub authorization_webhook_cache_authorized_ttl: Duration,
    /// How long a denied SubjectAccessReview answer is cached.
    #[arg(long = "authorization-webhook-cache-unauthorized-ttl", default_value = "10s",
        value_parser = parse_duration)]
    pub authorization_webhook_cache_unauthorized_ttl: Duration,
}

/// A list flag without its empty entries (`--flag=""` means "none").
pub fn non_empty(values: &[String]) -> Vec<String> {
    values
        .iter()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        auth: AuthFlags,
    }

    fn parse(args: &[&str]) -> AuthFlags {
        let mut argv = vec!["test"];
        argv.extend_from_slice(args);
        Cli::try_parse_from(argv).expect("parse").auth
    }

    #[test]
    fn parse_defaults_match_kube() {
        let f = parse(&[]);
        assert!(f.anonymous_auth);
        assert!(!f.authentication_skip_lookup);
        assert_eq!(f.requestheader_username_headers, ["x-remote-user"]);
        assert!(f.requestheader_uid_headers.is_empty());
        assert_eq!(
            f.authorization_always_allow_paths,
            ["/healthz", "/readyz", "/livez"]
        );
        assert_eq!(f.authorization_always_allow_groups, ["system:masters"]);
        assert_eq!(
            f.authentication_token_webhook_cache_ttl,
            Duration::from_secs(10)
        );
    }

    #[test]
    fn parse_go_style_booleans_and_lists() {
        let f = parse(&[
            "--anonymous-auth=false",
            "--authentication-skip-lookup",
            "--requestheader-allowed-names=front-proxy-client,aggregator",
            "--authorization-always-allow-groups=",
        ]);
        assert!(!f.anonymous_auth);
        assert!(f.authentication_skip_lookup);
        assert_eq!(
            f.requestheader_allowed_names,
            ["front-proxy-client", "aggregator"]
        );
        assert!(non_empty(&f.authorization_always_allow_groups).is_empty());
    }
}
