//! The serving CA Secret's content (type `kubernetes.io/tls`): `tls.crt`/`tls.key` the
//! serving pair, `ca.crt` the bundle (current CA first, then older CAs still valid),
//! `ca.key` the current CA's key; read into [`Held`] for the plan, and the next content
//! made for each [`Plan`].

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use k8s_openapi::ByteString;
use rcgen::PublicKeyData;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use x509_parser::extensions::GeneralName;

use super::pki::{self, Authority, Leaf, PkiError};
use super::rotation::{CertInfo, Held, Plan, rotated_bundle};

pub const TLS_CRT: &str = "tls.crt";
pub const TLS_KEY: &str = "tls.key";
pub const CA_CRT: &str = "ca.crt";
pub const CA_KEY: &str = "ca.key";

/// The four PEM texts of the Secret (empty when absent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contents {
    pub tls_crt: String,
    pub tls_key: String,
    pub ca_crt: String,
    pub ca_key: String,
}

/// The lifetimes of what is issued.
#[derive(Debug, Clone, Copy)]
pub struct Lifetimes {
    pub cert: Duration,
    pub ca: Duration,
}

impl Contents {
    pub fn from_data(data: Option<&BTreeMap<String, ByteString>>) -> Contents {
        let get = |key: &str| {
            data.and_then(|d| d.get(key))
                .map(|b| String::from_utf8_lossy(&b.0).into_owned())
                .unwrap_or_default()
        };
        Contents {
            tls_crt: get(TLS_CRT),
            tls_key: get(TLS_KEY),
            ca_crt: get(CA_CRT),
            ca_key: get(CA_KEY),
        }
    }

    pub fn to_data(&self) -> BTreeMap<String, ByteString> {
        [
            (TLS_CRT, &self.tls_crt),
            (TLS_KEY, &self.tls_key),
            (CA_CRT, &self.ca_crt),
            (CA_KEY, &self.ca_key),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), ByteString(v.clone().into_bytes())))
        .collect()
    }

    /// What the certificates say; a leaf or CA whose key does not match is absent.
    pub fn held(&self) -> Held {
        let bundle: Vec<(String, CertInfo)> = pems(&self.ca_crt);
        let first = |pem: &str, key: &str| {
            pems(pem)
                .into_iter()
                .next()
                .filter(|(der_pem, _)| key_matches(der_pem, key))
                .map(|(_, info)| info)
        };
        Held {
            leaf: first(&self.tls_crt, &self.tls_key),
            ca: first(&self.ca_crt, &self.ca_key),
            bundle: bundle.into_iter().map(|(_, info)| info).collect(),
        }
    }

    /// The content after `plan` (`Keep`: unchanged).
    pub fn next(
        &self,
        plan: &Plan,
        hosts: &[String],
        lifetimes: Lifetimes,
        now: SystemTime,
    ) -> Result<Contents, PkiError> {
        match plan {
            Plan::Keep { .. } => Ok(self.clone()),
            Plan::Create => {
                let ca = new_ca(lifetimes.ca)?;
                let leaf = serving(&ca, hosts, lifetimes.cert)?;
                Ok(Contents {
                    tls_crt: leaf.cert,
                    tls_key: leaf.key,
                    ca_crt: ca.pem.cert.clone(),
                    ca_key: ca.pem.key,
                })
            }
            Plan::RotateCa => {
                let ca = new_ca(lifetimes.ca)?;
                let older = pems(&self.ca_crt);
                let bundle = rotated_bundle(
                    &ca.pem.cert,
                    older.iter().map(|(pem, info)| (pem.as_str(), info)),
                    now,
                );
                Ok(Contents {
                    ca_crt: bundle.concat(),
                    ca_key: ca.pem.key.clone(),
                    ..self.clone()
                })
            }
            Plan::RenewLeaf => {
                let ca = self.current_ca()?;
                let leaf = serving(&ca, hosts, lifetimes.cert)?;
                Ok(Contents {
                    tls_crt: leaf.cert,
                    tls_key: leaf.key,
                    ..self.clone()
                })
            }
            Plan::Prune => {
                let kept: Vec<String> = pems(&self.ca_crt)
                    .into_iter()
                    .filter(|(_, info)| now < info.not_after)
                    .map(|(pem, _)| pem)
                    .collect();
                Ok(Contents {
                    ca_crt: kept.concat(),
                    ..self.clone()
                })
            }
        }
    }

    fn current_ca(&self) -> Result<Authority, PkiError> {
        let first = pems(&self.ca_crt)
            .into_iter()
            .next()
            .ok_or_else(|| PkiError::Parse("ca.crt holds no certificate".into()))?;
        Authority::from_pem(&first.0, &self.ca_key)
    }
}

