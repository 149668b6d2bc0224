//! Authentication stage: who is asking. The chain, as k8s.io/apiserver's delegated
//! authenticator (the first authenticator that recognises the request decides):
//!
//! 1. [`requestheader`]: the front proxy — a certificate chaining to the requestheader CA
//!    with an allowed CN, then the user from the `X-Remote-*` headers;
//! 2. [`x509`]: a certificate chaining to the client CA (user = CN, groups = O);
//! 3. [`token`]: a bearer token resolved through TokenReview;
//! 4. otherwise `system:anonymous` when `--anonymous-auth`, else 401. A credential that
//!    was presented and refused is a 401 even with anonymous access (upstream's
//!    `FailOnError`), so a bad certificate or token never degrades to anonymous.
//!
//! Every authenticated user gets `system:authenticated`. The front-proxy headers (kube's
//! standard names and the configured ones) are removed from every request, whatever the
//! outcome, so handlers never see them; `Authorization` is removed once the request is
//! authenticated (anonymous included), as upstream.
//! The impersonation stage that follows (`authz::impersonation`) may then swap the user
//! for the one the `Impersonate-*` headers name, once authorization allows it.
//! The certificate configuration is live ([`live`]): the ConfigMap [`configmap`] watcher
//! swaps it on rotation.

pub mod cafile;
pub mod configmap;
pub mod live;
pub mod overlap;
pub mod requestheader;
pub mod setup;
pub mod token;
pub mod x509;

#[cfg(test)]
mod tests;

use std::sync::{Arc, LazyLock};

use http::HeaderMap;
use rustls::pki_types::CertificateDer;

use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::request::user::UserInfo;
use live::LiveCerts;
use requestheader::HeaderNames;

/// Why a credential was refused; [`RejectReason::label`] is what `/metrics` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RejectReason {
    /// The chain does not lead to the CA bundle.
    UnknownAuthority,
    Expired,
    NotYetValid,
    /// The certificate is not for client authentication (extended key usage).
    WrongKeyUsage,
    /// A front-proxy certificate whose CN is not in the allowed names.
    CommonNameNotAllowed,
    /// Any other certificate problem (bad signature, unparsable, ...).
    BadCertificate,
    /// TokenReview said the token is not valid.
    InvalidToken,
    /// The TokenReview call failed.
    ReviewFailed,
}

impl RejectReason {
    pub fn label(self) -> &'static str {
        match self {
            RejectReason::UnknownAuthority => "unknown_authority",
            RejectReason::Expired => "expired",
            RejectReason::NotYetValid => "not_yet_valid",
            RejectReason::WrongKeyUsage => "wrong_key_usage",
            RejectReason::CommonNameNotAllowed => "cn_not_allowed",
            RejectReason::BadCertificate => "bad_certificate",
            RejectReason::InvalidToken => "invalid_token",
            RejectReason::ReviewFailed => "review_failed",
        }
    }
}

/// A refusal with its detail for the log (never a credential's bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub reason: RejectReason,
    pub detail: String,
}

/// What one authenticator made of a request: kube's "user / not mine / error".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    User(UserInfo),
    NotMine,
    Rejected(Rejection),
}

/// The authentication chain.
pub struct Authenticator {
    certs: Arc<LiveCerts>,
    token: Option<token::TokenAuthenticator>,
    anonymous: bool,
    metrics: Arc<Metrics>,
}

type Rejections = Vec<(&'static str, Rejection)>;

/// kube's standard front-proxy header names, stripped from every request.
static STANDARD_HEADERS: LazyLock<HeaderNames> = LazyLock::new(HeaderNames::standard);

impl Authenticator {
    pub fn new(
        certs: Arc<LiveCerts>,
        token: Option<token::TokenAuthenticator>,
        anonymous: bool,
        metrics: Arc<Metrics>,
    ) -> Self {
        Authenticator {
            certs,
            token,
            anonymous,
            metrics,
        }
    }

    /// Runs the chain and strips the front-proxy headers from `headers`.
    pub async fn authenticate(
        &self,
        headers: &mut HeaderMap,
        peer_certs: &[CertificateDer<'static>],
    ) -> Result<UserInfo, ApiError> {
        let certs = self.certs.current();
        let standard = &*STANDARD_HEADERS;
        let configured = certs.requestheader.as_ref().map(|r| &r.names);
        let proxied =
            standard.present_in(headers) || configured.is_some_and(|n| n.present_in(headers));
        let (user, rejections) = self.run_chain(&certs, headers, peer_certs).await;
        standard.strip(headers);
        if let Some(names) = configured {
            names.strip(headers);
        }
        self.report(&rejections, user.is_none(), proxied);
        let user = match user {
            Some(user) => user.with_authenticated_group(),
            None if rejections.is_empty() && self.anonymous => UserInfo::anonymous(),
            None => return Err(ApiError::Unauthorized),
        };
        headers.remove(http::header::AUTHORIZATION);
        Ok(user)
    }

    async fn run_chain(
        &self,
        certs: &live::CertAuthenticators,
        headers: &HeaderMap,
        peer_certs: &[CertificateDer<'static>],
    ) -> (Option<UserInfo>, Rejections) {
        let mut rejections = Vec::new();
        let mut take = |name, outcome| match outcome {
            Outcome::User(user) => Some(user),
            Outcome::NotMine => None,
            Outcome::Rejected(r) => {
                rejections.push((name, r));
                None
            }
        };
        if let Some(rh) = &certs.requestheader
            && let Some(user) = take("requestheader", rh.authenticate(headers, peer_certs))
        {
            return (Some(user), rejections);
        }
        if let Some(x509) = &certs.x509
            && let Some(user) = take("x509", x509.authenticate(peer_certs))
        {
            return (Some(user), rejections);
        }
        if let (Some(tokens), Some(bearer)) = (&self.token, token::bearer_token(headers))
            && let Some(user) = take("token", tokens.authenticate(bearer).await)
        {
            return (Some(user), rejections);
        }
        (None, rejections)
    }

    /// Logs and counts refusals that matter: all of them when the request failed, and
    /// front-proxy ones when the request carried front-proxy headers (a client
    /// certificate user is otherwise refused by the front-proxy CA as a matter of course).
    fn report(&self, rejections: &Rejections, failed: bool, proxied: bool) {
        for (authenticator, r) in rejections {
            let front_proxy_attempt = proxied && *authenticator == "requestheader";
            if !(failed || front_proxy_attempt) {
                continue;
            }
            let reason = r.reason.label();
            tracing::info!(authenticator, reason, detail = %r.detail, "authentication rejected");
            self.metrics.count_rejection(authenticator, reason);
        }
    }
}
