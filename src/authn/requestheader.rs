//! Front-proxy (requestheader) authentication, as k8s.io/apiserver's `headerrequest`: a
//! certificate verifier for the requestheader CA plus the allowed CNs, wrapped around a
//! pure header reader. The headers count only when the certificate verified; they are
//! removed from every request whatever the outcome ([`HeaderNames::strip`]).
//!
//! Header grammar (names case-insensitive):
//! - user: the first non-empty value among the username headers (none = not ours);
//! - uid: the first non-empty value among the uid headers;
//! - groups: every non-empty value of every group header, in order;
//! - extra: for each prefix, every header starting with it; the key is the rest of the
//!   name lower-cased and %-decoded, the values are appended.

use std::collections::BTreeMap;

use http::HeaderMap;
use rustls::pki_types::CertificateDer;

use super::x509::CertVerifier;
use super::{Outcome, RejectReason, Rejection};
use crate::request::user::UserInfo;

/// The header names of the front-proxy protocol, stored lower-case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeaderNames {
    pub username: Vec<String>,
    pub uid: Vec<String>,
    pub group: Vec<String>,
    pub extra_prefixes: Vec<String>,
}

fn lower(names: &[String]) -> Vec<String> {
    names
        .iter()
        .map(|n| n.trim().to_ascii_lowercase())
        .filter(|n| !n.is_empty())
        .collect()
}

impl HeaderNames {
    pub fn new(username: &[String], uid: &[String], group: &[String], extra: &[String]) -> Self {
        HeaderNames {
            username: lower(username),
            uid: lower(uid),
            group: lower(group),
            extra_prefixes: lower(extra),
        }
    }

    /// kube's standard names, which are stripped from every request even when other
    /// names are configured (as `WithAuthentication` does).
    pub fn standard() -> Self {
        let s = |n: &str| vec![n.to_string()];
        HeaderNames::new(
            &s("X-Remote-User"),
            &s("X-Remote-Uid"),
            &s("X-Remote-Group"),
            &s("X-Remote-Extra-"),
        )
    }

    /// Whether the request carries any of these headers (a front-proxy attempt).
    pub fn present_in(&self, headers: &HeaderMap) -> bool {
        let exact = self.username.iter().chain(&self.uid).chain(&self.group);
        exact.into_iter().any(|n| headers.contains_key(n.as_str()))
            || headers
                .keys()
                .any(|k| self.has_extra_prefix(k.as_str()).is_some())
    }

    fn has_extra_prefix(&self, name: &str) -> Option<usize> {
        self.extra_prefixes
            .iter()
            .find(|p| name.len() >= p.len() && name[..p.len()].eq_ignore_ascii_case(p))
            .map(String::len)
    }

    /// Removes every header these names cover.
    pub fn strip(&self, headers: &mut HeaderMap) {
        for name in self.username.iter().chain(&self.uid).chain(&self.group) {
            headers.remove(name.as_str());
        }
        if self.extra_prefixes.is_empty() {
            return;
        }
        let extra: Vec<_> = headers
            .keys()
            .filter(|k| self.has_extra_prefix(k.as_str()).is_some())
            .cloned()
            .collect();
        for key in extra {
            headers.remove(key);
        }
    }

    /// The user the headers name; `None` without a non-empty username header.
    pub fn user(&self, headers: &HeaderMap) -> Option<UserInfo> {
        let name = first_value(headers, &self.username)?;
        let groups = self
            .group
            .iter()
            .flat_map(|n| headers.get_all(n.as_str()))
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .filter(|v| !v.is_empty())
            .collect();
        let mut user = UserInfo::new(name, groups);
        user.uid = first_value(headers, &self.uid).unwrap_or_default();
        user.extra = self.extra(headers);
        Some(user)
    }

