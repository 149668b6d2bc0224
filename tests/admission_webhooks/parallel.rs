//! The validating phase calls every matching webhook at once and answers the first denial.

use std::collections::BTreeSet;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::fake_kube::FakeKube;
use crate::webhook::{Behaviour, Webhook};
use crate::webhook_host::{create, crontab, denial, hook, start_server, stored, validating};
use crate::{at, names};

/// How long each webhook waits for the other to be called.
const MEET_WITHIN: Duration = Duration::from_secs(5);

/// Who has been called so far.
#[derive(Default)]
struct Rendezvous {
    arrived: Mutex<BTreeSet<&'static str>>,
    added: Condvar,
}

impl Rendezvous {
    /// Marks `me` called and waits (bounded) for `other`: whether the two calls overlapped.
    fn meet(&self, me: &'static str, other: &'static str) -> bool {
        let deadline = Instant::now() + MEET_WITHIN;
        let mut arrived = self.arrived.lock().unwrap();
        arrived.insert(me);
        self.added.notify_all();
        while !arrived.contains(other) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            arrived = self.added.wait_timeout(arrived, left).unwrap().0;
        }
        true
    }
}

/// Allows only when the call to `other` overlapped this one (the wait moves off the
/// webhook's runtime worker, so both calls can be in flight).
fn allow_if_overlapping(
    meeting: &Arc<Rendezvous>,
    me: &'static str,
    other: &'static str,
) -> Behaviour {
    let meeting = meeting.clone();
    Behaviour::custom(
        move |_| match tokio::task::block_in_place(|| meeting.meet(me, other)) {
            true => json!({"allowed": true}),
            false => json!({"allowed": false, "status": {"code": 403, "reason": "Forbidden",
                "message": format!("{me} was called alone")}}),
        },
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validating_webhooks_two_hooks_called_concurrently_allowed() {
    let webhook = Webhook::start(&[]);
    let meeting = Arc::new(Rendezvous::default());
    webhook.on("/a", allow_if_overlapping(&meeting, "a", "b"));
    webhook.on("/b", allow_if_overlapping(&meeting, "b", "a"));
    let fake = FakeKube::start();
    let hooks = vec![
        hook("a.example.com", at(&webhook, "/a")),
        hook("b.example.com", at(&webhook, "/b")),
    ];
    fake.put_webhook_configuration(validating("pair", hooks));
    let server = start_server(&fake, &[]);

    let created = create(&server, &crontab("p1", &[])).await;
    assert_eq!(created.code, 201, "{:?}", created.body);
    let object = stored(&server, "p1").await.expect("stored");
    assert_eq!(object["metadata"]["uid"], created.body["metadata"]["uid"]);
    for path in ["/a", "/b"] {
        let seen = webhook.reviews_at(path);
        assert_eq!(names(&seen), ["p1"], "{path}");
        assert_eq!(seen[0].request()["operation"], "CREATE");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validating_webhooks_two_denials_first_denial_answered() {
    let webhook = Webhook::start(&[]);
    for who in ["a", "b"] {
        let behaviour = Behaviour::Deny {
            code: 403,
            reason: "Forbidden".into(),
            message: format!("denied by {who}"),
        };
        webhook.on(&format!("/deny-{who}"), behaviour);
    }
    let fake = FakeKube::start();
    let hooks = vec![
        hook("a.example.com", at(&webhook, "/deny-a")),
        hook("b.example.com", at(&webhook, "/deny-b")),
    ];
    fake.put_webhook_configuration(validating("deniers", hooks));
    let server = start_server(&fake, &[]);

    let refused = create(&server, &crontab("p2", &[])).await;
    let denials = [
        denial("a.example.com", "denied by a"),
        denial("b.example.com", "denied by b"),
    ];
    assert_eq!(refused.code, 403);
    assert!(denials.contains(&refused.body), "{:?}", refused.body);
    assert_eq!(stored(&server, "p2").await, None);
    // Both were called: the phase waits for every call before answering.
    assert_eq!(names(&webhook.reviews_at("/deny-a")), ["p2"]);
    assert_eq!(names(&webhook.reviews_at("/deny-b")), ["p2"]);
}
