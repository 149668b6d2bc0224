//! The reference's test webhook (`../shared/reference/stub/webhook.py`, whose answers
//! `tests/fixtures/admission/compare.jsonl` recorded) behaviour for behaviour, so that the
//! replay calls a webhook answering exactly as the recorded one did: the tests' HTTPS
//! webhook (tests/common/webhook.rs) speaking HTTP/1.1 only as Python's http.server does,
//! with webhook.py's paths (`/mutate`, `/mutate-bad`, `/mutate-unknown`, `/validate`,
//! `/slow`, `/garbage`, `/wrong-uid`), every review received kept as `{path, request}`
//! like webhook.py's stdout lines.

use std::time::Duration;

use base64::Engine;
use crd_apiserver::server::pki;
use serde_json::{Value, json};

use crate::webhook::{Behaviour, Webhook};

/// How long `/slow` sleeps before allowing (webhook.py's 5 s).
const SLOW: Duration = Duration::from_secs(5);

/// The paths whose answers depend on the review (the rest are fixed behaviours).
const ANSWERED: [&str; 5] = [
    "/mutate",
    "/mutate-bad",
    "/mutate-unknown",
    "/validate",
    "/wrong-uid",
];

/// A running stub webhook; stopped on drop.
pub struct StubWebhook {
    /// `https://127.0.0.1:<port>`, what the configurations' `$WEBHOOK` stands for.
    pub base: String,
    /// The CA of its serving certificate (PEM), what `$CA_BUNDLE` encodes.
    pub ca_pem: String,
    /// A CA that did not sign its certificate (PEM), what `$OTHER_CA_BUNDLE` encodes.
    pub other_ca_pem: String,
    /// `https://127.0.0.1:<port>` where nothing listens, what `$CLOSED` stands for.
    pub closed: String,
    hook: Webhook,
}

impl StubWebhook {
    pub fn start() -> StubWebhook {
        // webhook.py is Python's http.server: HTTP/1.1 only.
        let hook = Webhook::start_http1(&[]);
        for path in ANSWERED {
            hook.on(
                path,
                Behaviour::custom(move |request| answer(path, request)),
            );
        }
        hook.on("/slow", Behaviour::Slow(SLOW));
        hook.on(
            "/garbage",
            Behaviour::Garbage("this is not an AdmissionReview".into()),
        );
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let closed = format!("https://{}", closed.local_addr().unwrap());
        let other_ca_pem = pki::new_authority("stub-webhook-other-ca")
            .unwrap()
            .pem
            .cert;
        StubWebhook {
            base: hook.url(""),
            ca_pem: hook.ca_pem(),
            other_ca_pem,
            closed,
            hook,
        }
    }

    /// The reviews received since the last call, as `{path, request}`.
    pub fn take_reviews(&self) -> Vec<Value> {
        let reviews = self.hook.take_reviews().into_iter();
        reviews
            .map(|r| {
                let path = match r.query.is_empty() {
                    true => r.path.clone(),
                    false => format!("{}?{}", r.path, r.query),
                };
                let request = r.body.get("request").cloned().unwrap_or(json!({}));
                json!({"path": path, "request": request})
            })
            .collect()
    }

    /// A configuration template (`$WEBHOOK`, `$CLOSED`, `$CA_BUNDLE`, `$OTHER_CA_BUNDLE`)
    /// filled in for this webhook.
    pub fn instantiate(&self, template: &serde_json::Value) -> serde_json::Value {
        let base64 = |pem: &str| base64::engine::general_purpose::STANDARD.encode(pem);
        let text = template
            .to_string()
            .replace("$WEBHOOK", &self.base)
            .replace("$CLOSED", &self.closed)
            .replace("$OTHER_CA_BUNDLE", &base64(&self.other_ca_pem))
            .replace("$CA_BUNDLE", &base64(&self.ca_pem));
        serde_json::from_str(&text).unwrap()
    }
}

/// webhook.py's `response` for a review's `request` at `path`.
fn answer(path: &str, request: &Value) -> Value {
    let uid = request["uid"].as_str().unwrap_or_default();
    let operation = request["operation"].as_str().unwrap_or_default();
    let object = [&request["object"], &request["oldObject"]]
        .into_iter()
        .find(|o| o.is_object())
        .cloned()
        .unwrap_or(json!({}));
    let mut resp = json!({"uid": uid, "allowed": true});
    if path.starts_with("/mutate") {
        let ops = patch_for(path, &object);
        if !ops.is_empty() {
            resp["patchType"] = json!("JSONPatch");
            let text = Value::Array(ops).to_string();
            resp["patch"] = json!(base64::engine::general_purpose::STANDARD.encode(text));
        }
        resp["warnings"] = json!(["mutated by the test webhook"]);
    } else if path == "/validate" {
        if object["metadata"]["labels"]["deny"] == json!("true") {
            return json!({"uid": uid, "allowed": false, "status": {"code": 403,
                "message": "denied by the test webhook", "reason": "Forbidden"}});
        }
        resp["warnings"] = json!([format!("validate saw {operation}")]);
        resp["auditAnnotations"] = json!({"seen": operation});
    } else if path == "/wrong-uid" {
        resp["uid"] = json!(format!("not-{uid}"));
    }
    resp
}

/// webhook.py's `patch_for`: the JSONPatch operations of a mutating path.
fn patch_for(path: &str, object: &Value) -> Vec<Value> {
    let mut ops = Vec::new();
    match path {
        "/mutate" => {
            if object["metadata"].get("labels").is_none() {
                ops.push(json!({"op": "add", "path": "/metadata/labels", "value": {}}));
            }
            ops.push(
                json!({"op": "add", "path": "/metadata/labels/mutated-by", "value": "webhook"}),
            );
            if object["spec"].get("owner").is_none() {
                ops.push(
                    json!({"op": "add", "path": "/spec/owner", "value": "webhook@example.com"}),
                );
            }
        }
        "/mutate-bad" => {
            ops.push(json!({"op": "add", "path": "/spec/replicas", "value": "many"}));
        }
        "/mutate-unknown" => {
            ops.push(json!({"op": "add", "path": "/spec/unknownField", "value": 1}));
        }
        _ => {}
    }
    ops
}
