//! Serving pairs chosen by SNI (`--tls-sni-cert-key`), as k8s.io/apiserver's
//! `BuildNamedCertificates` and Go's `tls.Config.getCertificate` choose them: each pair
//! answers to its explicit names, or else to its certificate's CN (when that is a DNS
//! name, not an IP) and DNS SANs; earlier pairs win a name, explicit names win over
//! extracted ones. A handshake's server name is looked up lowercased, then with its first
//! label replaced by `*`; no match (or no SNI) gets the default pair.

use std::collections::HashMap;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::sign::CertifiedKey;

use crate::validation::is_dns1123_subdomain;

/// One SNI pair as loaded: its key and the names given on the flag.
pub struct Named {
    pub key: Arc<CertifiedKey>,
    pub explicit: Vec<String>,
}

/// The names a certificate answers to when none are given (Go's `getCertificateNames`):
/// the CN unless it is an IP or not a (wildcard) DNS name, then the DNS SANs. IP SANs
/// are left out: SNI cannot carry an IP.
pub fn certificate_names(leaf: &CertificateDer<'_>) -> Vec<String> {
    let Ok((_, parsed)) = x509_parser::parse_x509_certificate(leaf.as_ref()) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    // Go's pkix.Name keeps the last CN when a subject carries several.
    let cn = parsed
        .subject()
        .iter_common_name()
        .last()
        .and_then(|a| a.as_str().ok())
        .unwrap_or_default();
    let is_ip = cn.parse::<std::net::IpAddr>().is_ok();
    let is_domain =
        cn == "*" || is_dns1123_subdomain(cn.strip_prefix("*.").unwrap_or(cn)).is_empty();
    if !is_ip && is_domain {
        names.push(cn.to_string());
    }
    if let Ok(Some(san)) = parsed.subject_alternative_name() {
        for name in &san.value.general_names {
            if let x509_parser::extensions::GeneralName::DNSName(dns) = name {
                names.push(dns.to_string());
            }
        }
    }
    names
}

/// Server name → pair.
#[derive(Debug, Default)]
pub struct ByName(HashMap<String, Arc<CertifiedKey>>);

impl ByName {
    pub fn build(pairs: &[Named]) -> ByName {
        let mut by_name = HashMap::new();
        let mut explicit = HashMap::new();
        // Backwards, so that earlier pairs overwrite later ones.
        for pair in pairs.iter().rev() {
            for name in &pair.explicit {
                explicit.insert(name.clone(), pair.key.clone());
            }
            if pair.explicit.is_empty()
                && let Some(leaf) = pair.key.cert.first()
            {
                for name in certificate_names(leaf) {
                    by_name.insert(name, pair.key.clone());
                }
            }
        }
        by_name.extend(explicit);
        ByName(by_name)
    }

    /// The pair for a handshake's server name, if one answers to it.
    pub fn find(&self, server_name: Option<&str>) -> Option<&Arc<CertifiedKey>> {
        let name = server_name?.to_ascii_lowercase();
        if let Some(key) = self.0.get(&name) {
            return Some(key);
        }
        let wildcard = match name.split_once('.') {
            Some((_, rest)) => format!("*.{rest}"),
            None => "*".to_string(),
        };
        self.0.get(&wildcard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::pki::{self, Leaf};
    use crate::server::serving::certified_key;

    fn pair(hosts: &[&str], explicit: &[&str]) -> Named {
        let ca = pki::new_authority("sni-ca").expect("ca");
        let pem = ca.issue(Leaf::Serving { hosts }).expect("leaf");
        let path = std::path::Path::new("x");
        let key = certified_key(pem.cert.as_bytes(), pem.key.as_bytes(), path, path).expect("pair");
        Named {
            key: Arc::new(key),
            explicit: explicit.iter().map(|n| n.to_string()).collect(),
        }
    }

    #[test]
    fn certificate_names_cn_and_dns_sans_not_ips() {
        let cases: [(&[&str], &[&str]); 3] = [
            (
                &["a.example", "b.example", "10.0.0.1"],
                &["a.example", "a.example", "b.example"],
            ),
            (&["10.0.0.1", "c.example"], &["c.example"]),
            (&["*.wild.example"], &["*.wild.example", "*.wild.example"]),
        ];
        for (hosts, want) in cases {
            let named = pair(hosts, &[]);
            let leaf = &named.key.cert[0];
            assert_eq!(certificate_names(leaf), want, "{hosts:?}");
        }
    }

    #[test]
    fn by_name_find_precedence_and_wildcards() {
        let pairs = [
            pair(&["first.example"], &[]),
            pair(&["second.example", "first.example"], &[]),
            pair(&["*.wild.example"], &[]),
            pair(
                &["explicit-cert.example"],
                &["first.example", "*.other.example"],
            ),
        ];
        let by_name = ByName::build(&pairs);
        let which = |name: Option<&str>| {
            by_name
                .find(name)
                .map(|k| pairs.iter().position(|p| Arc::ptr_eq(&p.key, k)).unwrap())
        };
        #[rustfmt::skip]
        let cases = [
            (Some("first.example"), Some(3)), // explicit names win over extracted ones
            (Some("second.example"), Some(1)),
            (Some("SECOND.example"), Some(1)),
            (Some("a.wild.example"), Some(2)),
            (Some("a.b.wild.example"), None), // a wildcard covers one label
            (Some("x.other.example"), Some(3)),
            (Some("explicit-cert.example"), None), // explicit names replace the certificate's
            (Some("unknown.example"), None),
            (None, None),
        ];
        for (name, want) in cases {
            assert_eq!(which(name), want, "{name:?}");
        }
    }

    #[test]
    fn by_name_earlier_pair_wins_extracted_name() {
        let pairs = [pair(&["same.example"], &[]), pair(&["same.example"], &[])];
        let by_name = ByName::build(&pairs);
        let found = by_name.find(Some("same.example")).unwrap();
        assert!(Arc::ptr_eq(found, &pairs[0].key));
    }
}
