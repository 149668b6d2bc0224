//! The admission webhook transport (`webhook::Transport`) against a
//! real HTTPS webhook (tests/common/webhook.rs) over real TLS: pooling over HTTP/2,
//! `?timeout=` and the deadline, Go's texts for refused connections and unknown CAs,
//! caBundle pinning, service endpoints through the override, credentials from an
//! AdmissionConfiguration file, the response bound, a connection closed unanswered, and
//! a call as the caller asks (`Call`: User-Agent, `?timeout=` or none, its bound).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

#[path = "common/webhook.rs"]
mod webhook;

use std::collections::BTreeMap;
use std::time::Duration;

use crd_apiserver::admission::webhook::review::{
    self, Gvk, Gvr, Phase, Request, Response, ReviewVersion,
};
use crd_apiserver::request::user::UserInfo;
use crd_apiserver::webhook::{AdmissionUsers, Bound, Call, Endpoint, Settings, Transport};
use serde_json::json;
use webhook::{Behaviour, Webhook};

const LIMIT: usize = 3 * 1536 * 1024;
const TEN: Duration = Duration::from_secs(10);

fn transport() -> Transport {
    Transport::new(Settings {
        max_response_bytes: LIMIT,
        ..Settings::default()
    })
}

fn url(hook: &Webhook, path: &str) -> Endpoint {
    Endpoint::Url {
        url: hook.url(path),
        ca_bundle: Some(hook.ca_pem().into_bytes()),
    }
}

/// An AdmissionReview of `version` for a CREATE of a CronTab, with `uid`.
fn body(version: ReviewVersion, uid: &str) -> Vec<u8> {
    let user = UserInfo {
        name: "alice".into(),
        uid: String::new(),
        groups: vec!["system:authenticated".into()],
        extra: BTreeMap::new(),
    };
    let object = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "c", "namespace": "default"}, "spec": {"cronSpec": "* * * * */5"}});
    let kind = Gvk {
        group: "stable.example.com",
        version: "v1",
        kind: "CronTab",
    };
    let resource = Gvr {
        group: "stable.example.com",
        version: "v1",
        resource: "crontabs",
    };
    review::encode(
        version,
        &Request {
            uid,
            kind,
            resource,
            sub_resource: "",
            request_kind: kind,
            request_resource: resource,
            request_sub_resource: "",
            name: "c",
            namespace: "default",
            operation: "CREATE",
            user: &user,
            object: Some(&object),
            old_object: None,
            dry_run: false,
            options: None,
        },
    )
}

fn decoded(version: ReviewVersion, uid: &str, answer: &[u8]) -> Response {
    review::decode(version, Phase::Validating, uid, answer).expect("a valid AdmissionReview")
}

