use super::*;

fn messages(errors: &[FieldError]) -> Vec<String> {
    errors.iter().map(FieldError::message).collect()
}

const RFC1123: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

#[test]
fn validate_create_owner_references_as_kube_words_them() {
    let uid = "6a7d4bd4-0000-4000-8000-000000000001";
    let cm = |name: &str| json!({"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid, "controller": true});
    let cases = [
        (
            "no uid",
            json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "cm"}]),
            vec![r#"metadata.ownerReferences.uid: Invalid value: "": must not be empty"#.to_string()],
        ),
        (
            "no apiVersion nor kind",
            json!([{"uid": uid, "name": "cm"}]),
            vec![
                r#"metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty"#.to_string(),
                r#"metadata.ownerReferences.kind: Invalid value: "": must not be empty"#.to_string(),
            ],
        ),
        (
            "two controllers",
            json!([cm("cm"), cm("cm2")]),
            vec![format!(
                r#"metadata.ownerReferences: Invalid value: [{{"apiVersion":"v1","kind":"ConfigMap","name":"cm","uid":"{uid}","controller":true}},{{"apiVersion":"v1","kind":"ConfigMap","name":"cm2","uid":"{uid}","controller":true}}]: Only one reference can have Controller set to true. Found "true" in references for ConfigMap/cm and ConfigMap/cm2"#
            )],
        ),
        (
            "event owner",
            json!([{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "u"}]),
            vec![r#"metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}: /v1, Kind=Event is disallowed from being an owner"#.to_string()],
        ),
        (
            "group/version ok",
            json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": "u"}]),
            vec![],
        ),
    ];
    for (name, refs, want) in cases {
        let object = json!({"metadata": {"name": "a", "ownerReferences": refs}});
        let got = messages(&validate_create(&object, NameRule::DnsSubdomain));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn validate_create_generate_name_reported_with_name() {
    let object = json!({"metadata": {"generateName": "Bad_", "name": "Bad_x2z4b"}});
    let got = messages(&validate_create(&object, NameRule::DnsSubdomain));
    assert_eq!(
        got,
        [
            format!("metadata.generateName: Invalid value: \"Bad_\": {RFC1123}"),
            format!("metadata.name: Invalid value: \"Bad_x2z4b\": {RFC1123}"),
        ]
    );
    let long = "a".repeat(300);
    let object = json!({"metadata": {"generateName": long, "name": "a"}});
    let got = messages(&validate_create(&object, NameRule::DnsSubdomain));
    assert_eq!(
        got,
        [format!(
            "metadata.generateName: Invalid value: \"{long}\": must be no more than 253 characters"
        )]
    );
    // A prefix may end in a dash.
    let object = json!({"metadata": {"generateName": "web-", "name": "web-abcde"}});
    assert!(validate_create(&object, NameRule::DnsSubdomain).is_empty());
}

#[test]
fn validate_create_finalizer_names_and_conflict() {
    let object = json!({"metadata": {"name": "a", "finalizers": ["Bad Name", "orphan", "foregroundDeletion"]}});
    let got = messages(&validate_create(&object, NameRule::DnsSubdomain));
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got[0].starts_with(
            r#"metadata.finalizers: Invalid value: "Bad Name": name part must consist"#
        )
    );
    assert_eq!(
        got[1],
        r#"metadata.finalizers: Invalid value: ["Bad Name","orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set"#
    );
}

#[test]
fn validate_create_path_segment_rule_for_updates() {
    let object = json!({"metadata": {"name": "..", "generateName": "a/b"}});
    let got = messages(&validate_create(&object, NameRule::PathSegment));
    assert_eq!(
        got,
        [
            r#"metadata.generateName: Invalid value: "a/b": may not contain '/'"#,
            r#"metadata.name: Invalid value: "..": may not be '..'"#,
        ]
    );
    let dns = messages(&validate_create(
        &json!({"metadata": {"name": ".."}}),
        NameRule::DnsSubdomain,
    ));
    assert_eq!(
        dns,
        [format!("metadata.name: Invalid value: \"..\": {RFC1123}")]
    );
}

#[test]
fn validate_update_repeats_causes_as_kube_does() {
    let old = json!({"metadata": {"name": "a", "uid": "u1"}});
    let new = json!({"metadata": {"name": "a", "uid": "u2", "labels": {"a b": "c"}}});
    let got = messages(&validate_update(&new, &old));
    let label = "metadata.labels: Invalid value: \"a b\": name part must consist";
    let uid = r#"metadata.uid: Invalid value: "u2": field is immutable"#;
    let shape: Vec<&str> = got
        .iter()
        .map(|m| {
            if m.starts_with(label) {
                "label"
            } else if m == uid {
                "uid"
            } else {
                "other"
            }
        })
        .collect();
    assert_eq!(shape, ["label", "uid", "label", "uid", "label"], "{got:?}");
}

#[test]
fn validate_update_new_finalizer_while_deleting_forbidden() {
    let old = json!({"metadata": {"name": "a", "deletionTimestamp": "2024-01-01T00:00:00Z", "finalizers": ["x"]}});
    let new = json!({"metadata": {"name": "a", "finalizers": ["x", "z", "y"]}});
    let got = messages(&validate_update(&new, &old));
    let want = r#"metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"y", "z"}"#;
    assert_eq!(got, [want, want]);
}

#[test]
fn finalizer_warnings_only_for_added_unqualified_names() {
    let old = json!({"metadata": {"finalizers": ["foo"]}});
    let new = json!({"metadata": {"finalizers": ["foo", "kubernetes", "example.com/ok", "qux", "a.b", "bar"]}});
    let got = finalizer_warnings(&new, Some(&old));
    assert_eq!(
        got,
        [
            r#"metadata.finalizers: "a.b": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"#,
            r#"metadata.finalizers: "bar": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"#,
            r#"metadata.finalizers: "qux": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"#,
        ]
    );
    assert_eq!(finalizer_warnings(&old, None).len(), 1);
}

#[test]
fn validate_create_namespace_not_a_label_invalid() {
    let label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    let cases: &[(&str, &[String])] = &[
        ("default", &[]),
        ("", &[]),
        (
            "Bad_NS",
            &[format!(
                "metadata.namespace: Invalid value: \"Bad_NS\": {label}"
            )],
        ),
        (
            "a\u{0}b",
            &[format!(
                "metadata.namespace: Invalid value: \"a\\x00b\": {label}"
            )],
        ),
        (
            "x y",
            &[format!(
                "metadata.namespace: Invalid value: \"x y\": {label}"
            )],
        ),
        (
            "a.b",
            &["metadata.namespace: Invalid value: \"a.b\": must not contain dots".to_string()],
        ),
    ];
    for (namespace, want) in cases {
        let object = json!({"metadata": {"name": "x", "namespace": namespace}});
        let got = messages(&validate_create(&object, NameRule::DnsSubdomain));
        assert_eq!(&got, want, "namespace {namespace:?}");
    }
}
