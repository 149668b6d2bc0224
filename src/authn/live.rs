//! The certificate authenticators in force (front proxy and client CA), replaced as a
//! whole when the `kube-system/extension-apiserver-authentication` ConfigMap changes, so
//! a rotated CA is trusted and a removed one refused without a restart.
//!
//! Each part comes from its flag when the flag is given (`--requestheader-client-ca-file`
//! with its header flags, `--client-ca-file`), else from the ConfigMap, as
//! k8s.io/apiserver decides. ConfigMap values: CA bundles as PEM, the other keys as JSON
//! string arrays (`["X-Remote-User"]`). Unlike upstream, which keeps the last bundle when
//! a key disappears, a missing CA key (or a deleted ConfigMap) switches that
//! authenticator off: the cluster withdrew the trust, so we fail closed. A key that does
//! not parse keeps the previous configuration and is logged.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};

use super::overlap;
use super::requestheader::{HeaderNames, RequestHeaderAuthenticator};
use super::x509::{CaBundleError, CertVerifier, X509Authenticator};
use crate::metrics::Metrics;

pub const CONFIGMAP_NAMESPACE: &str = "kube-system";
pub const CONFIGMAP_NAME: &str = "extension-apiserver-authentication";

/// The ConfigMap's keys, as kube-apiserver writes them.
pub mod keys {
    pub const CLIENT_CA: &str = "client-ca-file";
    pub const REQUESTHEADER_CA: &str = "requestheader-client-ca-file";
    pub const ALLOWED_NAMES: &str = "requestheader-allowed-names";
    pub const USERNAME_HEADERS: &str = "requestheader-username-headers";
    pub const UID_HEADERS: &str = "requestheader-uid-headers";
    pub const GROUP_HEADERS: &str = "requestheader-group-headers";
    pub const EXTRA_PREFIXES: &str = "requestheader-extra-headers-prefix";
}

/// One consistent set of certificate authenticators.
#[derive(Clone, Default)]
pub struct CertAuthenticators {
    pub requestheader: Option<RequestHeaderAuthenticator>,
    pub x509: Option<X509Authenticator>,
}

/// Which parts follow the ConfigMap; the others came from flags, and their CA files are
/// followed by [`super::cafile`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    pub client_ca_from_cluster: bool,
    pub requestheader_from_cluster: bool,
}

/// The live configuration, read once per request.
pub struct LiveCerts {
    current: RwLock<Arc<CertAuthenticators>>,
    /// Serialises updates (ConfigMap watcher, CA file reloader): each reads the current
    /// configuration and derives the next, so two at once could lose one.
    writer: Mutex<()>,
    sources: Sources,
    /// Where the front-proxy hazard ([`overlap`]) is reported.
    metrics: Option<Arc<Metrics>>,
}

type Data = BTreeMap<String, String>;

/// A ConfigMap key that does not parse; the previous configuration is kept.
#[derive(Debug, thiserror::Error)]
enum KeyError {
    /// A CA bundle key is not a usable bundle.
    #[error("{key}: {error}")]
    Bundle {
        key: &'static str,
        error: CaBundleError,
    },
    /// A header or names key is not a JSON string array.
    #[error("{key}: not a JSON string list: {error}")]
    List {
        key: &'static str,
        error: serde_json::Error,
    },
}

impl LiveCerts {
    pub fn new(initial: CertAuthenticators, sources: Sources) -> Self {
        LiveCerts {
            current: RwLock::new(Arc::new(initial)),
            writer: Mutex::new(()),
            sources,
            metrics: None,
        }
    }

    /// Reports the front-proxy hazard to `metrics` now and whenever it changes.
    pub fn with_metrics(mut self, metrics: Arc<Metrics>) -> Self {
        let shared = overlap::hazard(&self.current());
        metrics.set_requestheader_ca_shared(shared.is_some());
        if let Some(cas) = shared {
            overlap::warn(&cas);
        }
        self.metrics = Some(metrics);
        self
    }

    pub fn current(&self) -> Arc<CertAuthenticators> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn sources(&self) -> Sources {
        self.sources
    }

