//! Bearer-token authentication through the cluster's TokenReview
//! (`authentication.k8s.io/v1`), as k8s.io/apiserver's delegated token authenticator:
//! answers, authenticated or not, are cached for `--authentication-token-webhook-cache-ttl`
//! under a SHA-256 of the token (the token itself is never stored or logged); failed
//! calls are not cached.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http::HeaderMap;
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec, TokenReviewStatus};
use kube::api::{Api, PostParams};

use super::{Outcome, RejectReason, Rejection};
use crate::cluster::cache::{DEFAULT_CAPACITY, TtlCache};
use crate::cluster::client::review;
use crate::metrics::Metrics;
use crate::request::user::UserInfo;

/// The token of an `Authorization: Bearer <token>` header, as upstream's `bearertoken`.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers
        .get(http::header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .trim();
    let mut parts = value.splitn(3, ' ');
    let scheme = parts.next()?;
    let token = parts.next()?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

type TokenKey = [u8; 32];

/// Resolves bearer tokens through TokenReview, with a TTL cache.
pub struct TokenAuthenticator {
    api: Api<TokenReview>,
    cache: TtlCache<TokenKey, Option<UserInfo>>,
    ttl: Duration,
    metrics: Arc<Metrics>,
}

impl TokenAuthenticator {
    pub fn new(client: kube::Client, ttl: Duration, metrics: Arc<Metrics>) -> Self {
        TokenAuthenticator {
            api: Api::all(client),
            cache: TtlCache::new(DEFAULT_CAPACITY),
            ttl,
            metrics,
        }
    }

    /// The user the token belongs to, a rejection for an invalid token or a failed review.
    pub async fn authenticate(&self, token: &str) -> Outcome {
        let key = token_key(token);
        let answer = match self.cache.get(&key, Instant::now()) {
            Some(hit) => hit,
            None => match self.review(token).await {
                Ok(answer) => {
                    self.cache
                        .insert(key, answer.clone(), self.ttl, Instant::now());
                    answer
                }
                Err(rejection) => return Outcome::Rejected(rejection),
            },
        };
        match answer {
            Some(user) => Outcome::User(user),
            None => Outcome::Rejected(Rejection {
                reason: RejectReason::InvalidToken,
                detail: "invalid bearer token".into(),
            }),
        }
    }

    async fn review(&self, token: &str) -> Result<Option<UserInfo>, Rejection> {
        let request = TokenReview {
            spec: TokenReviewSpec {
                token: token.to_string(),
                audiences: None,
            },
            ..Default::default()
        };
        let params = PostParams::default();
        match review(|| self.api.create(&params, &request)).await {
            Ok(answer) => {
                let user = answer.status.and_then(user_from_status);
                let result = if user.is_some() {
                    "authenticated"
                } else {
                    "unauthenticated"
                };
                self.metrics.count_review("tokenreview", result);
                Ok(user)
            }
            Err(e) => {
                self.metrics.count_review("tokenreview", e.label());
                Err(Rejection {
                    reason: RejectReason::ReviewFailed,
                    detail: format!("tokenreview: {e}"),
                })
            }
        }
    }
}

fn token_key(token: &str) -> TokenKey {
    let digest = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
    let mut key = [0u8; 32];
    key.copy_from_slice(digest.as_ref());
    key
}

/// The user of an authenticated review; `None` when not authenticated or nameless.
fn user_from_status(status: TokenReviewStatus) -> Option<UserInfo> {
    if status.authenticated != Some(true) {
        return None;
    }
    let info = status.user?;
    let name = info.username.filter(|n| !n.is_empty())?;
    let mut user = UserInfo::new(name, info.groups.unwrap_or_default());
    user.uid = info.uid.unwrap_or_default();
    user.extra = info
        .extra
        .unwrap_or_default()
        .into_iter()
        .collect::<BTreeMap<_, _>>();
    Some(user)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::authentication::v1::UserInfo as ReviewUser;

    #[test]
    fn bearer_token_header_forms() {
        let cases = [
            ("Bearer abc", Some("abc")),
            ("bearer abc", Some("abc")),
            ("  Bearer abc  ", Some("abc")),
            ("Bearer abc def", Some("abc")),
            ("Bearer ", None),
            ("Bearer", None),
            ("Basic abc", None),
        ];
        for (value, want) in cases {
            let mut h = HeaderMap::new();
            h.insert(http::header::AUTHORIZATION, value.parse().expect("value"));
            assert_eq!(bearer_token(&h), want, "{value:?}");
        }
        assert_eq!(bearer_token(&HeaderMap::new()), None, "no header");
    }

    #[test]
    fn user_from_status_review_answers() {
        let user = |name: &str| ReviewUser {
            username: Some(name.into()),
            uid: Some("u1".into()),
            groups: Some(vec!["g".into()]),
            extra: Some([("k".to_string(), vec!["v".to_string()])].into()),
        };
        let status = |authenticated, u| TokenReviewStatus {
            authenticated: Some(authenticated),
            user: u,
            ..Default::default()
        };
        let mut bob = UserInfo::new("bob".into(), vec!["g".into()]);
        bob.uid = "u1".into();
        bob.extra = [("k".to_string(), vec!["v".to_string()])].into();
        let cases = [
            ("authenticated", status(true, Some(user("bob"))), Some(bob)),
            ("not authenticated", status(false, Some(user("bob"))), None),
            ("no user", status(true, None), None),
            ("empty name", status(true, Some(user(""))), None),
        ];
        for (name, status, want) in cases {
            assert_eq!(user_from_status(status), want, "{name}");
        }
    }
}
