//! The AdmissionReview wire (`admission.k8s.io` `v1` and `v1beta1`): the request body a
//! webhook is sent and the checks its answer must pass, in kube's words
//! (k8s.io/apiserver `pkg/admission/plugin/webhook/request/admissionreview.go`). Pure.
//!
//! - `encode`: [`encode`], kube's `CreateV1AdmissionReview` / `CreateV1beta1AdmissionReview`.
//! - `decode`: [`decode`], client-go's decoding of the answer into the AdmissionReview
//!   sent, then kube's `VerifyAdmissionResponse`.

mod decode;
mod encode;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use crate::request::user::UserInfo;

pub use decode::{InvalidResponse, decode};
pub use encode::encode;

/// `metav1.GroupVersionKind`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gvk<'a> {
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
}

/// `metav1.GroupVersionResource`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gvr<'a> {
    pub group: &'a str,
    pub version: &'a str,
    pub resource: &'a str,
}

/// What a webhook is told about a request (kube's `AdmissionRequest`). `kind`,
/// `resource` and `sub_resource` are those the webhook is called with (its matched
/// version); the `request_*` fields those of the request itself.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    pub uid: &'a str,
    pub kind: Gvk<'a>,
    pub resource: Gvr<'a>,
    pub sub_resource: &'a str,
    pub request_kind: Gvk<'a>,
    pub request_resource: Gvr<'a>,
    pub request_sub_resource: &'a str,
    pub name: &'a str,
    pub namespace: &'a str,
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: &'a str,
    pub user: &'a UserInfo,
    pub object: Option<&'a serde_json::Value>,
    pub old_object: Option<&'a serde_json::Value>,
    pub dry_run: bool,
    /// The operation's options (`CreateOptions`, `UpdateOptions`, `PatchOptions`,
    /// `DeleteOptions` of `meta.k8s.io/v1`, with apiVersion and kind), as sent.
    pub options: Option<&'a serde_json::Value>,
}

/// The AdmissionReview version a webhook is called with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReviewVersion {
    V1,
    V1beta1,
}

impl ReviewVersion {
    /// The `apiVersion` of its AdmissionReview.
    pub fn api_version(self) -> &'static str {
        match self {
            ReviewVersion::V1 => "admission.k8s.io/v1",
            ReviewVersion::V1beta1 => "admission.k8s.io/v1beta1",
        }
    }

    fn version(self) -> &'static str {
        match self {
            ReviewVersion::V1 => "v1",
            ReviewVersion::V1beta1 => "v1beta1",
        }
    }
}

/// Which admission phase called: a validating webhook may not return a patch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Mutating,
    Validating,
}

/// kube's `CreateAdmissionObjects`: the first of the webhook's `admissionReviewVersions`
/// this server sends; none known is kube's error.
pub fn pick_version(accepted: &[String]) -> Result<ReviewVersion, String> {
    accepted
        .iter()
        .find_map(|v| match v.as_str() {
            "v1" => Some(ReviewVersion::V1),
            "v1beta1" => Some(ReviewVersion::V1beta1),
            _ => None,
        })
        .ok_or_else(|| {
            "webhook does not accept known AdmissionReview versions (v1, v1beta1)".into()
        })
}

/// `response.status` of a webhook's answer (`metav1.Status`), as it was sent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResultStatus {
    pub status: String,
    pub code: i32,
    pub reason: String,
    pub message: String,
    /// `details`, kept as sent.
    pub details: Option<serde_json::Value>,
}

/// A verified answer (kube's `AdmissionResponse`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Response {
    pub allowed: bool,
    pub result: Option<ResultStatus>,
    /// `response.patch`, base64-decoded; only a mutating webhook's, never empty.
    pub patch: Option<Vec<u8>>,
    /// `response.patchType` (`JSONPatch` pinned for a v1beta1 patch); kube refuses any
    /// other type only after the `allowed` check (`unsupported patch type "…"`).
    pub patch_type: String,
    pub warnings: Vec<String>,
    pub audit_annotations: BTreeMap<String, String>,
}