async fn post_error(transport: &Transport, endpoint: &Endpoint, timeout: Duration) -> String {
    let uid = "0000";
    match transport
        .post(endpoint, body(ReviewVersion::V1, uid), timeout)
        .await
    {
        Ok(answer) => panic!(
            "expected an error, got {}",
            String::from_utf8_lossy(&answer)
        ),
        Err(e) => e.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_64_concurrent_few_http2_connections() {
    let hook = Webhook::start(&[]);
    let transport = transport();
    let endpoint = url(&hook, "/allow");
    for wave in 0..2 {
        let calls = (0..64).map(|i| {
            let (transport, endpoint) = (&transport, &endpoint);
            async move {
                let uid = format!("uid-{wave}-{i}");
                let answer = transport
                    .post(endpoint, body(ReviewVersion::V1, &uid), TEN)
                    .await
                    .expect("allowed");
                decoded(ReviewVersion::V1, &uid, &answer)
            }
        });
        let answers = futures::future::join_all(calls).await;
        assert!(answers.iter().all(|a| a.allowed), "wave {wave}");
    }
    let reviews = hook.reviews_at("/allow");
    assert_eq!(reviews.len(), 128);
    assert!(reviews.iter().all(|r| r.http == http::Version::HTTP_2));
    assert!(reviews.iter().all(|r| r.version == "v1"));
    let connections = hook.connections();
    assert!(
        connections == 1,
        "128 posts (64 at once) took {connections} connections"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_http1_only_webhook_served_over_http1_pooled() {
    let hook = Webhook::start_http1(&[]);
    let transport = transport();
    let endpoint = url(&hook, "/h1");
    for i in 0..16 {
        let uid = format!("h1-{i}");
        let answer = transport
            .post(&endpoint, body(ReviewVersion::V1, &uid), TEN)
            .await
            .expect("allowed over HTTP/1.1");
        assert!(decoded(ReviewVersion::V1, &uid, &answer).allowed);
    }
    let reviews = hook.reviews_at("/h1");
    assert_eq!(reviews.len(), 16);
    assert!(reviews.iter().all(|r| r.http == http::Version::HTTP_11));
    // One call at a time: connections are kept alive and reused (hyper may dial again
    // when a call starts before the last connection is back in the pool, so not always one).
    let connections = hook.connections();
    assert!(
        connections <= 8,
        "16 calls one at a time took {connections} connections"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_v1beta1_review_answered_in_v1beta1() {
    let hook = Webhook::start(&[]);
    hook.on(
        "/deny",
        Behaviour::Deny {
            code: 403,
            reason: "Forbidden".into(),
            message: "no crontabs".into(),
        },
    );
    let answer = transport()
        .post(
            &url(&hook, "/deny"),
            body(ReviewVersion::V1beta1, "u1"),
            TEN,
        )
        .await
        .expect("answered");
    let response = decoded(ReviewVersion::V1beta1, "u1", &answer);
    assert!(!response.allowed);
    let status = response.result.expect("status");
    assert_eq!(
        (status.code, status.reason.as_str(), status.message.as_str()),
        (403, "Forbidden", "no crontabs")
    );
    let reviews = hook.reviews_at("/deny");
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0].version, "v1beta1");
    assert_eq!(reviews[0].request()["uid"], "u1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_slow_webhook_times_out_with_go_text() {
    let hook = Webhook::start(&[]);
    hook.on("/slow", Behaviour::Slow(Duration::from_secs(30)));
    let transport = transport();
    let error = post_error(&transport, &url(&hook, "/slow"), Duration::from_secs(1)).await;
    let want = format!(
        "failed to call webhook: Post \"{}?timeout=1s\": context deadline exceeded",
        hook.url("/slow")
    );
    assert_eq!(error, want);
    // The timeout sent is the time left rounded up to seconds, as Go prints it.
    let _ = post_error(
        &transport,
        &url(&hook, "/slow"),
        Duration::from_millis(1500),
    )
    .await;
    let queries: Vec<String> = hook
        .reviews_at("/slow")
        .into_iter()
        .map(|r| r.query)
        .collect();
    assert_eq!(queries, ["timeout=1s", "timeout=2s"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_refused_connection_go_text() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let endpoint = Endpoint::Url {
        url: format!("https://127.0.0.1:{port}/validate"),
        ca_bundle: None,
    };
    let error = post_error(&transport(), &endpoint, TEN).await;
    assert_eq!(
        error,
        format!(
            "failed to call webhook: Post \"https://127.0.0.1:{port}/validate?timeout=10s\": \
             dial tcp 127.0.0.1:{port}: connect: connection refused"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_unknown_ca_refused_ca_bundle_pins() {
    let hook = Webhook::start(&[]);
    let other = Webhook::start(&[]);
    let transport = transport();
    let unknown = format!(
        "failed to call webhook: Post \"{}?timeout=10s\": tls: failed to verify certificate: \
         x509: certificate signed by unknown authority",
        hook.url("/v")
    );
    // No caBundle: the system roots, which do not know the webhook's CA.
    let system = Endpoint::Url {
        url: hook.url("/v"),
        ca_bundle: None,
    };
    assert_eq!(post_error(&transport, &system, TEN).await, unknown);
    // Another CA's bundle is refused the same way; the webhook's own CA is trusted.
    let pinned_elsewhere = Endpoint::Url {
        url: hook.url("/v"),
        ca_bundle: Some(other.ca_pem().into_bytes()),
    };
    assert_eq!(
        post_error(&transport, &pinned_elsewhere, TEN).await,
        unknown
    );
    let answer = transport
        .post(&url(&hook, "/v"), body(ReviewVersion::V1, "u"), TEN)
        .await
        .expect("pinned CA trusted");
    assert!(decoded(ReviewVersion::V1, "u", &answer).allowed);
    assert_eq!(
        hook.reviews_at("/v").len(),
        1,
        "only the pinned call got through"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_service_endpoint_through_override() {
    let hook = Webhook::start(&["hook.webhooks.svc"]);
    let transport = Transport::new(Settings {
        service_addresses: vec![("webhooks".into(), "hook".into(), hook.addr)],
        max_response_bytes: LIMIT,
        ..Settings::default()
    });
    let service = |name: &str| Endpoint::Service {
        namespace: "webhooks".into(),
        name: name.into(),
        path: Some("/svc".into()),
        port: 443,
        ca_bundle: Some(hook.ca_pem().into_bytes()),
    };
    let answer = transport
        .post(&service("hook"), body(ReviewVersion::V1, "s"), TEN)
        .await
        .expect("called through the override");
    assert!(decoded(ReviewVersion::V1, "s", &answer).allowed);
    let reviews = hook.reviews_at("/svc");
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0].query, "timeout=10s");
    // A service without an override is looked up by its name, which does not resolve here.
    let error = post_error(&transport, &service("missing"), TEN).await;
    assert!(
        error.starts_with(
            "failed to call webhook: Post \"https://missing.webhooks.svc:443/svc?timeout=10s\": "
        ),
        "{error}"
    );
    assert_eq!(hook.reviews().len(), 1);
}

/// An AdmissionConfiguration: the validating plugin's configuration inline, the
/// mutating plugin's in a file named by `path`, each naming a kubeconfig.
fn admission_configuration(dir: &std::path::Path, hook: &Webhook) -> std::path::PathBuf {
    let pair = hook.client_pair("mutating-client");
    std::fs::write(dir.join("client.crt"), &pair.cert).unwrap();
    std::fs::write(dir.join("client.key"), &pair.key).unwrap();
    let validating = format!(
        "apiVersion: v1\nkind: Config\nusers:\n- name: '{}'\n  user:\n    token: validating-token\n- name: '*'\n  user:\n    token: fallback-token\n",
        hook.addr
    );
    let mutating = "apiVersion: v1\nkind: Config\nusers:\n- name: '*.webhooks.svc'\n  user:\n    client-certificate: client.crt\n    client-key: client.key\n";
    std::fs::write(dir.join("validating.kubeconfig"), validating).unwrap();
    std::fs::write(dir.join("mutating.kubeconfig"), mutating).unwrap();
    std::fs::write(
        dir.join("mutating.yaml"),
        format!(
            "apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\nkubeConfigFile: {}\n",
            dir.join("mutating.kubeconfig").display()
        ),
    )
    .unwrap();
    let config = format!(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n\
         - name: ValidatingAdmissionWebhook\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: {}\n\
         - name: MutatingAdmissionWebhook\n  path: mutating.yaml\n",
        dir.join("validating.kubeconfig").display()
    );
    let path = dir.join("admission.yaml");
    std::fs::write(&path, config).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_credentials_from_admission_configuration() {
    let hook = Webhook::start(&["hook.webhooks.svc"]);
    let dir = tempfile::tempdir().unwrap();
    let users = AdmissionUsers::load(&admission_configuration(dir.path(), &hook)).expect("loads");
    let settings = |users| Settings {
        users,
        service_addresses: vec![("webhooks".into(), "hook".into(), hook.addr)],
        max_response_bytes: LIMIT,
    };
    // The validating plugin's user for `127.0.0.1:<port>`: its bearer token.
    let validating = Transport::new(settings(users.validating));
    validating
        .post(&url(&hook, "/token"), body(ReviewVersion::V1, "t"), TEN)
        .await
        .expect("allowed");
    // The mutating plugin's `*.webhooks.svc` user: its client certificate.
    let mutating = Transport::new(settings(users.mutating));
    let service = Endpoint::Service {
        namespace: "webhooks".into(),
        name: "hook".into(),
        path: Some("/cert".into()),
        port: 443,
        ca_bundle: Some(hook.ca_pem().into_bytes()),
    };
    mutating
        .post(&service, body(ReviewVersion::V1, "c"), TEN)
        .await
        .expect("allowed");
    // The mutating plugin has no user for the URL's host: anonymous.
    mutating
        .post(&url(&hook, "/anonymous"), body(ReviewVersion::V1, "a"), TEN)
        .await
        .expect("allowed");
    let seen = |path: &str| {
        let reviews = hook.reviews_at(path);
        assert_eq!(reviews.len(), 1, "{path}");
        (
            reviews[0].authorization.clone(),
            reviews[0].client_cn.clone(),
        )
    };
    assert_eq!(
        seen("/token"),
        (Some("Bearer validating-token".into()), None)
    );
    assert_eq!(seen("/cert"), (None, Some("mutating-client".into())));
    assert_eq!(seen("/anonymous"), (None, None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_oversized_answer_refused() {
    let hook = Webhook::start(&[]);
    let limit = 64 * 1024;
    hook.on("/big", Behaviour::Garbage("x".repeat(limit + 1)));
    hook.on("/fits", Behaviour::Garbage("x".repeat(limit)));
    let transport = Transport::new(Settings {
        max_response_bytes: limit,
        ..Settings::default()
    });
    let error = post_error(&transport, &url(&hook, "/big"), TEN).await;
    assert_eq!(
        error,
        format!(
            "failed to call webhook: Post \"{}?timeout=10s\": the webhook's response body exceeds {limit} bytes",
            hook.url("/big")
        )
    );
    let answer = transport
        .post(&url(&hook, "/fits"), body(ReviewVersion::V1, "f"), TEN)
        .await
        .expect("an answer of exactly the limit is read");
    assert_eq!(answer.len(), limit);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_connection_closed_unanswered_eof() {
    for hook in [Webhook::start(&[]), Webhook::start_http1(&[])] {
        hook.on("/close", Behaviour::Close);
        let transport = transport();
        let error = post_error(&transport, &url(&hook, "/close"), TEN).await;
        // Closed with nothing unread: Go's `EOF`. When the client's last TLS or h2
        // bytes are still unread as the peer closes, the kernel resets the connection
        // instead, and Go (and we) say so: both are a close without an answer.
        let prefix = format!(
            "failed to call webhook: Post \"{}?timeout=10s\": ",
            hook.url("/close")
        );
        let cause = error
            .strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("{error}"));
        assert!(
            cause == "EOF" || cause.ends_with("read: connection reset by peer"),
            "{error}"
        );
        assert_eq!(hook.reviews_at("/close").len(), 1);
        // The pool does not hand out the dead connection: the next call gets a new one.
        let answer = transport
            .post(&url(&hook, "/after"), body(ReviewVersion::V1, "n"), TEN)
            .await
            .expect("a fresh connection");
        assert!(decoded(ReviewVersion::V1, "n", &answer).allowed);
        assert_eq!(hook.connections(), 2);
    }
}

/// The test webhook's behaviours, read as the dispatchers will read them
/// (`review::decode` of a mutating webhook's answer).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_behaviours_decoded_as_kube_reads_them() {
    let hook = Webhook::start(&[]);
    let ops = json!([{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]);
    hook.on("/patch", Behaviour::Patch(ops.clone()));
    hook.on("/warn", Behaviour::Warnings(vec!["careful".into()]));
    let annotations = BTreeMap::from([("seen".to_string(), "CREATE".to_string())]);
    hook.on("/audit", Behaviour::AuditAnnotations(annotations.clone()));
    hook.on("/wrong-uid", Behaviour::WrongUid);
    hook.on("/wrong-kind", Behaviour::WrongKind);
    hook.on("/garbage", Behaviour::Garbage("not json".into()));
    hook.on(
        "/custom",
        Behaviour::custom(|request| match request["operation"] == "CREATE" {
            true => json!({"allowed": false, "status": {"code": 400, "message": "no creates"}}),
            false => json!({"allowed": true}),
        }),
    );
    let transport = transport();
    let call = |path: &'static str, version: ReviewVersion| {
        let (transport, endpoint) = (&transport, url(&hook, path));
        async move {
            let answer = transport
                .post(&endpoint, body(version, "uid-1"), TEN)
                .await
                .expect("answered");
            review::decode(version, Phase::Mutating, "uid-1", &answer)
        }
    };
    for version in [ReviewVersion::V1, ReviewVersion::V1beta1] {
        let patched = call("/patch", version).await.expect("valid");
        assert!(patched.allowed);
        let patch: serde_json::Value =
            serde_json::from_slice(&patched.patch.expect("a patch")).unwrap();
        assert_eq!(patch, ops);
        assert_eq!(patched.patch_type, "JSONPatch");
    }
    let warned = call("/warn", ReviewVersion::V1).await.expect("valid");
    assert_eq!(warned.warnings, ["careful"]);
    let audited = call("/audit", ReviewVersion::V1).await.expect("valid");
    assert_eq!(audited.audit_annotations, annotations);
    let denied = call("/custom", ReviewVersion::V1).await.expect("valid");
    assert!(!denied.allowed);
    assert_eq!(denied.result.expect("status").message, "no creates");
    let wrong_uid = call("/wrong-uid", ReviewVersion::V1)
        .await
        .expect_err("refused");
    assert_eq!(
        wrong_uid.to_string(),
        "received invalid webhook response: expected response.uid=\"uid-1\", got \"wrong-uid-1\""
    );
    let wrong_kind = call("/wrong-kind", ReviewVersion::V1)
        .await
        .expect_err("refused");
    assert_eq!(
        wrong_kind.to_string(),
        "failed to call webhook: no kind \"AdmissionResponse\" is registered for version \"admission.k8s.io/v1\" in scheme \"pkg/util/webhook/client.go:74\""
    );
    let garbage = call("/garbage", ReviewVersion::V1)
        .await
        .expect_err("refused");
    assert_eq!(
        garbage.to_string(),
        "failed to call webhook: couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }"
    );
    let versions: Vec<String> = hook
        .reviews_at("/patch")
        .into_iter()
        .map(|r| r.version)
        .collect();
    assert_eq!(versions, ["v1", "v1beta1"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn call_user_agent_and_query_as_asked() {
    let hook = Webhook::start(&[]);
    let transport = transport();
    transport
        .post(&url(&hook, "/admit"), body(ReviewVersion::V1, "a"), TEN)
        .await
        .expect("an admission call");
    let bare = Call {
        bound: TEN,
        query_timeout: None,
        user_agent: "test-agent/1.0",
        bound_by: Bound::Context,
        returned_bytes: 0,
    };
    transport
        .call(&url(&hook, "/bare"), body(ReviewVersion::V1, "b"), bare)
        .await
        .expect("a call without ?timeout=");
    let admit = hook.reviews_at("/admit");
    assert_eq!(admit[0].query, "timeout=10s");
    assert_eq!(
        admit[0].user_agent.as_deref(),
        Some("kube-apiserver-admission")
    );
    let bare = hook.reviews_at("/bare");
    assert_eq!(bare[0].query, "");
    assert_eq!(bare[0].user_agent.as_deref(), Some("test-agent/1.0"));
    // The bound is the call's, whatever the query says; a client timeout says so as Go does.
    hook.on("/slow", Behaviour::Slow(Duration::from_secs(30)));
    let slow = Call {
        bound: Duration::from_millis(300),
        query_timeout: Some(Duration::from_secs(30)),
        user_agent: "test-agent/1.0",
        bound_by: Bound::ClientTimeout,
        returned_bytes: 0,
    };
    let error = transport
        .call(&url(&hook, "/slow"), body(ReviewVersion::V1, "c"), slow)
        .await
        .expect_err("past its bound");
    assert_eq!(
        error.cause(),
        format!(
            "Post \"{}?timeout=30s\": context deadline exceeded \
             (Client.Timeout exceeded while awaiting headers)",
            hook.url("/slow")
        )
    );
}