    fn extra(&self, headers: &HeaderMap) -> BTreeMap<String, Vec<String>> {
        let mut extra: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for prefix in &self.extra_prefixes {
            for key in headers.keys() {
                let name = key.as_str();
                if name.len() < prefix.len() || !name[..prefix.len()].eq_ignore_ascii_case(prefix) {
                    continue;
                }
                let raw = name[prefix.len()..].to_ascii_lowercase();
                let decoded = path_unescape(&raw).unwrap_or(raw);
                let values = headers
                    .get_all(key)
                    .iter()
                    .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
                extra.entry(decoded).or_default().extend(values);
            }
        }
        extra
    }
}

/// Go's `url.PathUnescape`: `%XX` sequences decoded, `None` on a malformed one.
fn path_unescape(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// The first non-empty value of the first header (in order) that has one; like Go's
/// `Header.Get`, only a header's first value is looked at.
fn first_value(headers: &HeaderMap, names: &[String]) -> Option<String> {
    names
        .iter()
        .filter_map(|n| headers.get(n.as_str()))
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .find(|v| !v.is_empty())
}

/// The front-proxy authenticator: verified certificate, allowed CN, then headers.
#[derive(Clone)]
pub struct RequestHeaderAuthenticator {
    pub verifier: CertVerifier,
    /// Allowed client certificate CNs; empty = any CN signed by the CA.
    pub allowed_names: Vec<String>,
    pub names: HeaderNames,
}

impl RequestHeaderAuthenticator {
    pub fn authenticate(&self, headers: &HeaderMap, chain: &[CertificateDer<'static>]) -> Outcome {
        let Some((leaf, intermediates)) = chain.split_first() else {
            return Outcome::NotMine;
        };
        let subject = match self.verifier.verify(leaf, intermediates) {
            Ok(s) => s,
            Err(r) => return Outcome::Rejected(r),
        };
        let cn = &subject.common_name;
        if !self.allowed_names.is_empty() && !self.allowed_names.iter().any(|n| n == cn) {
            return Outcome::Rejected(Rejection {
                reason: RejectReason::CommonNameNotAllowed,
                detail: format!("x509: subject with cn={cn} is not in the allowed list"),
            });
        }
        match self.names.user(headers) {
            Some(user) => Outcome::User(user),
            None => Outcome::NotMine,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authn::x509::tests::der;
    use crate::server::pki::{self, Leaf};

    fn names() -> HeaderNames {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        HeaderNames::new(
            &s(&["X-Remote-User", "X-Other-User"]),
            &s(&["X-Remote-Uid"]),
            &s(&["X-Remote-Group", "X-Other-Group"]),
            &s(&["X-Remote-Extra-", "X-Other-Extra-"]),
        )
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                http::HeaderName::from_bytes(k.as_bytes()).expect("name"),
                v.parse().expect("value"),
            );
        }
        h
    }

    /// user, uid, groups, extra.
    type Expected = (
        &'static str,
        &'static str,
        Vec<&'static str>,
        Vec<(&'static str, Vec<&'static str>)>,
    );
    type Want = Result<Outcome, RejectReason>;
    type Headers = Vec<(&'static str, &'static str)>;

    #[test]
    fn user_header_sets_read_as_kube() {
        let cases: Vec<(&str, Headers, Option<Expected>)> = vec![
            ("no user", vec![("x-remote-group", "g")], None),
            ("empty user", vec![("x-remote-user", "")], None),
            (
                "mixed case names",
                vec![("X-REMOTE-USER", "bob"), ("x-Remote-Group", "a")],
                Some(("bob", "", vec!["a"], vec![])),
            ),
            (
                "second username header",
                vec![("x-remote-user", ""), ("x-other-user", "eve")],
                Some(("eve", "", vec![], vec![])),
            ),
            (
                "groups in order, empties dropped",
                vec![
                    ("x-remote-user", "bob"),
                    ("x-remote-group", "a"),
                    ("x-remote-group", ""),
                    ("x-remote-group", "b,c"),
                    ("x-other-group", "d"),
                ],
                Some(("bob", "", vec!["a", "b,c", "d"], vec![])),
            ),
            (
                "uid and extra",
                vec![
                    ("x-remote-user", "bob"),
                    ("x-remote-uid", "42"),
                    ("X-Remote-Extra-Scopes", "read"),
                    ("x-remote-extra-scopes", "write"),
                    ("x-remote-extra-example.org%2fkey", "v"),
                    ("x-other-extra-bad%zz", "w"),
                ],
                Some((
                    "bob",
                    "42",
                    vec![],
                    vec![
                        ("bad%zz", vec!["w"]),
                        ("example.org/key", vec!["v"]),
                        ("scopes", vec!["read", "write"]),
                    ],
                )),
            ),
        ];
        for (name, pairs, want) in cases {
            let got = names().user(&headers(&pairs));
            assert_eq!(got, want.map(expected_user), "{name}");
        }
    }

    fn expected_user((user, uid, groups, extra): Expected) -> UserInfo {
        let mut u = UserInfo::new(user.into(), groups.iter().map(|g| g.to_string()).collect());
        u.uid = uid.into();
        u.extra = extra
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect();
        u
    }

    #[test]
    fn strip_configured_and_prefixed_headers_removed() {
        let mut h = headers(&[
            ("X-Remote-User", "bob"),
            ("x-other-user", "eve"),
            ("x-remote-uid", "1"),
            ("x-remote-group", "a"),
            ("X-Remote-Extra-A", "1"),
            ("x-other-extra-b", "2"),
            ("accept", "application/json"),
        ]);
        assert!(names().present_in(&h));
        names().strip(&mut h);
        assert_eq!(h.len(), 1, "{h:?}");
        assert!(h.contains_key("accept"));
        assert!(!names().present_in(&h));
    }

    fn proxy_cert(ca: &pki::Authority, cn: &str) -> CertificateDer<'static> {
        let leaf = Leaf::Client {
            user: cn,
            groups: &[],
        };
        der(&ca.issue(leaf).expect("leaf").cert)
    }

    #[test]
    fn authenticate_certificate_gates_headers() {
        let ca = pki::new_authority("front-proxy-ca").expect("ca");
        let other = pki::new_authority("client-ca").expect("ca");
        let cert = |a: &pki::Authority, cn: &str| proxy_cert(a, cn);
        let auth = |allowed: &[&str]| RequestHeaderAuthenticator {
            verifier: CertVerifier::from_pem(ca.pem.cert.as_bytes()).expect("verifier"),
            allowed_names: allowed.iter().map(|s| s.to_string()).collect(),
            names: names(),
        };
        let h = headers(&[("x-remote-user", "bob")]);
        let bob = Outcome::User(UserInfo::new("bob".into(), vec![]));
        let cases: Vec<(&str, Vec<&str>, Vec<CertificateDer<'static>>, Want)> = vec![
            (
                "no certificate",
                vec!["front-proxy-client"],
                vec![],
                Ok(Outcome::NotMine),
            ),
            (
                "allowed cn",
                vec!["front-proxy-client"],
                vec![cert(&ca, "front-proxy-client")],
                Ok(bob.clone()),
            ),
            (
                "any cn when list empty",
                vec![],
                vec![cert(&ca, "whoever")],
                Ok(bob),
            ),
            (
                "cn not allowed",
                vec!["front-proxy-client"],
                vec![cert(&ca, "mallory")],
                Err(RejectReason::CommonNameNotAllowed),
            ),
            (
                "other ca",
                vec![],
                vec![cert(&other, "front-proxy-client")],
                Err(RejectReason::UnknownAuthority),
            ),
        ];
        for (name, allowed, chain, want) in cases {
            let got = match auth(&allowed).authenticate(&h, &chain) {
                Outcome::Rejected(r) => Err(r.reason),
                other => Ok(other),
            };
            assert_eq!(got, want, "{name}");
        }
        let no_user = auth(&[]).authenticate(&HeaderMap::new(), &[cert(&ca, "front-proxy-client")]);
        assert_eq!(
            no_user,
            Outcome::NotMine,
            "verified proxy without a user header"
        );
    }
}
