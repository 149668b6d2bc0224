//! After each mutating webhook's patch the object is defaulted by its schema (kube's
//! object defaulter), so the next webhook sees the defaults; fields the schema does not
//! know stay until the mutating phase is over (the reinvoked and validating webhooks still
//! see them, as kube's storage encoding prunes) and are not stored; the schema's CEL
//! rules judge the mutated object.

use serde_json::{Value, json};

use crate::at;
use crate::common::Server;
use crate::fake_kube::FakeKube;
use crate::webhook::{Behaviour, Webhook};
use crate::webhook_host::{answer, hook, mutating, validating};

const WIDGETS: &str = "/apis/defaults.example.com/v1/namespaces/default/widgets";

/// A Widget whose `spec.settings.mode` defaults to `auto`.
const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.defaults.example.com
spec:
  group: defaults.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - {rule: "!has(self.size) || self.size <= 10", message: "size at most 10"}
            properties:
              size: {type: integer}
              settings:
                type: object
                properties:
                  mode: {type: string, default: auto}
"#;

/// A hook on every operation of v1 widgets.
fn widget_hook(name: &str, client_config: Value) -> Value {
    let mut hook = hook(name, client_config);
    hook["rules"][0]["apiGroups"] = json!(["defaults.example.com"]);
    hook["rules"][0]["resources"] = json!(["widgets"]);
    hook
}

/// The server on the Widget CRD, following `fake`'s cluster (the dir holds the CRD).
fn widget_server(fake: &FakeKube) -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    let crd = dir.path().join("widgets.yaml");
    std::fs::write(&crd, CRD).unwrap();
    let (kubeconfig, crd) = (fake.kubeconfig(), crd.display().to_string());
    let kubeconfig = kubeconfig.display().to_string();
    let server = Server::start_with(&["--kubeconfig", &kubeconfig, "--crd-dir", &crd]);
    (dir, server)
}

fn widget(name: &str) -> Value {
    json!({"apiVersion": "defaults.example.com/v1", "kind": "Widget",
        "metadata": {"name": name, "namespace": "default"}, "spec": {"size": 1}})
}

fn patch(ops: Value) -> Behaviour {
    Behaviour::Patch(ops)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutated_object_defaulted_after_each_patch_unknown_fields_pruned_when_stored() {
    let webhook = Webhook::start(&[]);
    // `a` adds an empty settings object and a field the schema does not know; `b` (later
    // by name) sees what the defaulter made of it.
    webhook.on(
        "/a",
        patch(json!([{"op": "add", "path": "/spec/settings", "value": {"extra": 1}}])),
    );
    webhook.on("/b", Behaviour::Allow);
    webhook.on("/validate", Behaviour::Allow);
    let fake = FakeKube::start();
    let hooks = vec![
        widget_hook("a.example.com", at(&webhook, "/a")),
        widget_hook("b.example.com", at(&webhook, "/b")),
    ];
    fake.put_webhook_configuration(mutating("mutate", hooks));
    let check = widget_hook("validate.example.com", at(&webhook, "/validate"));
    fake.put_webhook_configuration(validating("validate", vec![check]));
    let (_dir, server) = widget_server(&fake);

    let resp = server
        .client()
        .post(server.url(WIDGETS))
        .json(&widget("w1"))
        .send()
        .await
        .unwrap();
    let created = answer(resp).await.unwrap();
    assert_eq!(created.code, 201, "{:?}", created.body);

    let settings =
        |path: &str| webhook.reviews_at(path)[0].request()["object"]["spec"]["settings"].clone();
    assert_eq!(
        settings("/b"),
        json!({"mode": "auto", "extra": 1}),
        "the next webhook sees the default, and the unknown field before pruning"
    );
    assert_eq!(settings("/validate"), json!({"mode": "auto", "extra": 1}));
    assert_eq!(created.body["spec"]["settings"], json!({"mode": "auto"}));
    let stored = server
        .client()
        .get(server.url(&format!("{WIDGETS}/w1")))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(
        stored["spec"],
        json!({"size": 1, "settings": {"mode": "auto"}})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutated_object_breaking_cel_rule_422_nothing_stored() {
    let webhook = Webhook::start(&[]);
    webhook.on(
        "/grow",
        patch(json!([{"op": "replace", "path": "/spec/size", "value": 11}])),
    );
    let fake = FakeKube::start();
    let grow = widget_hook("grow.example.com", at(&webhook, "/grow"));
    fake.put_webhook_configuration(mutating("mutate", vec![grow]));
    let (_dir, server) = widget_server(&fake);
    let resp = server
        .client()
        .post(server.url(WIDGETS))
        .json(&widget("w2"))
        .send()
        .await
        .unwrap();
    let refused = answer(resp).await.unwrap();
    assert_eq!(
        (refused.code, &refused.body["reason"]),
        (422, &json!("Invalid")),
        "{:?}",
        refused.body
    );
    assert_eq!(
        refused.body["details"]["causes"],
        json!([{"reason": "FieldValueInvalid", "field": "spec",
            "message": "Invalid value: size at most 10"}])
    );
    assert_eq!(webhook.reviews_at("/grow").len(), 1);
    let stored = server
        .client()
        .get(server.url(&format!("{WIDGETS}/w2")))
        .send()
        .await
        .unwrap();
    assert_eq!(stored.status().as_u16(), 404, "nothing stored");
}
