//! Table tests of the impersonation stage: header parsing, the user it yields, the
//! attributes and 403 texts of its checks, and header stripping.

use super::*;

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

/// Header name and value pairs.
type Headers<'a> = Vec<(&'a str, &'a str)>;

fn sa(namespace: &str, name: &str) -> Impersonated {
    Impersonated::ServiceAccount {
        namespace: namespace.into(),
        name: name.into(),
    }
}

fn extra(key: &str, value: &str) -> Impersonated {
    Impersonated::Extra {
        key: key.into(),
        value: value.into(),
    }
}

#[test]
fn requests_headers_parse_as_upstream() {
    use Impersonated::{Group, Uid, User};
    #[rustfmt::skip]
    let cases: Vec<(&str, Headers, Vec<Impersonated>)> = vec![
        ("none", vec![("accept", "a")], vec![]),
        ("empty user is none", vec![("Impersonate-User", "")], vec![]),
        ("user", vec![("Impersonate-User", "alice")], vec![User("alice".into())]),
        ("first user wins", vec![("Impersonate-User", "a"), ("Impersonate-User", "b")], vec![User("a".into())]),
        ("service account", vec![("Impersonate-User", "system:serviceaccount:ns:sa")], vec![sa("ns", "sa")]),
        ("bad sa namespace is a user", vec![("Impersonate-User", "system:serviceaccount:N:sa")], vec![User("system:serviceaccount:N:sa".into())]),
        ("three sa parts is a user", vec![("Impersonate-User", "system:serviceaccount:a:b:c")], vec![User("system:serviceaccount:a:b:c".into())]),
        ("groups in order", vec![("Impersonate-User", "u"), ("Impersonate-Group", "g1"), ("Impersonate-Group", "g2")],
            vec![User("u".into()), Group("g1".into()), Group("g2".into())]),
        ("extra key lowercased and unescaped", vec![("Impersonate-User", "u"), ("Impersonate-Extra-Acme.com%2Fproject", "p1"), ("Impersonate-Extra-acme.com%2fproject", "p2")],
            vec![User("u".into()), extra("acme.com/project", "p1"), extra("acme.com/project", "p2")]),
        ("malformed escape kept", vec![("Impersonate-User", "u"), ("Impersonate-Extra-a%zz", "v")], vec![User("u".into()), extra("a%zz", "v")]),
        ("uid last", vec![("Impersonate-Uid", "1234"), ("Impersonate-User", "u")], vec![User("u".into()), Uid("1234".into())]),
    ];
    for (name, pairs, want) in cases {
        let got = requests(&headers(&pairs)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn requests_without_user_fail_with_upstream_text() {
    #[rustfmt::skip]
    let cases = [
        ("group", vec![("Impersonate-Group", "g1")], "requested [{Group  g1    }] without impersonating a user"),
        ("extra", vec![("Impersonate-Extra-scopes", "a")], "requested [{UserExtra  a  authentication.k8s.io/v1  scopes}] without impersonating a user"),
        ("uid", vec![("Impersonate-Uid", "42")], "requested [{UID  42  authentication.k8s.io/v1  }] without impersonating a user"),
        ("empty user with group", vec![("Impersonate-User", ""), ("Impersonate-Group", "g"), ("Impersonate-Uid", "1")],
            "requested [{Group  g    } {UID  1  authentication.k8s.io/v1  }] without impersonating a user"),
    ];
    for (name, pairs, want) in cases {
        let err = requests(&headers(&pairs)).expect_err(name);
        assert!(matches!(err, ImpersonationError::WithoutUser(_)), "{name}");
        assert_eq!(err.to_string(), want, "{name}");
    }
}

#[test]
fn impersonated_user_adds_groups_as_upstream() {
    use Impersonated::{Group, Uid, User};
    let user = |name: &str| User(name.into());
    let group = |name: &str| Group(name.into());
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Impersonated>, &str, Vec<&str>)> = vec![
        ("user gets authenticated", vec![user("alice")], "alice", vec!["system:authenticated"]),
        ("groups then authenticated", vec![user("alice"), group("dev")], "alice", vec!["dev", "system:authenticated"]),
        ("authenticated not doubled", vec![user("alice"), group("system:authenticated")], "alice", vec!["system:authenticated"]),
        ("unauthenticated blocks authenticated", vec![user("alice"), group("system:unauthenticated")], "alice", vec!["system:unauthenticated"]),
        ("anonymous gets unauthenticated", vec![user("system:anonymous")], "system:anonymous", vec!["system:unauthenticated"]),
        ("anonymous not doubled", vec![user("system:anonymous"), group("system:unauthenticated")], "system:anonymous", vec!["system:unauthenticated"]),
        ("service account groups", vec![sa("ns", "robot")], "system:serviceaccount:ns:robot",
            vec!["system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"]),
        ("service account with groups given", vec![sa("ns", "robot"), group("x")], "system:serviceaccount:ns:robot", vec!["x", "system:authenticated"]),
    ];
    for (name, found, want_name, want_groups) in cases {
        let got = impersonated_user(&found);
        assert_eq!(got.name, want_name, "{name}");
        assert_eq!(got.groups, want_groups, "{name}");
    }
    let got = impersonated_user(&[user("u"), extra("k", "a"), extra("k", "b"), Uid("7".into())]);
    assert_eq!(
        got.extra.get("k"),
        Some(&vec!["a".to_string(), "b".to_string()])
    );
    assert_eq!(got.uid, "7");
}

#[test]
fn forbidden_impersonation_messages_match_kube() {
    let bob = UserInfo::authenticated("bob".into(), vec![]);
    #[rustfmt::skip]
    let cases = [
        (Impersonated::User("alice".into()), "users \"alice\" is forbidden: User \"bob\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope"),
        (Impersonated::Group("dev".into()), "groups \"dev\" is forbidden: User \"bob\" cannot impersonate resource \"groups\" in API group \"\" at the cluster scope"),
        (sa("ns", "robot"), "serviceaccounts \"robot\" is forbidden: User \"bob\" cannot impersonate resource \"serviceaccounts\" in API group \"\" in the namespace \"ns\""),
        (extra("scopes", "view"), "userextras.authentication.k8s.io \"view\" is forbidden: User \"bob\" cannot impersonate resource \"userextras/scopes\" in API group \"authentication.k8s.io\" at the cluster scope"),
        (Impersonated::Uid("42".into()), "uids.authentication.k8s.io \"42\" is forbidden: User \"bob\" cannot impersonate resource \"uids\" in API group \"authentication.k8s.io\" at the cluster scope"),
    ];
    for (request, want) in cases {
        let err = forbidden(&bob, &request.attributes(), "");
        assert_eq!(err.to_string(), want);
        assert_eq!(err.code(), 403);
    }
}

#[tokio::test]
async fn impersonate_checks_each_request_and_strips_headers() {
    let authorizer = Authorizer::new(&[], &["system:masters".to_string()], None).expect("authz");
    let admin = UserInfo::authenticated("admin".into(), vec!["system:masters".into()]);
    let bob = UserInfo::authenticated("bob".into(), vec![]);
    let asked = [
        ("Impersonate-User", "alice"),
        ("Impersonate-Group", "dev"),
        ("Impersonate-Extra-Scopes", "view"),
        ("Impersonate-Uid", "42"),
        ("accept", "application/json"),
    ];

    let mut h = headers(&asked);
    let user = impersonate(&authorizer, admin.clone(), &mut h)
        .await
        .expect("allowed");
    assert_eq!(user.name, "alice");
    assert_eq!(user.groups, ["dev", "system:authenticated"]);
    assert_eq!(user.uid, "42");
    assert_eq!(user.extra.get("scopes"), Some(&vec!["view".to_string()]));
    let left: Vec<&str> = h.keys().map(|k| k.as_str()).collect();
    assert_eq!(left, ["accept"], "impersonation headers stripped");

    let mut h = headers(&asked);
    let err = impersonate(&authorizer, bob, &mut h)
        .await
        .expect_err("refused");
    assert_eq!(
        err.to_string(),
        "users \"alice\" is forbidden: User \"bob\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope"
    );

    let mut h = headers(&[("accept", "a")]);
    let same = impersonate(&authorizer, admin.clone(), &mut h)
        .await
        .expect("no request");
    assert_eq!(same, admin);
}
