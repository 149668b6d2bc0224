//! The host CRD group the end-to-end test moves: `gadgets.offload.e2e.example.com` (Gadget,
//! namespaced, `v1` with the status subresource) created in the reference, its automanaged
//! APIService (as kube's crdregistration controller makes it), Gadgets written through the
//! aggregator, and the fence's texts as kube's ValidatingAdmissionPolicy plugin words them.

use std::time::Duration;

use serde_json::{Value, json};

use crate::cluster::{APISERVICES, Cluster, apiservice, create, get};
use crate::front::Upstream;

pub const GROUP: &str = "offload.e2e.example.com";
pub const CRD: &str = "gadgets.offload.e2e.example.com";
pub const APISERVICE: &str = "v1.offload.e2e.example.com";
pub const GADGETS: &str = "/apis/offload.e2e.example.com/v1/namespaces/default/gadgets";
pub const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
/// The selector our server is started with, and the label that selects the CRD.
pub const SELECTOR: &str = "crd-apiserver.io/offload=true";

/// The fence's name (policy and binding) for the group.
pub fn fence_name() -> String {
    format!("crd-apiserver-offload-fence.{GROUP}")
}

/// The message the fence's validation carries (design34.md's FENCE_MESSAGE).
pub fn fence_message() -> String {
    format!(
        "the resources of API group \"{GROUP}\" are being moved by crd-apiserver (offload): \
         writes are refused until the move completes; retry shortly"
    )
}

/// kube's denial text for the fence (validating/dispatcher.go: `ValidatingAdmissionPolicy
/// '%s' with binding '%s' denied request: %s`).
pub fn fence_denial() -> String {
    let name = fence_name();
    format!(
        "ValidatingAdmissionPolicy '{name}' with binding '{name}' denied request: {}",
        fence_message()
    )
}

fn crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": CRD},
        "spec": {"group": GROUP, "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget",
                "listKind": "GadgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
                    "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}}}}]}})
}

/// Creates the CRD in the reference (through the aggregator), waits until it is Established
/// and its Gadgets are served, and routes the group to the reference with the APIService
/// crdregistration would make (automanaged, 1000/100), Available.
pub async fn install(cluster: &Cluster) {
    let admin = cluster.admin();
    create(&admin, CRDS, &crd()).await;
    crate::common::eventually(Duration::from_secs(30), "the CRD Established", || {
        let admin = admin.clone();
        async move {
            let (_, crd) = get(&admin, &format!("{CRDS}/{CRD}")).await;
            let conditions = crd["status"]["conditions"].as_array().cloned()?;
            conditions
                .iter()
                .any(|c| c["type"] == "Established" && c["status"] == "True")
                .then_some(())
        }
    })
    .await;
    let routed = apiservice(
        GROUP,
        "v1",
        ("default", "apiext"),
        cluster.reference.port,
        &cluster.pki.serving_ca.pem.cert,
        (1000, 100),
        true,
    );
    create(&admin, APISERVICES, &routed).await;
    cluster
        .wait_available(APISERVICE, Duration::from_secs(60))
        .await;
    // The reference answers 429 for a moment while a new resource's storage starts.
    crate::common::eventually(Duration::from_secs(30), "Gadgets served", || {
        let admin = admin.clone();
        async move { (get(&admin, GADGETS).await.0 == 200).then_some(()) }
    })
    .await;
}

/// A Gadget of `size`.
pub fn gadget(name: &str, size: i64) -> Value {
    json!({"apiVersion": "offload.e2e.example.com/v1", "kind": "Gadget",
        "metadata": {"name": name, "namespace": "default"}, "spec": {"size": size}})
}

/// A write's outcome: the code and the body (object or Status).
pub async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    match req.send().await {
        Ok(resp) => {
            let code = resp.status().as_u16();
            (code, resp.json().await.unwrap_or(Value::Null))
        }
        Err(e) => (0, json!({"transportError": e.to_string()})),
    }
}

/// POST a Gadget: (code, body).
pub async fn post(to: &Upstream, object: &Value, query: &str) -> (u16, Value) {
    send(
        to.client
            .post(format!("{}{GADGETS}{query}", to.base))
            .json(object),
    )
    .await
}

/// Whether `(code, body)` is the fence's denial as kube words it: 403 Forbidden,
/// `<plural>.<group> "<name>" is forbidden: <denial>`, the denial alone as the cause.
pub fn fenced(code: u16, body: &Value) -> bool {
    let message = body["message"].as_str().unwrap_or_default();
    code == 403
        && body["reason"] == "Forbidden"
        && message.starts_with(&format!("gadgets.{GROUP} \""))
        && message.ends_with(&format!("\" is forbidden: {}", fence_denial()))
        && body["details"]["causes"] == json!([{"message": fence_denial()}])
}

/// Puts the fence as offload's steps write it (src/offload/steps/fence.rs: policy with
/// `failurePolicy: Fail`, `*/*` of the group for CREATE/UPDATE/DELETE, the match condition
/// exempting `user`'s non-dry-run writes; binding with `Deny`) at the fake, with kube's
/// defaults, as the host would store it.
pub fn put_fence(cluster: &Cluster, user: &str) {
    let labels = json!({"app.kubernetes.io/managed-by": "crd-apiserver"});
    let mut policy = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": fence_name(), "labels": labels},
        "spec": {"failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [{"apiGroups": [GROUP], "apiVersions": ["*"],
                "resources": ["*/*"], "operations": ["CREATE", "UPDATE", "DELETE"]}]},
            "matchConditions": [{"name": "not-crd-apiserver",
                "expression": format!("request.userInfo.username != '{user}' || request.dryRun")}],
            "validations": [{"expression": "false", "reason": "Forbidden",
                "message": fence_message()}]}});
    crate::front::default_policy(&mut policy);
    cluster.fake.put_object(policy);
    cluster
        .fake
        .put_object(json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": fence_name(), "labels": labels},
        "spec": {"policyName": fence_name(), "validationActions": ["Deny"]}}));
}
