//! Admission's audit annotations in the event: a mutating webhook's own
//! `auditAnnotations` (as `<webhook>/<key>`), kube's `mutation.webhook.admission.k8s.io`
//! annotation at every level and its `patch.webhook.admission.k8s.io` annotation at Request
//! level and above only; a ValidatingAdmissionPolicy's `auditAnnotations` and its
//! `Audit` action's `validation_failure` annotation.

use base64::Engine;
use serde_json::{Value, json};

use crate::fake_kube::FakeKube;
use crate::webhook::{Behaviour, Webhook};
use crate::webhook_host::{hook, mutating, start_server};
use crate::{CRONTABS, audit_flags, events_of, new_id, policy_at};

const PATCH: &str = r#"[{"op":"add","path":"/metadata/labels","value":{"patched":"yes"}}]"#;

fn crontab_rules() -> Value {
    json!([{"apiGroups": ["stable.example.com"], "apiVersions": ["v1"], "operations": ["*"],
        "resources": ["crontabs"], "scope": "*"}])
}

/// A policy annotating the replicas and auditing (not denying) more than 4.
fn audited_policy(fake: &FakeKube) {
    fake.put_object(json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "audited"},
        "spec": {"failurePolicy": "Fail", "matchConstraints": {"matchPolicy": "Equivalent",
            "namespaceSelector": {}, "objectSelector": {}, "resourceRules": crontab_rules()},
            "validations": [{"expression": "object.spec.replicas < 5", "message": "too many"}],
            "auditAnnotations": [{"key": "replicas", "valueExpression": "string(object.spec.replicas)"}]}}));
    fake.put_object(json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "audited-binding"},
        "spec": {"policyName": "audited", "validationActions": ["Audit"],
            "matchResources": {"matchPolicy": "Equivalent", "namespaceSelector": {},
                "objectSelector": {}, "resourceRules": crontab_rules()}}}));
}

fn mutating_webhook(fake: &FakeKube) -> Webhook {
    let webhook = Webhook::start(&[]);
    webhook.on(
        "/mutate",
        Behaviour::custom(|_| {
            json!({"allowed": true, "patchType": "JSONPatch",
                "patch": base64::engine::general_purpose::STANDARD.encode(PATCH),
                "auditAnnotations": {"seen": "CREATE"}})
        }),
    );
    let config = crate::webhook_host::url_config(&webhook.url("/mutate"), &webhook.ca_pem());
    fake.put_webhook_configuration(mutating("mutate", vec![hook("mutate.example.com", config)]));
    webhook
}

/// The annotations of a create of a CronTab with 7 replicas at `level`.
async fn create_annotations(fake: &FakeKube, level: &str) -> serde_json::Map<String, Value> {
    let dir = tempfile::tempdir().unwrap();
    let (flags, log) = audit_flags(dir.path(), &policy_at(level));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let server = start_server(fake, &flags);
    let id = new_id("admitted");
    let object = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": format!("c-{}", level.to_lowercase()), "namespace": "default"},
        "spec": {"cronSpec": "* * * * */5", "image": "img", "replicas": 7}});
    let resp = server
        .client()
        .post(server.url(CRONTABS))
        .header("Audit-ID", &id)
        .json(&object)
        .send()
        .await
        .unwrap();
    let code = resp.status();
    let created: Value = resp.json().await.unwrap();
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["metadata"]["labels"]["patched"], "yes", "{created}");
    let events = events_of(&log, &id, 2).await;
    assert!(events[0].get("annotations").is_none(), "{}", events[0]);
    events[1]["annotations"].as_object().unwrap().clone()
}

fn json_value(annotations: &serde_json::Map<String, Value>, key: &str) -> Value {
    let text = annotations[key].as_str().unwrap();
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{key}: {e}: {text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_admission_annotations_patch_only_at_request_level() {
    let fake = FakeKube::start();
    let _webhook = mutating_webhook(&fake);
    audited_policy(&fake);
    let mutation =
        json!({"configuration": "mutate", "webhook": "mutate.example.com", "mutated": true});
    let failure = json!([{"message": "too many", "policy": "audited", "binding": "audited-binding",
        "expressionIndex": 0, "validationActions": ["Audit"]}]);
    for level in ["Metadata", "Request"] {
        let got = create_annotations(&fake, level).await;
        assert_eq!(got["authorization.k8s.io/decision"], "allow", "{level}");
        assert_eq!(got["authorization.k8s.io/reason"], "", "{level}");
        assert_eq!(got["mutate.example.com/seen"], "CREATE", "{level}");
        assert_eq!(
            json_value(&got, "mutation.webhook.admission.k8s.io/round_0_index_0"),
            mutation,
            "{level}"
        );
        assert_eq!(got["audited/replicas"], "7", "{level}");
        assert_eq!(
            json_value(
                &got,
                "validation.policy.admission.k8s.io/validation_failure"
            ),
            failure,
            "{level}"
        );
        let patch_key = "patch.webhook.admission.k8s.io/round_0_index_0";
        match level {
            "Metadata" => {
                assert!(!got.contains_key(patch_key), "{got:?}");
                assert_eq!(got.len(), 6, "{got:?}");
            }
            _ => {
                let want = json!({"configuration": "mutate", "webhook": "mutate.example.com",
                    "patch": serde_json::from_str::<Value>(PATCH).unwrap(), "patchType": "JSONPatch"});
                assert_eq!(json_value(&got, patch_key), want);
                assert_eq!(got.len(), 7, "{got:?}");
            }
        }
    }
}
