//! Webhooks' `warnings` as kube's `Warning: 299 - "<text>"` headers (on refusals and dry
//! runs too, each text once), and `auditAnnotations` taken without harm.

use std::collections::BTreeMap;

use crate::common::Server;
use crate::fake_kube::FakeKube;
use crate::webhook::{Behaviour, Webhook};
use crate::webhook_host::{
    create, create_with, crontab, denial, hook, mutating, start_server, stored, validating,
};
use crate::{at, deny_labelled, names};

fn header(text: &str) -> String {
    format!("299 - \"{text}\"")
}

/// A mutating webhook warning `from mutate`, two validating ones each warning `shared`
/// (one also `from a`, and denying objects labelled `deny=true`).
fn warning_webhooks() -> (Webhook, FakeKube, Server) {
    let webhook = Webhook::start(&[]);
    webhook.on("/mutate", Behaviour::Warnings(vec!["from mutate".into()]));
    webhook.on("/a", deny_labelled(&["from a", "shared"]));
    webhook.on("/b", Behaviour::Warnings(vec!["shared".into()]));
    let fake = FakeKube::start();
    let mutate = hook("mutate.example.com", at(&webhook, "/mutate"));
    fake.put_webhook_configuration(mutating("mutate", vec![mutate]));
    let hooks = vec![
        hook("a.example.com", at(&webhook, "/a")),
        hook("b.example.com", at(&webhook, "/b")),
    ];
    fake.put_webhook_configuration(validating("validate", hooks));
    let server = start_server(&fake, &[]);
    (webhook, fake, server)
}

fn sorted(mut warnings: Vec<String>) -> Vec<String> {
    warnings.sort();
    warnings
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_warnings_sent_as_headers_duplicates_once() {
    let (webhook, _fake, server) = warning_webhooks();
    let created = create(&server, &crontab("w1", &[])).await;
    assert_eq!(created.code, 201, "{:?}", created.body);
    assert_eq!(
        sorted(created.warnings),
        [header("from a"), header("from mutate"), header("shared")]
    );
    assert!(stored(&server, "w1").await.is_some());
    for path in ["/mutate", "/a", "/b"] {
        assert_eq!(names(&webhook.reviews_at(path)), ["w1"], "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_warnings_on_refused_request_kept() {
    let (webhook, _fake, server) = warning_webhooks();
    let refused = create(&server, &crontab("w2", &[("deny", "true")])).await;
    assert_eq!(
        (refused.code, &refused.body),
        (403, &denial("a.example.com", "denied: w2"))
    );
    // The mutating webhook's and the denying one's warnings, the other validating one's
    // `shared` being the same text.
    assert_eq!(
        sorted(refused.warnings),
        [header("from a"), header("from mutate"), header("shared")]
    );
    assert_eq!(stored(&server, "w2").await, None);
    for path in ["/mutate", "/a", "/b"] {
        assert_eq!(names(&webhook.reviews_at(path)), ["w2"], "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_warnings_on_dry_run_sent_nothing_stored() {
    let (webhook, _fake, server) = warning_webhooks();
    let dry = create_with(&server, "?dryRun=All", &crontab("w3", &[])).await;
    assert_eq!(dry.code, 201, "{:?}", dry.body);
    assert_eq!(dry.body["metadata"]["name"], "w3");
    assert_eq!(
        sorted(dry.warnings),
        [header("from a"), header("from mutate"), header("shared")]
    );
    assert_eq!(stored(&server, "w3").await, None);
    for path in ["/mutate", "/a", "/b"] {
        let seen = webhook.reviews_at(path);
        assert_eq!(names(&seen), ["w3"], "{path}");
        assert_eq!(seen[0].request()["dryRun"], true, "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_audit_annotations_answered_object_stored() {
    let webhook = Webhook::start(&[]);
    let annotations: BTreeMap<String, String> = [("seen".to_string(), "CREATE".to_string())]
        .into_iter()
        .collect();
    webhook.on("/mutate", Behaviour::AuditAnnotations(annotations.clone()));
    webhook.on("/validate", Behaviour::AuditAnnotations(annotations));
    let fake = FakeKube::start();
    let mutate = hook("mutate.example.com", at(&webhook, "/mutate"));
    fake.put_webhook_configuration(mutating("mutate", vec![mutate]));
    let check = hook("validate.example.com", at(&webhook, "/validate"));
    fake.put_webhook_configuration(validating("validate", vec![check]));
    let server = start_server(&fake, &[]);

    let created = create(&server, &crontab("a1", &[])).await;
    assert_eq!(created.code, 201, "{:?}", created.body);
    assert!(created.warnings.is_empty(), "{:?}", created.warnings);
    let object = stored(&server, "a1").await.expect("stored");
    assert_eq!(object["metadata"]["uid"], created.body["metadata"]["uid"]);
    assert_eq!(object["metadata"].get("annotations"), None);
    assert_eq!(names(&webhook.reviews_at("/mutate")), ["a1"]);
    assert_eq!(names(&webhook.reviews_at("/validate")), ["a1"]);
}
