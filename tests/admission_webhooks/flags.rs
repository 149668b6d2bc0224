//! The server's admission flags end to end: `--admission-webhook-service-address` for a
//! `clientConfig.service` webhook, `--admission-control-config-file`'s per-plugin users.

use std::path::Path;

use serde_json::json;

use crate::fake_kube::FakeKube;
use crate::webhook::{Behaviour, Webhook};
use crate::webhook_host::{
    create, crontab, denial, hook, mutating, start_server, stored, validating,
};
use crate::{at, deny_labelled, names};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_webhook_through_service_address_called_at_path_and_port() {
    let webhook = Webhook::start(&["hook.webhooks.svc"]);
    webhook.on("/svc/validate", deny_labelled(&[]));
    let fake = FakeKube::start();
    let ca = at(&webhook, "/")["caBundle"].clone();
    let service = json!({"service": {"namespace": "webhooks", "name": "hook",
        "path": "/svc/validate", "port": 8443}, "caBundle": ca});
    let check = hook("svc.example.com", service);
    fake.put_webhook_configuration(validating("service", vec![check]));
    let address = format!("webhooks/hook={}", webhook.addr);
    let server = start_server(&fake, &["--admission-webhook-service-address", &address]);

    let created = create(&server, &crontab("s1", &[])).await;
    assert_eq!(created.code, 201, "{:?}", created.body);
    let object = stored(&server, "s1").await.expect("stored");
    assert_eq!(object["metadata"]["uid"], created.body["metadata"]["uid"]);
    let refused = create(&server, &crontab("s2", &[("deny", "true")])).await;
    assert_eq!(
        (refused.code, refused.body),
        (403, denial("svc.example.com", "denied: s2"))
    );
    assert_eq!(stored(&server, "s2").await, None);

    let seen = webhook.reviews_at("/svc/validate");
    assert_eq!(names(&seen), ["s1", "s2"]);
    for review in &seen {
        // kube's resolver: https://<name>.<namespace>.svc:<port><path>, dialled at the override.
        assert_eq!(review.authority.as_deref(), Some("hook.webhooks.svc:8443"));
        assert_eq!(review.query, "timeout=10s");
        assert_eq!(review.http, http::Version::HTTP_2);
    }
    assert_eq!(webhook.reviews().len(), 2, "no other path called");
}

/// An AdmissionConfiguration giving each webhook plugin a kubeconfig whose user for the
/// webhook's `host:port` has a bearer token of its own.
fn admission_configuration(dir: &Path, webhook: &Webhook) -> String {
    let mut plugins = String::new();
    for (plugin, token) in [
        ("MutatingAdmissionWebhook", "mutating-token"),
        ("ValidatingAdmissionWebhook", "validating-token"),
    ] {
        let kubeconfig = dir.join(format!("{token}.kubeconfig"));
        let users = format!(
            "apiVersion: v1\nkind: Config\nusers:\n- name: '{}'\n  user:\n    token: {token}\n- name: '*'\n  user:\n    token: wrong-token\n",
            webhook.addr
        );
        std::fs::write(&kubeconfig, users).unwrap();
        plugins += &format!(
            "- name: {plugin}\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: {}\n",
            kubeconfig.display()
        );
    }
    let path = dir.join("admission.yaml");
    let config = format!(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n{plugins}"
    );
    std::fs::write(&path, config).unwrap();
    path.display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admission_control_config_file_bearer_token_per_plugin_sent() {
    let webhook = Webhook::start(&[]);
    webhook.on("/validate", deny_labelled(&[]));
    webhook.on("/mutate", Behaviour::Allow);
    let fake = FakeKube::start();
    let mutate = hook("mutate.example.com", at(&webhook, "/mutate"));
    fake.put_webhook_configuration(mutating("mutate", vec![mutate]));
    let check = hook("validate.example.com", at(&webhook, "/validate"));
    fake.put_webhook_configuration(validating("validate", vec![check]));
    let dir = tempfile::tempdir().unwrap();
    let config = admission_configuration(dir.path(), &webhook);
    let server = start_server(&fake, &["--admission-control-config-file", &config]);

    let created = create(&server, &crontab("t1", &[])).await;
    assert_eq!(created.code, 201, "{:?}", created.body);
    assert!(stored(&server, "t1").await.is_some());
    let refused = create(&server, &crontab("t2", &[("deny", "true")])).await;
    assert_eq!(
        (refused.code, refused.body),
        (403, denial("validate.example.com", "denied: t2"))
    );
    assert_eq!(stored(&server, "t2").await, None);

    let tokens = |path: &str| -> Vec<Option<String>> {
        let seen = webhook.reviews_at(path);
        assert_eq!(names(&seen), ["t1", "t2"], "{path}");
        seen.into_iter().map(|r| r.authorization).collect()
    };
    let bearer = |token: &str| Some(format!("Bearer {token}"));
    assert_eq!(
        tokens("/mutate"),
        [bearer("mutating-token"), bearer("mutating-token")]
    );
    assert_eq!(
        tokens("/validate"),
        [bearer("validating-token"), bearer("validating-token")]
    );
}