    /// Applies the ConfigMap's data (`None`: the ConfigMap does not exist).
    pub fn apply(&self, data: Option<&Data>) {
        let sources = self.sources;
        self.update(|old| {
            let mut next = old.clone();
            if sources.client_ca_from_cluster {
                next.x509 = client_ca(data, old.x509.as_ref());
            }
            if sources.requestheader_from_cluster {
                next.requestheader = requestheader(data, old.requestheader.as_ref());
            }
            next
        });
    }

    /// Puts a new client CA bundle in place (`--client-ca-file` changed).
    pub fn set_client_ca(&self, verifier: CertVerifier) {
        self.update(|old| CertAuthenticators {
            x509: Some(X509Authenticator::new(verifier)),
            ..old.clone()
        });
    }

    /// Puts a new requestheader CA bundle in place (`--requestheader-client-ca-file`
    /// changed); the allowed names and header names stay as the flags set them.
    pub fn set_requestheader_ca(&self, verifier: CertVerifier) {
        self.update(|old| CertAuthenticators {
            requestheader: old
                .requestheader
                .as_ref()
                .map(|r| RequestHeaderAuthenticator {
                    verifier,
                    ..r.clone()
                }),
            ..old.clone()
        });
    }

    /// Derives the next configuration from the current one and swaps it in; requests
    /// already running keep the configuration they started with.
    fn update(&self, next: impl FnOnce(&CertAuthenticators) -> CertAuthenticators) {
        let _writer = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let old = self.current();
        let next = next(&old);
        if let Some(metrics) = &self.metrics {
            let shared = overlap::hazard(&next);
            if shared != overlap::hazard(&old) {
                overlap::report_change(shared.as_deref(), metrics);
            }
        }
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(next);
    }
}

fn value<'a>(data: Option<&'a Data>, key: &str) -> Option<&'a str> {
    data.and_then(|d| d.get(key))
        .map(String::as_str)
        .filter(|v| !v.trim().is_empty())
}

/// A verifier for `pem`, reusing `old` when the bundle did not change.
fn verifier(
    pem: &str,
    old: Option<&CertVerifier>,
    key: &'static str,
) -> Result<CertVerifier, KeyError> {
    match old {
        Some(v) if v.built_from(pem.as_bytes()) => Ok(v.clone()),
        _ => {
            let v = CertVerifier::from_pem(pem.as_bytes())
                .map_err(|error| KeyError::Bundle { key, error })?;
            tracing::info!(key, "loaded a new CA bundle from the cluster");
            Ok(v)
        }
    }
}

fn client_ca(data: Option<&Data>, old: Option<&X509Authenticator>) -> Option<X509Authenticator> {
    let Some(pem) = value(data, keys::CLIENT_CA) else {
        if old.is_some() {
            tracing::warn!(
                key = keys::CLIENT_CA,
                "removed from the cluster; client certificate authentication is off"
            );
        }
        return None;
    };
    match verifier(pem, old.map(X509Authenticator::verifier), keys::CLIENT_CA) {
        Ok(v) => Some(X509Authenticator::new(v)),
        Err(e) => {
            tracing::error!(error = %e, "keeping the previous client CA");
            old.cloned()
        }
    }
}

fn requestheader(
    data: Option<&Data>,
    old: Option<&RequestHeaderAuthenticator>,
) -> Option<RequestHeaderAuthenticator> {
    let Some(pem) = value(data, keys::REQUESTHEADER_CA) else {
        if old.is_some() {
            tracing::warn!(
                key = keys::REQUESTHEADER_CA,
                "removed from the cluster; front-proxy authentication is off"
            );
        }
        return None;
    };
    match requestheader_from(pem, data, old) {
        Ok(r) => Some(r),
        // A broken sibling key may keep the previous configuration only while the CA is
        // unchanged: a rotated-out CA must never stay trusted.
        Err(e) => match old {
            Some(o) if o.verifier.built_from(pem.as_bytes()) => {
                tracing::error!(error = %e, "keeping the previous front-proxy configuration");
                Some(o.clone())
            }
            _ => {
                tracing::error!(error = %e, "front-proxy authentication is off until the ConfigMap is fixed");
                None
            }
        },
    }
}

