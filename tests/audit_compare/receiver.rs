//! The audit webhook backend's receiving end: an HTTPS server (tests/common/webhook.rs)
//! answering `{}` to every POST at `/audit/events` (or, as a failing backend, closing the
//! connection without an answer: the reference tries each event 5 times), and how what it received differs from
//! what the reference's webhook backend POSTed (tests/fixtures/audit/webhook.json): path and
//! query, bearer token, the EventList's envelope, each request's events (compared as the log's
//! are, events.rs), and one event per POST in the blocking modes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use crate::events;
use crate::webhook::{Behaviour, Review, Webhook};

/// The token the webhook kubeconfig carries (the recorder's).
const TOKEN: &str = "audit-webhook-token";
const PATH: &str = "/audit/events";
/// How long the batch backend may hold events (the scenario's max wait is 1 s).
const DELIVERED_WITHIN: Duration = Duration::from_secs(15);

pub struct AuditReceiver {
    hook: Webhook,
}

impl AuditReceiver {
    pub fn start(closing: bool) -> AuditReceiver {
        let hook = Webhook::start_http1(&[]);
        let behaviour = match closing {
            true => Behaviour::Close,
            false => Behaviour::Garbage("{}".into()),
        };
        hook.on(PATH, behaviour);
        AuditReceiver { hook }
    }

    /// A kubeconfig pointing at this receiver, written into `dir`.
    pub fn kubeconfig(&self, dir: &Path) -> PathBuf {
        let ca = base64::engine::general_purpose::STANDARD.encode(self.hook.ca_pem());
        let text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: audit\n  cluster:\n    server: {}\n    certificate-authority-data: {ca}\nusers:\n- name: u\n  user:\n    token: {TOKEN}\ncontexts:\n- name: ctx\n  context:\n    cluster: audit\n    user: u\ncurrent-context: ctx\n",
            self.hook.url(PATH)
        );
        let path = dir.join("audit-webhook.kubeconfig");
        std::fs::write(&path, text).unwrap();
        path
    }

    fn posts(&self) -> Vec<Review> {
        self.hook.reviews()
    }
}

fn items(post: &Value) -> Vec<Value> {
    post["items"].as_array().cloned().unwrap_or_default()
}

/// The events of `id` in `posts`, as JSON text, in the order sent.
fn events_of(posts: &[Value], id: &str) -> Vec<String> {
    let all = posts.iter().flat_map(items);
    all.filter(|e| e["auditID"] == json!(id))
        .map(|e| e.to_string())
        .collect()
}

/// Each difference between what `receiver` got and what the reference's backend POSTed in
/// `scenario`; `ids` pairs each recorded step with the audit ID we answered for it.
pub async fn differences(
    receiver: &AuditReceiver,
    scenario: &str,
    ids: &[(Value, Option<String>)],
) -> Vec<String> {
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(crate::fixture("webhook.json")).unwrap())
            .unwrap();
    let recorded: Vec<Value> = recorded[scenario].as_array().unwrap().clone();
    let recorded_bodies: Vec<Value> = recorded
        .iter()
        .map(|p| serde_json::from_str(p["body"].as_str().unwrap()).unwrap())
        .collect();
    // Delivered: as many copies of each request's events as the reference sent (retries too).
    let delivered = |posts: &[Review]| {
        let bodies: Vec<Value> = posts.iter().map(|p| p.body.clone()).collect();
        ids.iter().all(|(step, id)| {
            let want = events_of(&recorded_bodies, step["audit_id"].as_str().unwrap()).len();
            id.as_deref()
                .is_some_and(|id| events_of(&bodies, id).len() >= want)
        })
    };
    let deadline = tokio::time::Instant::now() + DELIVERED_WITHIN;
    while !delivered(&receiver.posts()) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let posts = receiver.posts();
    let mut diffs = Vec::new();
    for post in &posts {
        let at = format!("webhook POST {}?{}", post.path, post.query);
        if post.path != PATH || post.query != "timeout=30s" {
            diffs.push(format!("{at}: want {PATH}?timeout=30s"));
        }
        if post.authorization.as_deref() != Some(&format!("Bearer {TOKEN}")) {
            diffs.push(format!(
                "{at}: Authorization {:?}, want Bearer {TOKEN}",
                post.authorization
            ));
        }
        let envelope = json!({"kind": post.body["kind"], "apiVersion": post.body["apiVersion"], "metadata": post.body["metadata"]});
        let want = json!({"kind": "EventList", "apiVersion": "audit.k8s.io/v1", "metadata": {}});
        if envelope != want {
            diffs.push(format!("{at}: envelope {envelope}, want {want}"));
        }
    }
    let one_each = recorded
        .iter()
        .all(|p| items(&serde_json::from_str(p["body"].as_str().unwrap()).unwrap()).len() == 1);
    if one_each && posts.iter().any(|p| items(&p.body).len() != 1) {
        let sizes: Vec<usize> = posts.iter().map(|p| items(&p.body).len()).collect();
        diffs.push(format!(
            "events per POST {sizes:?}, the reference POSTs one at a time"
        ));
    }
    let our_bodies: Vec<Value> = posts.iter().map(|p| p.body.clone()).collect();
    for (step, id) in ids {
        let label = format!("[webhook, step {}]", step["index"]);
        let theirs = events_of(&recorded_bodies, step["audit_id"].as_str().unwrap());
        let ours = id
            .as_deref()
            .map(|id| events_of(&our_bodies, id))
            .unwrap_or_default();
        let chosen = step["headers"]["Audit-ID"].is_string();
        let found = events::differences(&ours, &theirs, chosen, false);
        diffs.extend(found.into_iter().map(|d| format!("{label}: {d}")));
    }
    diffs
}
