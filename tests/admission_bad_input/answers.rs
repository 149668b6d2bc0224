//! Bad webhook answers: each case is one hook per failurePolicy, picked by the created
//! object's labels (`case`, `policy`) through its objectSelector.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::admission_host::{
    Host, Policy, crontab, hook, mutating, patch_answer, validating, with,
};
use crate::webhook::{Behaviour, Webhook};

/// kube's `apierrors.NewInternalError(err)`: 500, the message after kube's prefix, and one
/// cause with the message as it is.
pub fn internal(message: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": format!("Internal error occurred: {message}"), "reason": "InternalError",
        "details": {"causes": [{"message": message}]}, "code": 500})
}

/// The text after `failed calling webhook "<name>": `, given the hook's URL (with
/// `?timeout=`) and the uid of the review it received.
type Reason = Arc<dyn Fn(&str, &str) -> String + Send + Sync>;

/// One bad answer: the webhook's behaviour, the hook's timeoutSeconds, kube's reason.
struct Case {
    name: &'static str,
    behaviour: Behaviour,
    timeout_seconds: u64,
    reason: Reason,
}

fn case(
    name: &'static str,
    behaviour: Behaviour,
    reason: impl Fn(&str, &str) -> String + Send + Sync + 'static,
) -> Case {
    Case {
        name,
        behaviour,
        timeout_seconds: 10,
        reason: Arc::new(reason),
    }
}

/// 3 × the default --max-object-size (1.5 MiB): the longest answer read.
const MAX_RESPONSE: usize = 3 * 1_572_864;

/// Answers no webhook call survives, for either phase (kube's `ErrCallingWebhook`).
fn unreadable() -> Vec<Case> {
    let garbage = "failed to call webhook: couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }";
    let huge = "x".repeat(MAX_RESPONSE + 1);
    vec![
        case(
            "garbage",
            Behaviour::Garbage("this is not an AdmissionReview".into()),
            move |_, _| garbage.to_string(),
        ),
        case("wrong-kind", Behaviour::WrongKind, |_, _| {
            "failed to call webhook: no kind \"AdmissionResponse\" is registered for version \"admission.k8s.io/v1\" in scheme \"pkg/util/webhook/client.go:74\"".into()
        }),
        case("wrong-uid", Behaviour::WrongUid, |_, uid| {
            format!(
                "received invalid webhook response: expected response.uid=\"{uid}\", got \"wrong-{uid}\""
            )
        }),
        Case {
            timeout_seconds: 1,
            ..case(
                "hang",
                Behaviour::Slow(Duration::from_secs(30)),
                |url, _| {
                    format!("failed to call webhook: Post \"{url}\": context deadline exceeded")
                },
            )
        },
        case("close", Behaviour::Close, |url, _| {
            format!("failed to call webhook: Post \"{url}\": EOF")
        }),
        case(
            "oversized",
            Behaviour::custom(move |_| json!({"allowed": true, "warnings": [huge]})),
            |url, _| {
                format!(
                    "failed to call webhook: Post \"{url}\": the webhook's response body exceeds {MAX_RESPONSE} bytes"
                )
            },
        ),
    ]
}

/// Patches kube refuses to read (still `ErrCallingWebhook`: the policy decides).
fn undecodable_patches() -> Vec<Case> {
    let owner = json!([{"op": "add", "path": "/spec/owner", "value": "hook"}]);
    vec![
        case(
            "patch-not-array",
            Behaviour::custom(|_| patch_answer(&json!({"op": "add"}), "JSONPatch")),
            |_, _| {
                "received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch".into()
            },
        ),
        case(
            "merge-patch",
            Behaviour::custom(move |_| patch_answer(&owner, "MergePatch")),
            |_, _| "unsupported patch type \"MergePatch\"".into(),
        ),
    ]
}

/// One hook per case and policy, called for CREATEs of objects labelled so.
fn hooks(webhook: &Webhook, cases: &[Case]) -> Vec<Value> {
    let mut hooks = Vec::new();
    for case in cases {
        webhook.on(&format!("/{}", case.name), case.behaviour.clone());
        for policy in [Policy::Fail, Policy::Ignore] {
            let name = hook_name(case.name, policy);
            let h = hook(
                webhook,
                &name,
                &format!("/{}", case.name),
                policy,
                &["CREATE"],
                &["crontabs"],
            );
            let selector = json!({"matchLabels": {"case": case.name, "policy": policy.as_str()}});
            let h = with(h, "objectSelector", selector);
            hooks.push(with(h, "timeoutSeconds", json!(case.timeout_seconds)));
        }
    }
    hooks
}

