#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::*;

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

fn cert(subject: &str, issuer: &str, from: u64, to: u64, hosts: &[&str]) -> CertInfo {
    CertInfo {
        subject: subject.into(),
        issuer: issuer.into(),
        not_before: at(from),
        not_after: at(to),
        hosts: hosts.iter().map(|h| h.to_string()).collect(),
    }
}

const HOSTS: &[&str] = &["svc", "localhost"];

/// CA "new" valid 0..1000 (due at 800), leaf valid 0..100 (due at 80).
fn healthy() -> Held {
    let ca = cert("CN=new", "CN=new", 0, 1000, &[]);
    Held {
        leaf: Some(cert("CN=svc", "CN=new", 0, 100, HOSTS)),
        ca: Some(ca.clone()),
        bundle: vec![ca],
    }
}

#[test]
fn renew_at_eighty_percent_of_life() {
    let cases = [(0, 100, 80), (1000, 2000, 1800), (10, 35, 30)];
    for (from, to, want) in cases {
        assert_eq!(
            cert("a", "a", from, to, &[]).renew_at(),
            at(want),
            "{from}..{to}"
        );
    }
}

#[test]
fn plan_held_and_clock_write_needed() {
    let old_ca = cert("CN=old", "CN=old", 0, 500, &[]);
    let with_old = |mut held: Held| {
        held.bundle.push(old_ca.clone());
        held
    };
    let cases: Vec<(&str, Held, Vec<&str>, u64, Plan)> = vec![
        (
            "empty secret",
            Held::default(),
            HOSTS.to_vec(),
            10,
            Plan::Create,
        ),
        (
            "no CA, a leaf",
            Held {
                ca: None,
                ..healthy()
            },
            HOSTS.to_vec(),
            10,
            Plan::Create,
        ),
        ("CA expired", healthy(), HOSTS.to_vec(), 1000, Plan::Create),
        ("CA at 80 %", healthy(), HOSTS.to_vec(), 800, Plan::RotateCa),
        (
            "fresh: until the leaf is due",
            healthy(),
            HOSTS.to_vec(),
            10,
            Plan::Keep { until: at(80) },
        ),
        (
            "leaf at 80 %",
            healthy(),
            HOSTS.to_vec(),
            80,
            Plan::RenewLeaf,
        ),
        (
            "leaf for other names",
            healthy(),
            vec!["svc", "svc.ns"],
            10,
            Plan::RenewLeaf,
        ),
        (
            "hosts in another order are the same names",
            healthy(),
            vec!["localhost", "svc"],
            10,
            Plan::Keep { until: at(80) },
        ),
        (
            "no leaf",
            Held {
                leaf: None,
                ..healthy()
            },
            HOSTS.to_vec(),
            10,
            Plan::RenewLeaf,
        ),
        (
            "leaf of a CA not in the bundle",
            Held {
                leaf: Some(cert("CN=svc", "CN=stranger", 0, 100, HOSTS)),
                ..healthy()
            },
            HOSTS.to_vec(),
            10,
            Plan::RenewLeaf,
        ),
        (
            "leaf of the older CA while it is valid: kept",
            Held {
                leaf: Some(cert("CN=svc", "CN=old", 0, 100, HOSTS)),
                ..with_old(healthy())
            },
            HOSTS.to_vec(),
            10,
            Plan::Keep { until: at(80) },
        ),
        (
            "older CA ends before anything is due: woken then",
            Held {
                leaf: Some(cert("CN=svc", "CN=new", 0, 1000, HOSTS)),
                ..with_old(healthy())
            },
            HOSTS.to_vec(),
            10,
            Plan::Keep { until: at(500) },
        ),
        (
            "older CA expired: pruned",
            Held {
                leaf: Some(cert("CN=svc", "CN=new", 0, 1000, HOSTS)),
                ..with_old(healthy())
            },
            HOSTS.to_vec(),
            500,
            Plan::Prune,
        ),
    ];
    for (name, held, hosts, now, want) in cases {
        let hosts: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
        assert_eq!(plan(&held, &hosts, at(now)), want, "{name}");
    }
}

#[test]
fn rotated_bundle_new_first_expired_dropped() {
    let valid = cert("CN=a", "CN=a", 0, 500, &[]);
    let expired = cert("CN=b", "CN=b", 0, 100, &[]);
    let got = rotated_bundle("NEW", [("A", &valid), ("B", &expired)], at(200));
    assert_eq!(got, vec!["NEW", "A"]);
    let got = rotated_bundle("NEW", [("A", &valid)], at(500));
    assert_eq!(got, vec!["NEW"], "a CA is dropped the moment it expires");
}

#[test]
fn wait_bounded_by_a_second_and_the_poll() {
    let poll = Duration::from_secs(60);
    let cases = [(10, 40, 30), (10, 10, 1), (50, 10, 1), (0, 1000, 60)];
    for (now, until, want) in cases {
        assert_eq!(
            wait(at(until), at(now), poll),
            Duration::from_secs(want),
            "now {now}, until {until}"
        );
    }
}
