#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use rustls::pki_types::{ServerName, UnixTime};

use super::*;

const DAY: Duration = Duration::from_secs(24 * 3600);

fn hosts() -> Vec<String> {
    ["crd-apiserver.ns.svc", "localhost", "127.0.0.1"]
        .iter()
        .map(|h| h.to_string())
        .collect()
}

fn lifetimes() -> Lifetimes {
    Lifetimes {
        cert: DAY,
        ca: 10 * DAY,
    }
}

/// Whether the serving certificate verifies for `host` with `ca.crt` as the roots.
fn chains(contents: &Contents, roots_pem: &str, host: &str) -> bool {
    let mut roots = rustls::RootCertStore::empty();
    for der in CertificateDer::pem_slice_iter(roots_pem.as_bytes()) {
        roots.add(der.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
        .build()
        .unwrap();
    let leaf = CertificateDer::from_pem_slice(contents.tls_crt.as_bytes()).unwrap();
    let name = ServerName::try_from(host.to_string()).unwrap();
    verifier
        .verify_server_cert(&leaf, &[], &name, &[], UnixTime::now())
        .is_ok()
}

fn created() -> Contents {
    Contents::default()
        .next(&Plan::Create, &hosts(), lifetimes(), SystemTime::now())
        .unwrap()
}

#[test]
fn create_empty_secret_serving_pair_chains_to_bundle() {
    let c = created();
    for host in ["crd-apiserver.ns.svc", "localhost", "127.0.0.1"] {
        assert!(chains(&c, &c.ca_crt, host), "{host}");
    }
    assert!(!chains(&c, &c.ca_crt, "elsewhere.example"));
    let held = c.held();
    assert!(held.leaf.is_some() && held.ca.is_some());
    assert_eq!(held.bundle.len(), 1);
    let now = SystemTime::now();
    match plan(&held, &hosts(), now) {
        Plan::Keep { until } => {
            let due = until.duration_since(now).unwrap();
            // 80 % of a day, less the backdating (at most 5 minutes).
            assert!(
                due > DAY.mul_f64(0.79) && due <= DAY.mul_f64(0.8),
                "{due:?}"
            );
        }
        other => panic!("a fresh secret needs {other:?}"),
    }
}

fn plan(held: &Held, hosts: &[String], now: SystemTime) -> Plan {
    super::super::rotation::plan(held, hosts, now)
}

#[test]
fn rotate_ca_bundle_new_then_old_leaf_kept_then_renewed_by_new() {
    let first = created();
    let rotated = first
        .next(&Plan::RotateCa, &hosts(), lifetimes(), SystemTime::now())
        .unwrap();
    let held = rotated.held();
    assert_eq!(held.bundle.len(), 2, "new and old CA");
    assert_eq!(held.bundle[1], first.held().bundle[0], "the old CA second");
    assert_ne!(held.bundle[0].subject, held.bundle[1].subject);
    assert_eq!(
        held.ca.as_ref(),
        Some(&held.bundle[0]),
        "ca.key is the new CA's"
    );
    assert_eq!(rotated.tls_crt, first.tls_crt, "the leaf stays until due");
    assert!(chains(&rotated, &rotated.ca_crt, "localhost"));

    let renewed = rotated
        .next(&Plan::RenewLeaf, &hosts(), lifetimes(), SystemTime::now())
        .unwrap();
    assert_ne!(renewed.tls_crt, rotated.tls_crt);
    let new_ca_only = pems(&renewed.ca_crt)[0].0.clone();
    assert!(
        chains(&renewed, &new_ca_only, "localhost"),
        "signed by the new CA"
    );
    let old_ca_only = pems(&renewed.ca_crt)[1].0.clone();
    assert!(!chains(&renewed, &old_ca_only, "localhost"));
}

#[test]
fn prune_expired_ca_dropped_current_kept() {
    let short = Lifetimes {
        cert: Duration::from_secs(60),
        ca: Duration::from_secs(100),
    };
    let first = Contents::default()
        .next(&Plan::Create, &hosts(), short, SystemTime::now())
        .unwrap();
    let rotated = first
        .next(&Plan::RotateCa, &hosts(), lifetimes(), SystemTime::now())
        .unwrap();
    let later = SystemTime::now() + Duration::from_secs(200);
    let pruned = rotated
        .next(&Plan::Prune, &hosts(), lifetimes(), later)
        .unwrap();
    assert_eq!(pruned.held().bundle, vec![rotated.held().bundle[0].clone()]);
}

#[test]
fn leaf_capped_at_its_ca_end() {
    let c = Contents::default()
        .next(
            &Plan::Create,
            &hosts(),
            Lifetimes {
                cert: 10 * DAY,
                ca: DAY,
            },
            SystemTime::now(),
        )
        .unwrap();
    let held = c.held();
    assert_eq!(held.leaf.unwrap().not_after, held.ca.unwrap().not_after);
}

#[test]
fn held_key_of_another_certificate_no_leaf() {
    let a = created();
    let b = created();
    let mixed = Contents {
        tls_key: b.tls_key.clone(),
        ..a.clone()
    };
    assert!(mixed.held().leaf.is_none());
    assert!(mixed.held().ca.is_some());
    let mixed_ca = Contents {
        ca_key: b.ca_key.clone(),
        ..a
    };
    assert!(mixed_ca.held().ca.is_none());
}

#[test]
fn data_round_trip_four_keys() {
    let c = created();
    let data = c.to_data();
    let keys: Vec<&str> = data.keys().map(String::as_str).collect();
    assert_eq!(keys, vec!["ca.crt", "ca.key", "tls.crt", "tls.key"]);
    assert_eq!(Contents::from_data(Some(&data)), c);
    assert_eq!(Contents::from_data(None), Contents::default());
}

#[test]
fn create_short_ca_long_cert_leaf_not_due_at_once() {
    // A leaf capped by a short-lived CA is backdated by a tenth of its capped life, not
    // of the asked 720h: otherwise it would be due again as soon as issued.
    let short = Lifetimes {
        cert: 720 * 3600 * Duration::from_secs(1),
        ca: Duration::from_secs(20),
    };
    let c = Contents::default()
        .next(&Plan::Create, &hosts(), short, SystemTime::now())
        .unwrap();
    let now = SystemTime::now();
    match plan(&c.held(), &hosts(), now) {
        Plan::Keep { until } => assert!(until > now + Duration::from_secs(10), "{until:?}"),
        other => panic!("a fresh secret needs {other:?}"),
    }
}

#[test]
fn issue_huge_lifetime_bounded_not_panicking() {
    let huge = Lifetimes {
        cert: Duration::from_secs(u64::MAX / 4),
        ca: Duration::from_secs(u64::MAX / 4),
    };
    let c = Contents::default()
        .next(&Plan::Create, &hosts(), huge, SystemTime::now())
        .unwrap();
    assert!(c.held().ca.is_some());
}
