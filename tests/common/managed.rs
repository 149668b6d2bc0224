//! What the managedFields tests share: requests to the example CronTabs with their JSON
//! answers, a client of their `/scale`, and kubectl's client-side apply records (the
//! last-applied annotation, `kubectl-client-side-apply` entries). The test crate must
//! also declare `mod common;`.
#![allow(dead_code)] // each test binary uses a part
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::Server;
use serde_json::{Value, json};

pub const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
pub const GV: &str = "stable.example.com/v1";
pub const APPLY: &str = "application/apply-patch+yaml";
pub const MERGE: &str = "application/merge-patch+json";
pub const JSON_PATCH: &str = "application/json-patch+json";
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
pub const CSA: &str = "kubectl-client-side-apply";
pub const CRON: &str = "* * * * */5";

/// Sends `req`: the status code and the JSON body (`Null` when there is none).
pub async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.expect("request");
    let code = resp.status().as_u16();
    (code, resp.json::<Value>().await.unwrap_or(Value::Null))
}

/// A PATCH of `url` with `body` (YAML or JSON text, or a JSON value) as `content_type`.
pub fn patch(
    c: &reqwest::Client,
    url: String,
    content_type: &str,
    body: impl ToString,
) -> reqwest::RequestBuilder {
    c.patch(url)
        .header("content-type", content_type)
        .body(body.to_string())
}

pub fn merge_patch(c: &reqwest::Client, url: String, merge: Value) -> reqwest::RequestBuilder {
    patch(c, url, MERGE, merge)
}

pub fn apply_patch(c: &reqwest::Client, url: String, applied: &str) -> reqwest::RequestBuilder {
    patch(c, url, APPLY, applied)
}

/// A Status answer's code, reason and message.
pub fn status(o: &Value) -> (u64, &str, &str) {
    let text = |k: &str| o[k].as_str().unwrap_or_default();
    (
        o["code"].as_u64().unwrap_or_default(),
        text("reason"),
        text("message"),
    )
}

/// CronTabs of the default namespace and their `/scale`, through the admin client.
pub struct ScaleClient<'a> {
    pub server: &'a Server,
    pub c: reqwest::Client,
}

impl ScaleClient<'_> {
    pub fn new(server: &Server) -> ScaleClient<'_> {
        ScaleClient {
            server,
            c: server.client(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        self.server.url(&format!("{CT}/{path}"))
    }

    pub async fn create(&self, manager: &str, name: &str, spec: Value) -> Value {
        let object =
            json!({"apiVersion": GV, "kind": "CronTab", "metadata": {"name": name}, "spec": spec});
        let url = self.server.url(&format!("{CT}?fieldManager={manager}"));
        let (code, o) = send(self.c.post(url).json(&object)).await;
        assert_eq!(code, 201, "{o}");
        o
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        send(self.c.get(self.url(path))).await
    }

    pub async fn put_scale(&self, name: &str, query: &str, spec: Value) -> (u16, Value) {
        let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": name}, "spec": spec});
        let url = self.url(&format!("{name}/scale?{query}"));
        send(self.c.put(url).json(&scale)).await
    }

    pub async fn patch(&self, path: &str, content_type: &str, body: Value) -> (u16, Value) {
        send(patch(&self.c, self.url(path), content_type, body)).await
    }

    pub async fn apply_main(&self, name: &str, query: &str, replicas: i64) -> (u16, Value) {
        let patch = json!({"apiVersion": GV, "kind": "CronTab", "metadata": {"name": name},
                           "spec": {"replicas": replicas}});
        self.patch(&format!("{name}?{query}"), APPLY, patch).await
    }

    pub async fn apply_scale(&self, name: &str, query: &str, patch: Value) -> (u16, Value) {
        self.patch(&format!("{name}/scale?{query}"), APPLY, patch)
            .await
    }

    /// The object's managedFields without `time`, and the managers that have one.
    pub async fn managed(&self, name: &str) -> (Value, Vec<String>) {
        let (code, o) = self.get(name).await;
        assert_eq!(code, 200, "{o}");
        let mut entries = o["metadata"]["managedFields"].clone();
        let mut timed = Vec::new();
        for e in entries.as_array_mut().into_iter().flatten() {
            if e.as_object_mut().unwrap().remove("time").is_some() {
                timed.push(e["manager"].as_str().unwrap().to_string());
            }
        }
        (entries, timed)
    }
}

/// A `managedFields` entry of the object (at `stable.example.com/v1`), without time.
pub fn entry(manager: &str, operation: &str, fields: Value, subresource: &str) -> Value {
    let mut e = json!({"manager": manager, "operation": operation, "apiVersion": GV,
                       "fieldsType": "FieldsV1", "fieldsV1": fields});
    if !subresource.is_empty() {
        e["subresource"] = json!(subresource);
    }
    e
}

pub fn replicas_fields() -> Value {
    json!({"f:spec": {"f:replicas": {}}})
}

/// An applied CronTab configuration; `spec` omitted when `Null`.
pub fn config(name: &str, spec: Value) -> Value {
    let mut object = json!({"apiVersion": GV, "kind": "CronTab", "metadata": {"name": name}});
    if !spec.is_null() {
        object["spec"] = spec;
    }
    object
}

/// Each managedFields entry as `[manager, operation, has time, fieldsV1]`.
pub fn entries(object: &Value) -> Value {
    let entries = object["metadata"]["managedFields"].as_array().cloned();
    let rows = entries.unwrap_or_default().into_iter().map(|e| {
        json!([
            e["manager"],
            e["operation"],
            e.get("time").is_some(),
            e["fieldsV1"]
        ])
    });
    Value::Array(rows.collect())
}

/// The fieldsV1 of `fields` of the spec.
pub fn spec_fields(fields: &[&str]) -> Value {
    let spec: serde_json::Map<String, Value> = fields
        .iter()
        .map(|f| (format!("f:{f}"), json!({})))
        .collect();
    json!({"f:spec": spec})
}

pub fn last_applied(object: &Value) -> &Value {
    &object["metadata"]["annotations"][LAST_APPLIED]
}

/// The last-applied configuration of `name` with `replicas`: kubectl's own (client-side,
/// with an empty `annotations`) or the server's (`buildLastApplied` of kubectl's apply).
pub fn last_applied_text(name: &str, replicas: i64, client_side: bool) -> String {
    let annotations = if client_side {
        "\"annotations\":{},"
    } else {
        ""
    };
    format!(
        "{{\"apiVersion\":\"{GV}\",\"kind\":\"CronTab\",\"metadata\":{{{annotations}\"name\":\"{name}\",\"namespace\":\"default\"}},\"spec\":{{\"cronSpec\":\"{CRON}\",\"replicas\":{replicas}}}}}\n"
    )
}

/// What client-side apply's create leaves kubectl-client-side-apply owning.
pub fn csa_created() -> Value {
    json!([CSA, "Update", true, {
        "f:metadata": {"f:annotations": {".": {}, format!("f:{LAST_APPLIED}"): {}}},
        "f:spec": {".": {}, "f:cronSpec": {}, "f:replicas": {}}}])
}

/// `[spec.replicas, last-applied annotation, entries]` of `name` as stored.
pub async fn stored(server: &Server, name: &str) -> Value {
    let (_, o) = send(server.client().get(server.url(&format!("{CT}/{name}")))).await;
    json!([o["spec"]["replicas"], last_applied(&o), entries(&o)])
}