fn requestheader_from(
    pem: &str,
    data: Option<&Data>,
    old: Option<&RequestHeaderAuthenticator>,
) -> Result<RequestHeaderAuthenticator, KeyError> {
    let list = |key| strings(value(data, key)).map_err(|error| KeyError::List { key, error });
    let names = HeaderNames::new(
        &list(keys::USERNAME_HEADERS)?,
        &list(keys::UID_HEADERS)?,
        &list(keys::GROUP_HEADERS)?,
        &list(keys::EXTRA_PREFIXES)?,
    );
    Ok(RequestHeaderAuthenticator {
        verifier: verifier(pem, old.map(|r| &r.verifier), keys::REQUESTHEADER_CA)?,
        allowed_names: list(keys::ALLOWED_NAMES)?,
        names,
    })
}

/// A JSON string array as kube-apiserver writes it; absent or empty = no values.
fn strings(raw: Option<&str>) -> Result<Vec<String>, serde_json::Error> {
    match raw {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authn::Outcome;
    use crate::authn::x509::tests::der;
    use crate::server::pki::{self, Leaf};
    use http::HeaderMap;

    fn data(pairs: &[(&str, &str)]) -> Data {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn strings_configmap_values_parse() {
        let cases = [
            (None, Ok(vec![])),
            (Some("[]"), Ok(vec![])),
            (
                Some(r#"["X-Remote-User","X-Other"]"#),
                Ok(vec!["X-Remote-User", "X-Other"]),
            ),
            (Some("X-Remote-User"), Err(())),
        ];
        for (raw, want) in cases {
            let got = strings(raw).map_err(|_| ());
            let want = want.map(|v| v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            assert_eq!(got, want, "{raw:?}");
        }
    }

    #[test]
    fn apply_rotation_and_removal_take_effect() {
        let ca1 = pki::new_authority("proxy-ca-1").expect("ca");
        let ca2 = pki::new_authority("proxy-ca-2").expect("ca");
        let proxy = |a: &pki::Authority| {
            vec![der(&a
                .issue(Leaf::Client {
                    user: "front-proxy-client",
                    groups: &[],
                })
                .expect("leaf")
                .cert)]
        };
        let (p1, p2) = (proxy(&ca1), proxy(&ca2));
        let sources = Sources {
            client_ca_from_cluster: true,
            requestheader_from_cluster: true,
        };
        let live = LiveCerts::new(CertAuthenticators::default(), sources);
        let mut headers = HeaderMap::new();
        headers.insert("x-remote-user", "bob".parse().expect("value"));
        let outcome = |chain: &[_]| match &live.current().requestheader {
            Some(r) => matches!(r.authenticate(&headers, chain), Outcome::User(_)),
            None => false,
        };
        let with = |ca: &pki::Authority| {
            data(&[
                (keys::REQUESTHEADER_CA, ca.pem.cert.as_str()),
                (keys::ALLOWED_NAMES, r#"["front-proxy-client"]"#),
                (keys::USERNAME_HEADERS, r#"["X-Remote-User"]"#),
            ])
        };
        live.apply(Some(&with(&ca1)));
        assert!(outcome(&p1) && !outcome(&p2), "first CA");
        live.apply(Some(&with(&ca2)));
        assert!(!outcome(&p1) && outcome(&p2), "rotated CA");
        let mut broken = with(&ca2);
        broken.insert(keys::ALLOWED_NAMES.into(), "not json".into());
        live.apply(Some(&broken));
        assert!(
            outcome(&p2),
            "an unparsable update with the same CA keeps the previous configuration"
        );
        let mut broken = with(&ca1);
        broken.insert(keys::ALLOWED_NAMES.into(), "not json".into());
        live.apply(Some(&broken));
        assert!(
            !outcome(&p1) && !outcome(&p2),
            "an unparsable update with a changed CA turns front-proxy auth off"
        );
        live.apply(Some(&data(&[(keys::CLIENT_CA, ca1.pem.cert.as_str())])));
        assert!(
            live.current().requestheader.is_none(),
            "removed key turns it off"
        );
        assert!(live.current().x509.is_some(), "client CA loaded");
        live.apply(None);
        assert!(
            live.current().x509.is_none(),
            "deleted ConfigMap turns it off"
        );
    }
}
