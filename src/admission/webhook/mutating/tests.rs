use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
use serde_json::json;

use super::*;
use crate::admission::webhook::hook;
use crate::admission::webhook::matching::{Gvk, Gvr};

fn invocation() -> Invocation {
    let config: MutatingWebhookConfiguration = serde_json::from_value(json!({
        "metadata": {"name": "cfg"},
        "webhooks": [{"name": "m.example.com", "clientConfig": {"url": "https://h"},
            "sideEffects": "None", "admissionReviewVersions": ["v1"]}]}))
    .unwrap();
    Invocation {
        hook: hook::mutating(&config).remove(0),
        resource: Gvr {
            group: "stable.example.com".into(),
            version: "v1".into(),
            resource: "crontabs".into(),
        },
        subresource: String::new(),
        kind: Gvk {
            group: "stable.example.com".into(),
            version: "v1".into(),
            kind: "CronTab".into(),
        },
    }
}

fn answer(patch: Option<&str>, patch_type: &str) -> Response {
    Response {
        allowed: true,
        patch: patch.map(|p| p.as_bytes().to_vec()),
        patch_type: patch_type.into(),
        ..Response::default()
    }
}

/// What `patched` made of an answer: the patched object, or the failure's kind and text.
fn outcome(patch: Option<&str>, patch_type: &str, seen: Option<&Value>) -> String {
    match patched(&invocation(), &answer(patch, patch_type), seen) {
        Ok(None) => "nothing".into(),
        Ok(Some((object, _))) => object.to_string(),
        Err(CallFailure::Calling { reason, code }) => format!("calling {code}: {reason}"),
        Err(CallFailure::Other(e)) => format!("other {}: {e}", e.code()),
        Err(CallFailure::Rejected { error, .. }) => format!("rejected: {error}"),
    }
}

#[test]
fn patched_answers_as_kubes_dispatcher() {
    let object = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "a"}, "spec": {"replicas": 1}});
    let o = Some(&object);
    let add = r#"[{"op":"add","path":"/spec/owner","value":"me"}]"#;
    type Case<'a> = (
        &'a str,
        Option<&'a str>,
        &'a str,
        Option<&'a Value>,
        &'a str,
    );
    let cases: [Case; 9] = [
        ("no patch", None, "", o, "nothing"),
        ("empty patch", Some("[]"), "JSONPatch", o, "nothing"),
        (
            "applied",
            Some(add),
            "JSONPatch",
            o,
            r#"{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"owner":"me","replicas":1}}"#,
        ),
        (
            "on delete",
            Some(add),
            "JSONPatch",
            None,
            "other 500: Internal error occurred: admission webhook \"m.example.com\" attempted to modify the object, which is not supported for this operation",
        ),
        (
            "not JSON",
            Some("nope"),
            "JSONPatch",
            o,
            "calling 503: received undecodable patch in webhook response: expected ident at line 1 column 2",
        ),
        (
            "not an array",
            Some("{}"),
            "JSONPatch",
            o,
            "calling 503: received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch",
        ),
        (
            "another patch type",
            Some(add),
            "MergePatch",
            o,
            "calling 500: unsupported patch type \"MergePatch\"",
        ),
        (
            "does not apply",
            Some(r#"[{"op":"replace","path":"/spec/missing","value":1}]"#),
            "JSONPatch",
            o,
            "other 500: Internal error occurred: ",
        ),
        (
            "kind removed",
            Some(r#"[{"op":"remove","path":"/kind"}]"#),
            "JSONPatch",
            o,
            "other 500: Internal error occurred: Object 'Kind' is missing in",
        ),
    ];
    for (name, patch, patch_type, seen, want) in cases {
        let got = outcome(patch, patch_type, seen);
        assert!(got.starts_with(want), "{name}: {got}");
    }
}

#[test]
fn reinvocations_only_hooks_invoked_before_a_change() {
    let mut r = WebhookReinvokeContext::default();
    r.previously_invoked.insert("a".into());
    r.require_reinvoking();
    r.previously_invoked.insert("b".into());
    assert!(r.to_reinvoke.contains("a"), "invoked before the change");
    assert!(!r.to_reinvoke.contains("b"), "invoked after it");
    r.require_reinvoking();
    assert!(r.to_reinvoke.contains("b"), "a later change takes it too");
}

#[test]
fn annotations_are_kubes_json_in_go_field_order() {
    let value = MutationAnnotation {
        configuration: "cfg",
        webhook: "m.example.com",
        mutated: true,
    };
    assert_eq!(
        serde_json::to_string(&value).unwrap(),
        r#"{"configuration":"cfg","webhook":"m.example.com","mutated":true}"#
    );
    let value = PatchAnnotation {
        configuration: "cfg",
        webhook: "m.example.com",
        patch: json!([{"op": "add", "path": "/a", "value": 1}]),
        patch_type: "JSONPatch",
    };
    assert_eq!(
        serde_json::to_string(&value).unwrap(),
        r#"{"configuration":"cfg","webhook":"m.example.com","patch":[{"op":"add","path":"/a","value":1}],"patchType":"JSONPatch"}"#
    );
    assert_eq!(
        At { round: 1, index: 2 }.key("mutation.webhook.admission.k8s.io"),
        "mutation.webhook.admission.k8s.io/round_1_index_2"
    );
}
