//! Content negotiation: which representation the Accept header asks for, and how a
//! request body's Content-Type is decoded.

use crate::error::ApiError;

/// What a response body is rendered as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Representation {
    Json,
    Yaml,
    /// `meta.k8s.io/v1` Table (server-side printing).
    Table,
    /// `apidiscovery.k8s.io/v2` aggregated discovery.
    DiscoveryV2,
}

impl Representation {
    pub fn content_type(self) -> &'static str {
        match self {
            Representation::Json => "application/json",
            Representation::Yaml => "application/yaml",
            // kube answers Tables with plain application/json.
            Representation::Table => "application/json",
            Representation::DiscoveryV2 => {
                "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
            }
        }
    }
}

/// The media types we can produce, listed in 406 answers.
const ACCEPTED: &str = "application/json, application/yaml, application/vnd.kubernetes.protobuf";

/// Where the response is going: plain objects, or discovery documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Object,
    Discovery,
}

/// Picks the first acceptable representation from an Accept header, honouring order.
pub fn negotiate(accept: Option<&str>, target: Target) -> Result<Representation, ApiError> {
    let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
        return Ok(Representation::Json);
    };
    for clause in accept.split(',') {
        if let Some(r) = match_clause(clause, target) {
            return Ok(r);
        }
    }
    Err(ApiError::NotAcceptable(ACCEPTED.into()))
}

fn match_clause(clause: &str, target: Target) -> Option<Representation> {
    let mut parts = clause.split(';').map(str::trim);
    let media = parts.next()?.to_ascii_lowercase();
    let mut as_ = "";
    let mut g = "";
    let mut v = "";
    for p in parts {
        match p.split_once('=') {
            Some(("as", x)) => as_ = x,
            Some(("g", x)) => g = x,
            Some(("v", x)) => v = x,
            _ => {}
        }
    }
    let plain = as_.is_empty();
    match media.as_str() {
        "application/json" if plain => Some(Representation::Json),
        "application/json" if as_ == "Table" && g == "meta.k8s.io" && v == "v1" => {
            (target == Target::Object).then_some(Representation::Table)
        }
        "application/json"
            if as_ == "APIGroupDiscoveryList" && g == "apidiscovery.k8s.io" && v == "v2" =>
        {
            (target == Target::Discovery).then_some(Representation::DiscoveryV2)
        }
        "application/yaml" if plain => Some(Representation::Yaml),
        "*/*" | "application/*" => Some(Representation::Json),
        _ => None,
    }
}

/// How a request body is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyFormat {
    Json,
    Yaml,
    JsonPatch,
    MergePatch,
    /// `application/apply-patch+yaml`: server-side apply.
    ApplyPatch,
}

/// Patch types custom resources accept here, in kube's order.
pub const PATCH_TYPES: &str =
    "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";

/// Content-Type of a create/update body.
pub fn body_format(content_type: Option<&str>) -> Result<BodyFormat, ApiError> {
    match media_type(content_type).as_str() {
        "" | "application/json" => Ok(BodyFormat::Json),
        "application/yaml" => Ok(BodyFormat::Yaml),
        other => Err(ApiError::UnsupportedMediaType(format!(
            "application/json, application/yaml (got {other})"
        ))),
    }
}

/// Content-Type of a patch body; strategic merge patch is not defined for custom resources.
pub fn patch_format(content_type: Option<&str>) -> Result<BodyFormat, ApiError> {
    match media_type(content_type).as_str() {
        "application/json-patch+json" => Ok(BodyFormat::JsonPatch),
        "application/merge-patch+json" => Ok(BodyFormat::MergePatch),
        "application/apply-patch+yaml" => Ok(BodyFormat::ApplyPatch),
        _ => Err(ApiError::UnsupportedMediaType(PATCH_TYPES.into())),
    }
}

fn media_type(content_type: Option<&str>) -> String {
    content_type
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiate_accept_headers_pick_first_supported() {
        use Representation::*;
        let cases: &[(&str, Option<&str>, Target, Option<Representation>)] = &[
            ("absent", None, Target::Object, Some(Json)),
            (
                "kubectl get table",
                Some(
                    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
                ),
                Target::Object,
                Some(Table),
            ),
            (
                "table on discovery falls through",
                Some("application/json;as=Table;v=v1;g=meta.k8s.io,application/json"),
                Target::Discovery,
                Some(Json),
            ),
            (
                "aggregated discovery",
                Some(
                    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json",
                ),
                Target::Discovery,
                Some(DiscoveryV2),
            ),
            ("yaml", Some("application/yaml"), Target::Object, Some(Yaml)),
            ("wildcard", Some("*/*"), Target::Object, Some(Json)),
            (
                "protobuf only",
                Some("application/vnd.kubernetes.protobuf"),
                Target::Object,
                None,
            ),
            (
                "protobuf then json",
                Some("application/vnd.kubernetes.protobuf, application/json"),
                Target::Object,
                Some(Json),
            ),
        ];
        for (name, accept, target, want) in cases {
            assert_eq!(negotiate(*accept, *target).ok(), *want, "{name}");
        }
    }

    #[test]
    fn patch_format_strategic_merge_unsupported() {
        let err = patch_format(Some("application/strategic-merge-patch+json")).unwrap_err();
        assert_eq!(err.code(), 415);
        assert_eq!(
            err.to_string(),
            "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
        );
    }
}
