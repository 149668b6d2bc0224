//! The open watches one user may hold (`--max-watches-per-user`; 0 = unlimited). kube
//! bounds watches only through its in-flight and priority-and-fairness accounting; here a
//! watch past its user's limit gets the in-flight limit's 429 (`TooManyRequests`,
//! `Retry-After`), with a text naming the limit. Users are counted by the name
//! authentication (and impersonation) gave them; `system:masters` is exempt, as from the
//! in-flight limit (kube's `exempt` priority level). A watch's place is given back when
//! the watch ends, however it ends (timeout, error, shutdown, the client going away).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::request::user::UserInfo;

/// `--max-watches-per-user`'s default.
pub const DEFAULT_MAX_WATCHES_PER_USER: usize = 1000;

/// The group whose members are not counted (as for the in-flight limit).
const SYSTEM_MASTERS: &str = "system:masters";

/// Open watches by user name; only users with an open watch have an entry.
type Open = Arc<Mutex<HashMap<Arc<str>, usize>>>;

/// The per-user watch limit.
pub struct WatchLimit {
    max: usize,
    open: Open,
}

/// A watch's place in its user's count, given back when dropped.
#[derive(Debug)]
pub struct WatchSlot {
    open: Open,
    user: Arc<str>,
}

/// A user at their limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtLimit {
    pub max: usize,
}

impl AtLimit {
    /// The 429's message: kube's in-flight text (`Too many requests, please try again
    /// later.`) with what is limited and the limit, so that a client or an operator
    /// tells it from the in-flight limit and knows which flag is involved.
    pub fn message(&self) -> String {
        format!(
            "Too many open watches (at most {} per user), please try again later.",
            self.max
        )
    }
}

impl WatchLimit {
    /// At most `max` open watches per user; 0 is unlimited.
    pub fn new(max: usize) -> WatchLimit {
        WatchLimit {
            max,
            open: Arc::default(),
        }
    }

    /// A place for one more watch of `user`: none when the user is not counted, or
    /// [`AtLimit`] when the user holds `max` open watches already.
    pub fn admit(&self, user: &UserInfo) -> Result<Option<WatchSlot>, AtLimit> {
        if self.max == 0 || user.groups.iter().any(|g| g == SYSTEM_MASTERS) {
            return Ok(None);
        }
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let count = open.entry(Arc::from(user.name.as_str())).or_insert(0);
        if *count >= self.max {
            return Err(AtLimit { max: self.max });
        }
        *count += 1;
        Ok(Some(WatchSlot {
            open: self.open.clone(),
            user: user.name.as_str().into(),
        }))
    }

    /// The user's open watches (tests).
    pub fn open(&self, user: &str) -> usize {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.get(user).copied().unwrap_or(0)
    }
}

impl Drop for WatchSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = open.get_mut(&self.user) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.user);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(name: &str, groups: &[&str]) -> UserInfo {
        UserInfo::authenticated(name.into(), groups.iter().map(|g| g.to_string()).collect())
    }

    #[test]
    fn admit_per_user_up_to_max_given_back_on_drop() {
        let limit = WatchLimit::new(2);
        let alice = user("alice", &["dev"]);
        let held: Vec<_> = (0..2).map(|_| limit.admit(&alice).unwrap()).collect();
        assert!(held.iter().all(Option::is_some));
        assert_eq!(limit.admit(&alice).unwrap_err(), AtLimit { max: 2 });
        assert_eq!(limit.open("alice"), 2, "a refusal takes no place");
        assert!(limit.admit(&user("bob", &[])).unwrap().is_some());
        drop(held);
        assert_eq!(limit.open("alice"), 0);
        assert!(limit.open.lock().unwrap().get("alice").is_none());
        assert!(limit.admit(&alice).unwrap().is_some());
    }

    #[test]
    fn admit_masters_and_unlimited_not_counted() {
        let cases = [
            (WatchLimit::new(1), user("admin", &[SYSTEM_MASTERS])),
            (WatchLimit::new(0), user("alice", &[])),
        ];
        for (limit, who) in cases {
            for _ in 0..3 {
                assert!(limit.admit(&who).unwrap().is_none(), "{}", who.name);
            }
            assert_eq!(limit.open(&who.name), 0);
        }
    }

    #[test]
    fn message_names_the_limit() {
        assert_eq!(
            AtLimit { max: 3 }.message(),
            "Too many open watches (at most 3 per user), please try again later."
        );
    }
}
