//! When the serving CA Secret needs a write: the pure decision over what the Secret holds
//! now (certificates' lifetimes, issuers and names) and the clock. A certificate is
//! renewed at 80 % of its life (the CA too); a rotated CA goes first in the bundle and
//! the older CAs stay until they expire, so clients that verify with the bundle trust
//! the serving certificates of either CA during the overlap.

use std::time::{Duration, SystemTime};

/// The share of a certificate's life after which it is renewed (kube's client-go
/// certificate manager renews between 70 and 90 %; we renew at 80 %).
const RENEW_SHARE: f64 = 0.8;

/// What one certificate says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertInfo {
    pub subject: String,
    pub issuer: String,
    pub not_before: SystemTime,
    pub not_after: SystemTime,
    /// DNS names and IP addresses (as text) of its subjectAltName.
    pub hosts: Vec<String>,
}

impl CertInfo {
    /// When it is due for renewal: 80 % into its life.
    pub fn renew_at(&self) -> SystemTime {
        let life = self
            .not_after
            .duration_since(self.not_before)
            .unwrap_or_default();
        self.not_before + life.mul_f64(RENEW_SHARE)
    }

    fn expired(&self, now: SystemTime) -> bool {
        now >= self.not_after
    }
}

/// The Secret's certificates, parsed (`None`: absent or unreadable).
#[derive(Debug, Clone, Default)]
pub struct Held {
    /// `tls.crt` (its first certificate) with a matching `tls.key`.
    pub leaf: Option<CertInfo>,
    /// The current CA: `ca.crt`'s first certificate, with `ca.key`.
    pub ca: Option<CertInfo>,
    /// Every certificate of `ca.crt` (the current CA first).
    pub bundle: Vec<CertInfo>,
}

/// The write the Secret needs next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// No usable CA: a new CA and serving certificate.
    Create,
    /// The CA is due: a new CA first in the bundle, the older ones kept while valid;
    /// the serving certificate stays (its CA is still in the bundle).
    RotateCa,
    /// The serving certificate is due, missing, for other names, or signed by a CA no
    /// longer in the bundle: a new one from the current CA.
    RenewLeaf,
    /// An expired CA is dropped from the bundle.
    Prune,
    /// Nothing to write until then.
    Keep { until: SystemTime },
}

/// The write `held` needs at `now` for a serving certificate of `hosts`.
pub fn plan(held: &Held, hosts: &[String], now: SystemTime) -> Plan {
    let Some(ca) = held.ca.as_ref().filter(|ca| !ca.expired(now)) else {
        return Plan::Create;
    };
    if now >= ca.renew_at() {
        return Plan::RotateCa;
    }
    let leaf = match &held.leaf {
        Some(leaf) if leaf_usable(leaf, held, hosts, now) => leaf,
        _ => return Plan::RenewLeaf,
    };
    if held.bundle.iter().any(|c| c.expired(now)) {
        return Plan::Prune;
    }
    let older_ends = held.bundle.iter().skip(1).map(|c| c.not_after);
    let until = [ca.renew_at(), leaf.renew_at()]
        .into_iter()
        .chain(older_ends)
        .min()
        .unwrap_or(now);
    Plan::Keep { until }
}

fn leaf_usable(leaf: &CertInfo, held: &Held, hosts: &[String], now: SystemTime) -> bool {
    let signed_by_bundle = held
        .bundle
        .iter()
        .any(|ca| ca.subject == leaf.issuer && !ca.expired(now));
    let mut have = leaf.hosts.clone();
    let mut want = hosts.to_vec();
    have.sort();
    want.sort();
    signed_by_bundle && have == want && now < leaf.renew_at()
}

/// The bundle after a rotation: the new CA, then the older CAs still valid at `now`.
pub fn rotated_bundle<'a>(
    new_ca: &'a str,
    older: impl IntoIterator<Item = (&'a str, &'a CertInfo)>,
    now: SystemTime,
) -> Vec<&'a str> {
    std::iter::once(new_ca)
        .chain(
            older
                .into_iter()
                .filter(|(_, info)| !info.expired(now))
                .map(|(pem, _)| pem),
        )
        .collect()
}

/// How long to wait before looking again: until `until`, at least a second (so a clock
/// step cannot spin the loop), at most `poll` (other replicas may have written).
pub fn wait(until: SystemTime, now: SystemTime, poll: Duration) -> Duration {
    until
        .duration_since(now)
        .unwrap_or_default()
        .clamp(Duration::from_secs(1), poll.max(Duration::from_secs(1)))
}

#[cfg(test)]
#[path = "rotation_tests.rs"]
mod tests;
