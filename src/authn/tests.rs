//! The chain as a whole: which authenticator decides, and that the front-proxy headers
//! are gone from the request whatever the outcome.

use std::sync::Arc;

use http::HeaderMap;
use rustls::pki_types::CertificateDer;

use super::Authenticator;
use super::live::{CertAuthenticators, LiveCerts, Sources};
use super::requestheader::{HeaderNames, RequestHeaderAuthenticator};
use super::x509::tests::der;
use super::x509::{CertVerifier, X509Authenticator};
use crate::metrics::Metrics;
use crate::request::user::UserInfo;
use crate::server::pki::{self, Authority, Leaf};

struct Cas {
    proxy: Authority,
    client: Authority,
    stranger: Authority,
}

fn chain(ca: &Authority, cn: &str, groups: &[&str]) -> Vec<CertificateDer<'static>> {
    vec![der(&ca
        .issue(Leaf::Client { user: cn, groups })
        .expect("leaf")
        .cert)]
}

fn authenticator(cas: &Cas, anonymous: bool, metrics: Arc<Metrics>) -> Authenticator {
    let s = |v: &str| vec![v.to_string()];
    let verifier = |ca: &Authority| CertVerifier::from_pem(ca.pem.cert.as_bytes()).expect("ca");
    let certs = CertAuthenticators {
        requestheader: Some(RequestHeaderAuthenticator {
            verifier: verifier(&cas.proxy),
            allowed_names: s("front-proxy-client"),
            names: HeaderNames::new(
                &s("X-Proxy-User"),
                &[],
                &s("X-Proxy-Group"),
                &s("X-Proxy-Extra-"),
            ),
        }),
        x509: Some(X509Authenticator::new(verifier(&cas.client))),
    };
    let live = Arc::new(LiveCerts::new(certs, Sources::default()));
    Authenticator::new(live, None, anonymous, metrics)
}

fn forged_headers() -> HeaderMap {
    let mut h = HeaderMap::new();
    for (k, v) in [
        ("x-proxy-user", "bob"),
        ("x-proxy-group", "dev"),
        ("x-proxy-extra-team", "blue"),
        ("x-remote-user", "admin"),
        ("x-remote-uid", "0"),
        ("x-remote-group", "system:masters"),
        ("x-remote-extra-scopes", "all"),
        ("authorization", "Bearer token"),
        ("accept", "application/json"),
    ] {
        h.append(k, v.parse().expect("value"));
    }
    h
}

#[tokio::test]
async fn authenticate_every_outcome_strips_front_proxy_headers() {
    let cas = Cas {
        proxy: pki::new_authority("proxy").expect("ca"),
        client: pki::new_authority("client").expect("ca"),
        stranger: pki::new_authority("stranger").expect("ca"),
    };
    let bob = UserInfo::new(
        "bob".into(),
        vec!["dev".into(), "system:authenticated".into()],
    );
    let mut bob = bob;
    bob.extra.insert("team".into(), vec!["blue".into()]);
    let carol_chain = chain(&cas.client, "carol", &["ops"]);
    let mut carol = UserInfo::authenticated("carol".into(), vec!["ops".into()]);
    // kube's x509 authenticator names the certificate as the user's credential.
    let digest = ring::digest::digest(&ring::digest::SHA256, carol_chain[0].as_ref());
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    carol.extra.insert(
        "authentication.kubernetes.io/credential-id".into(),
        vec![format!("X509SHA256={hex}")],
    );
    let cases = [
        (
            "front proxy",
            true,
            chain(&cas.proxy, "front-proxy-client", &[]),
            Ok(bob),
        ),
        ("client certificate", true, carol_chain, Ok(carol)),
        ("no certificate", true, vec![], Ok(UserInfo::anonymous())),
        ("no certificate, anonymous off", false, vec![], Err(401)),
        (
            "unknown CA",
            true,
            chain(&cas.stranger, "front-proxy-client", &[]),
            Err(401),
        ),
        (
            "CN not allowed",
            true,
            chain(&cas.proxy, "mallory", &[]),
            Err(401),
        ),
    ];
    for (name, anonymous, certs, want) in cases {
        let auth = authenticator(&cas, anonymous, Arc::new(Metrics::new()));
        let mut headers = forged_headers();
        let got = auth
            .authenticate(&mut headers, &certs)
            .await
            .map_err(|e| e.code());
        assert_eq!(got, want, "{name}");
        let left: Vec<&str> = headers.keys().map(|k| k.as_str()).collect();
        let expected: &[&str] = if want.is_ok() {
            &["accept"]
        } else {
            &["authorization", "accept"]
        };
        assert_eq!(left, expected, "{name}: headers left");
    }
}

#[tokio::test]
async fn authenticate_rejections_counted_by_reason() {
    let cas = Cas {
        proxy: pki::new_authority("proxy").expect("ca"),
        client: pki::new_authority("client").expect("ca"),
        stranger: pki::new_authority("stranger").expect("ca"),
    };
    let metrics = Arc::new(Metrics::new());
    let auth = authenticator(&cas, true, metrics.clone());
    let attempts = [
        chain(&cas.proxy, "mallory", &[]),
        chain(&cas.stranger, "front-proxy-client", &[]),
        // A client-certificate user without front-proxy headers is not a front-proxy attempt.
        chain(&cas.client, "carol", &[]),
    ];
    for (i, certs) in attempts.iter().enumerate() {
        let mut headers = if i < 2 {
            forged_headers()
        } else {
            HeaderMap::new()
        };
        let _ = auth.authenticate(&mut headers, certs).await;
    }
    let text = metrics.render();
    for (series, want) in [
        (
            "authenticator=\"requestheader\",reason=\"cn_not_allowed\"} ",
            "1",
        ),
        (
            "authenticator=\"requestheader\",reason=\"unknown_authority\"} ",
            "1",
        ),
        ("authenticator=\"x509\",reason=\"unknown_authority\"} ", "2"),
    ] {
        let line = format!("crd_apiserver_authentication_rejections_total{{{series}{want}");
        assert!(text.contains(&line), "missing {line} in\n{text}");
    }
}
