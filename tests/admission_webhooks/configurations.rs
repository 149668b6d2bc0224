//! Configurations followed without restart; writes waiting for the first lists and then
//! refused with kube's "not yet ready" 403; dev mode saying once that no webhook is called.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Server, eventually};
use crate::fake_kube::FakeKube;
use crate::webhook::{Behaviour, Webhook};
use crate::webhook_host::{
    Answer, CRONTABS, admission_crds, answer, create, crontab, denial, hook, start_server, stored,
    validating,
};
use crate::{at, names};

const FOLLOWED_WITHIN: Duration = Duration::from_secs(15);
const NO_WEBHOOKS: &str = "no admission webhooks are called";

/// Creates `<prefix>-<n>` for n = 0, 1, … until an answer and the reviews so far satisfy
/// `done` (a configuration change reached the server); returns that name and answer.
async fn create_until(
    server: &Server,
    webhook: &Webhook,
    prefix: &str,
    done: impl Fn(&str, &Answer, &[String]) -> bool,
) -> (String, Answer) {
    let (mut n, done) = (0, &done);
    eventually(FOLLOWED_WITHIN, prefix, || {
        n += 1;
        let name = format!("{prefix}-{n}");
        async move {
            let answer = create(server, &crontab(&name, &[])).await;
            let reviewed = names(&webhook.reviews());
            done(&name, &answer, &reviewed).then_some((name, answer))
        }
    })
    .await
}

/// The stored object is the one the answer returned.
async fn assert_stored(server: &Server, name: &str, answer: &Answer) {
    assert_eq!(answer.code, 201, "{name}: {:?}", answer.body);
    let object = stored(server, name).await.expect("stored");
    assert_eq!(object["metadata"]["uid"], answer.body["metadata"]["uid"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validating_configuration_changed_followed_without_restart() {
    let webhook = Webhook::start(&[]);
    webhook.on(
        "/deny",
        Behaviour::Deny {
            code: 403,
            reason: "Forbidden".into(),
            message: "not today".into(),
        },
    );
    let fake = FakeKube::start();
    let configuration = |path: &str, resource: &str| {
        let mut check = hook("check.example.com", at(&webhook, path));
        check["rules"][0]["resources"] = json!([resource]);
        validating("checks", vec![check])
    };
    fake.put_webhook_configuration(configuration("/deny", "crontabs"));
    let server = start_server(&fake, &[]);

    // Denying: kube's text, nothing stored, the webhook saw the create.
    let refused = create(&server, &crontab("c1", &[])).await;
    assert_eq!(
        (refused.code, &refused.body),
        (403, &denial("check.example.com", "not today"))
    );
    assert_eq!(stored(&server, "c1").await, None);
    let seen = webhook.reviews_at("/deny");
    assert_eq!(names(&seen), ["c1"]);
    assert_eq!(seen[0].request()["operation"], "CREATE");

    // Another path that allows: the write goes through once the change arrives.
    fake.put_webhook_configuration(configuration("/allow", "crontabs"));
    let (name, allowed) = create_until(&server, &webhook, "moved", |name, answer, _| {
        answer.code == 201 && names(&webhook.reviews_at("/allow")).contains(&name.to_string())
    })
    .await;
    assert_stored(&server, &name, &allowed).await;

    // The rule no longer names crontabs: created without a call.
    fake.put_webhook_configuration(configuration("/allow", "regions"));
    let unreviewed = |name: &str, answer: &Answer, reviewed: &[String]| {
        answer.code == 201 && !reviewed.iter().any(|r| r == name)
    };
    let (name, allowed) = create_until(&server, &webhook, "narrowed", unreviewed).await;
    assert_stored(&server, &name, &allowed).await;

    // Called again once the rule is back; deleted, nothing is called any more.
    fake.put_webhook_configuration(configuration("/allow", "crontabs"));
    create_until(&server, &webhook, "back", |name, answer, reviewed| {
        answer.code == 201 && reviewed.iter().any(|r| r == name)
    })
    .await;
    fake.delete_webhook_configuration("ValidatingWebhookConfiguration", "checks");
    let (name, allowed) = create_until(&server, &webhook, "deleted", unreviewed).await;
    assert_stored(&server, &name, &allowed).await;
    let calls = webhook.reviews().len();
    for name in ["after-1", "after-2"] {
        let answer = create(&server, &crontab(name, &[])).await;
        assert_stored(&server, name, &answer).await;
    }
    assert_eq!(webhook.reviews().len(), calls, "no call after the deletion");
    assert_eq!(server.log.count(&[NO_WEBHOOKS]), 0, "a cluster is followed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_lists_held_write_waits_then_not_yet_ready_403() {
    let fake = FakeKube::start();
    fake.hold_webhook_lists();
    let server = start_server(&fake, &[]);
    let (client, url) = (server.client(), server.url(CRONTABS));
    let started = Instant::now();
    let mut write = tokio::spawn(async move {
        let resp = client.post(url).json(&crontab("w1", &[])).send().await;
        answer(resp.unwrap()).await.unwrap()
    });
    // kube waits up to 10 s for the configurations: nothing answered before 9 s (the
    // request cannot have arrived before `started`).
    let early = tokio::time::timeout(Duration::from_secs(9), &mut write).await;
    assert!(early.is_err(), "answered after {:?}", started.elapsed());
    let refused = tokio::time::timeout(Duration::from_secs(20), write)
        .await
        .expect("answered within 20 s")
        .unwrap();
    let want = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "crontabs.stable.example.com \"w1\" is forbidden: not yet ready to handle request",
        "reason": "Forbidden",
        "details": {"name": "w1", "group": "stable.example.com", "kind": "crontabs"},
        "code": 403});
    assert_eq!((refused.code, refused.body), (403, want));
    assert_eq!(stored(&server, "w1").await, None);

    // Once the lists arrive, writes go through.
    fake.release_webhook_lists();
    let created = create(&server, &crontab("w2", &[])).await;
    assert_stored(&server, "w2", &created).await;
    assert!(fake.webhook_lists() >= 2, "both kinds listed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dev_mode_without_cluster_says_no_webhooks_once() {
    let crds = admission_crds().display().to_string();
    let server = Server::start_with(&["--crd-dir", &crds]);
    let line = server.log.wait_for(&[NO_WEBHOOKS], Duration::from_secs(10));
    assert!(
        line.contains("no --kubeconfig and not in a cluster"),
        "{line}"
    );
    for name in ["d1", "d2"] {
        let created = create(&server, &crontab(name, &[])).await;
        assert_stored(&server, name, &created).await;
    }
    let body: Value = created_list(&server).await;
    assert_eq!(crate::common::item_names(&body), ["d1", "d2"]);
    assert_eq!(server.log.count(&[NO_WEBHOOKS]), 1, "{}", server.log.text());
}

async fn created_list(server: &Server) -> Value {
    let resp = server.client().get(server.url(CRONTABS)).send().await;
    resp.unwrap().json().await.unwrap()
}