fn hook_name(case: &str, policy: Policy) -> String {
    format!("{case}.{}.example.com", policy.as_str().to_lowercase())
}

/// Creates one object per case and policy: Fail answers kube's 500 and stores nothing,
/// Ignore stores the object as sent, without a warning; each hook is called once; the
/// server answers the next create normally.
async fn assert_cases(host: &Host, cases: &[Case]) {
    for case in cases {
        let path = format!("/{}", case.name);
        for policy in [Policy::Fail, Policy::Ignore] {
            let name = format!("{}-{}", case.name, policy.as_str().to_lowercase());
            let sent = crontab(&name, &[("case", case.name), ("policy", policy.as_str())]);
            let before = host.hook.reviews_at(&path).len();
            let got = host.create(&sent).await;
            let reviews = host.hook.reviews_at(&path);
            assert_eq!(reviews.len(), before + 1, "{name}: one call");
            let review = reviews.last().unwrap();
            assert_eq!(
                review.request()["object"]["metadata"]["name"],
                name.as_str()
            );
            let stored = host.stored(&name).await;
            match policy {
                Policy::Fail => {
                    let url = format!("{}?{}", host.hook.url(&path), review.query);
                    let uid = review.request()["uid"].as_str().unwrap();
                    let reason = (case.reason)(&url, uid);
                    let hook = hook_name(case.name, policy);
                    let message = format!("failed calling webhook \"{hook}\": {reason}");
                    assert_eq!((got.code, &got.body), (500, &internal(&message)), "{name}");
                    assert_eq!(stored, None, "{name}: nothing stored");
                }
                Policy::Ignore => {
                    assert_eq!(got.code, 201, "{name}: {}", got.body);
                    assert!(got.warnings.is_empty(), "{name}: {:?}", got.warnings);
                    let stored = stored.expect("stored");
                    assert_eq!(
                        stored["metadata"]["labels"], sent["metadata"]["labels"],
                        "{name}"
                    );
                    assert_eq!(stored["spec"], sent["spec"], "{name}: unmutated");
                }
            }
            host.assert_serving(&format!("next-{name}")).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_unreadable_answer_fail_500_ignore_stored_unmutated() {
    let mut cases = unreadable();
    cases.extend(undecodable_patches());
    let host = Host::start(|w| vec![mutating("bad-answers", hooks(w, &cases))]);
    assert_cases(&host, &cases).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validating_unreadable_answer_fail_500_ignore_stored() {
    let cases = unreadable();
    let host = Host::start(|w| vec![validating("bad-answers", hooks(w, &cases))]);
    assert_cases(&host, &cases).await;
}

/// Patches that decode but cannot be applied to the object or decoded after: kube's
/// `NewInternalError` (not a failed call), so a 500 whatever the failurePolicy.
/// A case's name, the webhook's patch, and whether the cause's text is kube's.
type Unappliable = (&'static str, Value, fn(&str) -> bool);

fn unappliable() -> Vec<Unappliable> {
    let many: Vec<Value> = (0..10_001)
        .map(|_| json!({"op": "test", "path": "/kind", "value": "CronTab"}))
        .collect();
    vec![
        (
            "missing-path",
            json!([{"op": "replace", "path": "/spec/nope/deeper", "value": 1}]),
            |m| {
                m == "replace operation does not apply: doc is missing path: /spec/nope/deeper: missing value"
            },
        ),
        ("no-kind", json!([{"op": "remove", "path": "/kind"}]), |m| {
            m.starts_with("Object 'Kind' is missing in '{") && m.contains("\"name\":\"no-kind-")
        }),
        ("many-ops", Value::Array(many), |m| {
            m == "The allowed maximum operations in a JSON patch is 10000, got 10001"
        }),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_patch_unappliable_500_either_policy_nothing_stored() {
    let cases = unappliable();
    let host = Host::start(|w| {
        let mut hooks = Vec::new();
        for (name, ops, _) in &cases {
            let ops = ops.clone();
            w.on(
                &format!("/{name}"),
                Behaviour::custom(move |_| patch_answer(&ops, "JSONPatch")),
            );
            for policy in [Policy::Fail, Policy::Ignore] {
                let h = hook(
                    w,
                    &hook_name(name, policy),
                    &format!("/{name}"),
                    policy,
                    &["CREATE"],
                    &["crontabs"],
                );
                let selector = json!({"matchLabels": {"case": name, "policy": policy.as_str()}});
                hooks.push(with(h, "objectSelector", selector));
            }
        }
        vec![mutating("unappliable", hooks)]
    });
    for (case, _, want) in &cases {
        for policy in [Policy::Fail, Policy::Ignore] {
            let name = format!("{case}-{}", policy.as_str().to_lowercase());
            let got = host
                .create(&crontab(
                    &name,
                    &[("case", case), ("policy", policy.as_str())],
                ))
                .await;
            let (code, reason, message) = got.status();
            let cause = got.body["details"]["causes"][0]["message"]
                .as_str()
                .unwrap_or_default();
            assert_eq!(
                (code, reason),
                (500, "InternalError"),
                "{name}: {}",
                got.body
            );
            assert!(want(cause), "{name}: cause {cause}");
            assert_eq!(
                message,
                format!("Internal error occurred: {cause}"),
                "{name}"
            );
            assert_eq!(
                host.hook.reviews_at(&format!("/{case}")).len(),
                1 + usize::from(policy == Policy::Ignore)
            );
            assert_eq!(host.stored(&name).await, None, "{name}: nothing stored");
            host.assert_serving(&format!("next-{name}")).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_patch_makes_object_invalid_422_schema_causes_nothing_stored() {
    let host = Host::start(|w| {
        w.on(
            "/bad",
            Behaviour::Patch(json!([{"op": "replace", "path": "/spec/replicas", "value": "many"}])),
        );
        let hooks = [Policy::Fail, Policy::Ignore].map(|p| {
            let h = hook(
                w,
                &hook_name("bad", p),
                "/bad",
                p,
                &["CREATE"],
                &["crontabs"],
            );
            with(
                h,
                "objectSelector",
                json!({"matchLabels": {"policy": p.as_str()}}),
            )
        });
        vec![mutating("invalid", hooks.to_vec())]
    });
    for policy in [Policy::Fail, Policy::Ignore] {
        let name = format!("mb-{}", policy.as_str().to_lowercase());
        let got = host
            .create(&crontab(&name, &[("policy", policy.as_str())]))
            .await;
        let want = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": format!("CronTab.stable.example.com \"{name}\" is invalid: [spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\", .spec.replicas: Invalid value: 0: .spec.replicas accessor error: many is of the type string, expected int64]"),
            "reason": "Invalid",
            "details": {"name": name, "group": "stable.example.com", "kind": "CronTab", "causes": [
                {"reason": "FieldValueTypeInvalid", "message": "Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"", "field": "spec.replicas"},
                {"reason": "FieldValueInvalid", "message": "Invalid value: 0: .spec.replicas accessor error: many is of the type string, expected int64", "field": ".spec.replicas"}]},
            "code": 422});
        assert_eq!((got.code, &got.body), (422, &want), "{name}");
        assert_eq!(host.stored(&name).await, None, "{name}: nothing stored");
    }
    assert_eq!(host.hook.reviews_at("/bad").len(), 2);
    host.assert_serving("after-invalid").await;
}

/// kube's create takes the name from the object after admission (the store's
/// `ObjectNameFunc` runs after the mutating phase): a webhook that renames the object on
/// CREATE has it stored under the new name, and nothing under the old.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_patch_renames_on_create_stored_under_new_name() {
    let host = Host::start(|w| {
        w.on(
            "/rename",
            Behaviour::Patch(
                json!([{"op": "replace", "path": "/metadata/name", "value": "renamed"}]),
            ),
        );
        let h = hook(
            w,
            "rename.example.com",
            "/rename",
            Policy::Fail,
            &["CREATE"],
            &["crontabs"],
        );
        vec![mutating(
            "rename",
            vec![with(
                h,
                "objectSelector",
                json!({"matchLabels": {"rename": "yes"}}),
            )],
        )]
    });
    let got = host
        .create(&crontab("original", &[("rename", "yes")]))
        .await;
    assert_eq!(got.code, 201, "{}", got.body);
    assert_eq!(got.body["metadata"]["name"], "renamed");
    assert_eq!(host.stored("original").await, None);
    let stored = host
        .stored("renamed")
        .await
        .expect("stored under the new name");
    assert_eq!(stored["metadata"]["uid"], got.body["metadata"]["uid"]);
    assert_eq!(host.hook.reviews_at("/rename").len(), 1);
}
