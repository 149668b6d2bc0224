//! `ApiError` → `metav1.Status` conversion cases.

use super::*;

#[test]
fn not_found_message_names_group_resource() {
    let err = ApiError::NotFound {
        resource: GroupResource::new("stable.example.com", "crontabs"),
        name: "x".into(),
    };
    let s = err.to_status();
    assert_eq!(s["message"], "crontabs.stable.example.com \"x\" not found");
    assert_eq!(s["code"], 404);
    assert_eq!(s["details"]["kind"], "crontabs");
}

#[test]
fn named_messages_quote_names_as_go_percent_q() {
    let resource = GroupResource::new("stable.example.com", "crontabs");
    let not_found = ApiError::NotFound {
        resource: resource.clone(),
        name: "a\0b".into(),
    };
    assert_eq!(
        not_found.to_string(),
        r#"crontabs.stable.example.com "a\x00b" not found"#
    );
    assert_eq!(not_found.to_status()["details"]["name"], "a\0b");
    let exists = ApiError::AlreadyExists {
        resource,
        name: "q\"".into(),
    };
    assert_eq!(
        exists.to_string(),
        r#"crontabs.stable.example.com "q\"" already exists"#
    );
    let invalid = ApiError::Invalid {
        group: "stable.example.com".into(),
        kind: "CronTab".into(),
        name: "a\0b".into(),
        causes: vec![FieldError::required("spec.a", "")],
    };
    assert!(
        invalid
            .to_string()
            .starts_with(r#"CronTab.stable.example.com "a\x00b" is invalid: "#)
    );
}

#[test]
fn method_not_supported_names_resource_with_group_kind_details() {
    let err = ApiError::MethodNotSupported {
        resource: GroupResource::new("stable.example.com", "crontabs"),
        verb: String::new(),
    };
    let s = err.to_status();
    assert_eq!(
        s["message"],
        r#" is not supported on resources of kind "crontabs.stable.example.com""#
    );
    assert_eq!(
        (s["code"].clone(), s["reason"].clone()),
        (json!(405), json!("MethodNotAllowed"))
    );
    assert_eq!(
        s["details"],
        json!({"group": "stable.example.com", "kind": "crontabs"})
    );
}

#[test]
fn invalid_with_many_causes_aggregates_in_brackets() {
    let err = ApiError::Invalid {
        group: "stable.example.com".into(),
        kind: "CronTab".into(),
        name: "x".into(),
        causes: vec![
            FieldError::required("spec.a", ""),
            FieldError::invalid("spec.b", &json!("v"), "bad"),
        ],
    };
    assert_eq!(
        err.to_string(),
        "CronTab.stable.example.com \"x\" is invalid: [spec.a: Required value, spec.b: Invalid value: \"v\": bad]"
    );
    assert_eq!(err.to_status()["details"]["causes"][1]["field"], "spec.b");
}
