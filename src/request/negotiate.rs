//! Content negotiation: which representation the Accept header asks for, and how a
//! request body's Content-Type is decoded.

use crate::error::ApiError;

/// The `meta.k8s.io` version the client asked the Table in (`Accept: ...;as=Table;v=...`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MetaVersion {
    #[default]
    V1,
    V1beta1,
}

impl MetaVersion {
    /// `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`: the Table's and embedded metadata's apiVersion.
    pub fn api_version(self) -> &'static str {
        match self {
            MetaVersion::V1 => "meta.k8s.io/v1",
            MetaVersion::V1beta1 => "meta.k8s.io/v1beta1",
        }
    }
}

/// What a response body is rendered as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Representation {
    Json,
    Yaml,
    /// A `meta.k8s.io` form of the object or list (`as=Table`, `as=PartialObjectMetadata`,
    /// `as=PartialObjectMetadataList`), encoded as JSON or YAML.
    Meta(MetaTarget),
    /// `apidiscovery.k8s.io/v2` aggregated discovery.
    DiscoveryV2,
}

impl Representation {
    /// kube answers transformed bodies with the plain serializer's media type.
    pub fn content_type(self) -> &'static str {
        match self.encoding() {
            Representation::Yaml => "application/yaml",
            Representation::DiscoveryV2 => {
                "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
            }
            _ => "application/json",
        }
    }

    /// How the body is serialized once transformed: a [`Representation::Meta`] becomes the
    /// JSON or YAML it is encoded in; replies only know these.
    pub fn encoding(self) -> Representation {
        match self {
            Representation::Meta(MetaTarget { yaml: true, .. }) => Representation::Yaml,
            Representation::Meta(_) => Representation::Json,
            other => other,
        }
    }
}

/// The `as=` kinds of `meta.k8s.io` a custom resource endpoint converts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetaKind {
    Table,
    PartialObjectMetadata,
    PartialObjectMetadataList,
}

/// A conversion asked in the Accept header: kind, `meta.k8s.io` version, and encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetaTarget {
    pub kind: MetaKind,
    pub version: MetaVersion,
    pub yaml: bool,
}

/// The media types we can produce, listed in 406 answers.
const ACCEPTED: &str = "application/json, application/yaml, application/vnd.kubernetes.protobuf";

/// The media types a watch can stream, listed in its 406 answers.
pub const ACCEPTED_STREAMS: &str =
    "application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch";

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

/// The parameters of one Accept clause that select a serializer and a conversion.
#[derive(Default)]
struct Params<'a> {
    as_: Option<&'a str>,
    g: Option<&'a str>,
    v: Option<&'a str>,
    stream: &'a str,
}

impl<'a> Params<'a> {
    fn parse(parts: impl Iterator<Item = &'a str>) -> Params<'a> {
        let mut params = Params::default();
        for p in parts {
            match p.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
                Some(("as", x)) => params.as_ = Some(x),
                Some(("g", x)) => params.g = Some(x),
                Some(("v", x)) => params.v = Some(x),
                Some(("stream", x)) => params.stream = x,
                _ => {}
            }
        }
        params
    }

    /// Any of `as`, `g`, `v` asks for a conversion (upstream's non-nil `Convert`).
    fn converts(&self) -> bool {
        self.as_.is_some() || self.g.is_some() || self.v.is_some()
    }

    /// The conversion, when it is one a custom resource endpoint allows
    /// (`RequestScope.AllowsMediaTypeTransform`): Table or PartialObjectMetadata[List] of
    /// `meta.k8s.io/v1` or `v1beta1`.
    fn meta_target(&self, yaml: bool) -> Option<MetaTarget> {
        if self.g != Some("meta.k8s.io") {
            return None;
        }
        let version = match self.v? {
            "v1" => MetaVersion::V1,
            "v1beta1" => MetaVersion::V1beta1,
            _ => return None,
        };
        let kind = match self.as_? {
            "Table" => MetaKind::Table,
            "PartialObjectMetadata" => MetaKind::PartialObjectMetadata,
            "PartialObjectMetadataList" => MetaKind::PartialObjectMetadataList,
            _ => return None,
        };
        Some(MetaTarget {
            kind,
            version,
            yaml,
        })
    }
}

fn match_clause(clause: &str, target: Target) -> Option<Representation> {
    let mut parts = clause.split(';').map(str::trim);
    let media = parts.next()?.to_ascii_lowercase();
    let params = Params::parse(parts);
    let yaml = match media.as_str() {
        "application/json" | "*/*" | "application/*" => false,
        "application/yaml" => true,
        _ => return None,
    };
    // Only JSON streams (a watch); YAML has no stream serializer.
    if !params.stream.is_empty() && (yaml || params.stream != "watch") {
        return None;
    }
    match target {
        Target::Discovery => discovery_clause(&params, yaml),
        Target::Object if !params.converts() => Some(plain(yaml)),
        Target::Object => params.meta_target(yaml).map(Representation::Meta),
    }
}

fn plain(yaml: bool) -> Representation {
    if yaml {
        Representation::Yaml
    } else {
        Representation::Json
    }
}

/// Discovery documents: plain JSON or YAML, or the v2 aggregated form in JSON.
fn discovery_clause(params: &Params<'_>, yaml: bool) -> Option<Representation> {
    if !params.converts() {
        return Some(plain(yaml));
    }
    let aggregated = params.as_ == Some("APIGroupDiscoveryList")
        && params.g == Some("apidiscovery.k8s.io")
        && params.v == Some("v2");
    (aggregated && !yaml).then_some(Representation::DiscoveryV2)
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
        // kube's list for custom resources, protobuf included (it refuses protobuf bodies
        // later, as we refuse them here).
        _ => Err(ApiError::UnsupportedMediaType(
            "application/json, application/yaml, application/vnd.kubernetes.protobuf".into(),
        )),
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

    fn table(version: MetaVersion, yaml: bool) -> Representation {
        Representation::Meta(MetaTarget {
            kind: MetaKind::Table,
            version,
            yaml,
        })
    }

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
                Some(table(MetaVersion::V1, false)),
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
            (
                "yaml table v1beta1",
                Some("application/yaml;as=Table;v=v1beta1;g=meta.k8s.io"),
                Target::Object,
                Some(table(MetaVersion::V1beta1, true)),
            ),
            (
                "table v2 is not served",
                Some("application/json;as=Table;v=v2;g=meta.k8s.io"),
                Target::Object,
                None,
            ),
            (
                "metadata client get",
                Some(
                    "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
                ),
                Target::Object,
                Some(Meta(MetaTarget {
                    kind: MetaKind::PartialObjectMetadata,
                    version: MetaVersion::V1,
                    yaml: false,
                })),
            ),
            (
                "metadata list v1beta1 yaml",
                Some("application/yaml;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1"),
                Target::Object,
                Some(Meta(MetaTarget {
                    kind: MetaKind::PartialObjectMetadataList,
                    version: MetaVersion::V1beta1,
                    yaml: true,
                })),
            ),
            (
                "conversion without group",
                Some("application/json;as=PartialObjectMetadata"),
                Target::Object,
                None,
            ),
            (
                "json watch stream",
                Some("application/json;stream=watch"),
                Target::Object,
                Some(Json),
            ),
            (
                "yaml cannot stream",
                Some("application/yaml;stream=watch"),
                Target::Object,
                None,
            ),
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
