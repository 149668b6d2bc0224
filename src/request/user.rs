//! The user a request runs as (kube's `user.Info`, carried on the request context as
//! `genericapirequest.UserFrom`): set by authentication, possibly swapped by
//! impersonation, read by authorization, the in-flight and watch limits and the logs.

use std::collections::BTreeMap;

/// The authenticated identity handed to authorization and logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserInfo {
    pub name: String,
    pub uid: String,
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
}

const AUTHENTICATED: &str = "system:authenticated";
const UNAUTHENTICATED: &str = "system:unauthenticated";

impl UserInfo {
    /// A user as an authenticator found it (no implied groups).
    pub fn new(name: String, groups: Vec<String>) -> Self {
        UserInfo {
            name,
            uid: String::new(),
            groups,
            extra: BTreeMap::new(),
        }
    }

    /// `system:anonymous` in `system:unauthenticated`, as kube names them.
    pub fn anonymous() -> Self {
        UserInfo::new("system:anonymous".into(), vec![UNAUTHENTICATED.into()])
    }

    /// An authenticated user with `system:authenticated` added.
    pub fn authenticated(name: String, groups: Vec<String>) -> Self {
        UserInfo::new(name, groups).with_authenticated_group()
    }

    /// Adds `system:authenticated` unless either all-users group is there already
    /// (upstream's `AuthenticatedGroupAdder`).
    pub fn with_authenticated_group(mut self) -> Self {
        if !self
            .groups
            .iter()
            .any(|g| g == AUTHENTICATED || g == UNAUTHENTICATED)
        {
            self.groups.push(AUTHENTICATED.into());
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_authenticated_group_added_once_unless_all_users_group() {
        let s = |v: &[&str]| v.iter().map(|g| g.to_string()).collect::<Vec<_>>();
        let cases = [
            (s(&[]), s(&[AUTHENTICATED])),
            (s(&["dev"]), s(&["dev", AUTHENTICATED])),
            (s(&[AUTHENTICATED, "dev"]), s(&[AUTHENTICATED, "dev"])),
            (s(&[UNAUTHENTICATED]), s(&[UNAUTHENTICATED])),
        ];
        for (given, want) in cases {
            let user = UserInfo::new("bob".into(), given.clone()).with_authenticated_group();
            assert_eq!(user.groups, want, "{given:?}");
        }
    }

    #[test]
    fn anonymous_kube_names_unauthenticated_group() {
        let anonymous = UserInfo::anonymous();
        assert_eq!(anonymous.name, "system:anonymous");
        assert_eq!(
            anonymous.with_authenticated_group().groups,
            [UNAUTHENTICATED]
        );
    }
}