/// A new CA whose name carries its creation time, as kube's self-signed CAs'
/// (`<host>-ca@<unix seconds>`, here with nanoseconds), so that successive CAs have
/// distinct subjects and a leaf's issuer names one CA of the bundle.
fn new_ca(lifetime: Duration) -> Result<Authority, PkiError> {
    let since = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let name = format!(
        "crd-apiserver-serving-ca@{}.{:09}",
        since.as_secs(),
        since.subsec_nanos()
    );
    pki::new_authority_for(&name, lifetime)
}

fn serving(ca: &Authority, hosts: &[String], lifetime: Duration) -> Result<pki::Pem, PkiError> {
    let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
    ca.issue_for(Leaf::Serving { hosts: &hosts }, lifetime)
}

/// Each certificate of a PEM text, re-encoded alone, with what it says.
fn pems(text: &str) -> Vec<(String, CertInfo)> {
    CertificateDer::pem_slice_iter(text.as_bytes())
        .filter_map(Result::ok)
        .filter_map(|der| {
            let info = info(&der)?;
            Some((pem_of(&der), info))
        })
        .collect()
}

fn pem_of(der: &CertificateDer<'_>) -> String {
    use base64::Engine;
    let body = base64::engine::general_purpose::STANDARD.encode(der.as_ref());
    let lines: Vec<&str> = body
        .as_bytes()
        .chunks(64)
        .filter_map(|c| std::str::from_utf8(c).ok())
        .collect();
    format!(
        "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
        lines.join("\n")
    )
}

/// Subject, issuer, validity and names of a DER certificate.
pub fn info(der: &CertificateDer<'_>) -> Option<CertInfo> {
    let (_, cert) = x509_parser::parse_x509_certificate(der.as_ref()).ok()?;
    let time = |t: x509_parser::time::ASN1Time| {
        let secs = u64::try_from(t.timestamp()).unwrap_or(0);
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    };
    let hosts = cert
        .subject_alternative_name()
        .ok()
        .flatten()
        .map(|san| san.value.general_names.iter().filter_map(host_of).collect())
        .unwrap_or_default();
    Some(CertInfo {
        subject: cert.subject().to_string(),
        issuer: cert.issuer().to_string(),
        not_before: time(cert.validity().not_before),
        not_after: time(cert.validity().not_after),
        hosts,
    })
}

fn host_of(name: &GeneralName<'_>) -> Option<String> {
    match name {
        GeneralName::DNSName(dns) => Some(dns.to_string()),
        GeneralName::IPAddress(bytes) => match bytes.len() {
            4 => <[u8; 4]>::try_from(*bytes)
                .ok()
                .map(|b| std::net::IpAddr::from(b).to_string()),
            16 => <[u8; 16]>::try_from(*bytes)
                .ok()
                .map(|b| std::net::IpAddr::from(b).to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `key_pem` is the private key of the certificate in `cert_pem`.
fn key_matches(cert_pem: &str, key_pem: &str) -> bool {
    let Ok(key) = rcgen::KeyPair::from_pem(key_pem) else {
        return false;
    };
    let Ok(der) = CertificateDer::from_pem_slice(cert_pem.as_bytes()) else {
        return false;
    };
    x509_parser::parse_x509_certificate(der.as_ref())
        .is_ok_and(|(_, cert)| cert.public_key().raw == key.subject_public_key_info().as_slice())
}

#[cfg(test)]
#[path = "ca_contents_tests.rs"]
mod tests;
