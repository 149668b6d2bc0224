//! A Scale answered in the negotiated representation: JSON or YAML, or converted as the
//! Accept header asks, with the scale scope's own Table convertor (Desired, Available, Age).

use std::sync::LazyLock;

use serde_json::Value;

use crate::error::ApiError;
use crate::handlers::collection::{conversion, transform_error};
use crate::handlers::{Call, Reply};
use crate::request::negotiate::{MetaVersion, Representation};
use crate::table::{Conversion, TableConvertor, TableOptions};

/// `getScaleColumnsForVersion`: a CRD's scale subresource always names both replica paths
/// (validation requires them), so every scale scope has Desired and Available.
static SCALE_TABLE: LazyLock<TableConvertor> =
    LazyLock::new(|| TableConvertor::for_scale(true, true));

/// Go's `%T` of the scale storage's answer, which kube's PartialObjectMetadataList check names.
const SCALE_GO_TYPE: &str = "*v1.Scale";

/// The Scale as the answer's body, converted when the Accept header asks for a
/// `meta.k8s.io` form (`includeObject` read only then, as kube's `optionsForTransform`).
pub fn scale_body(
    call: &Call,
    representation: Representation,
    scale: Value,
) -> Result<Value, ApiError> {
    match representation {
        Representation::Meta(target) => convert(scale, conversion(call, target)?, target.version),
        _ => Ok(scale),
    }
}

/// The Scale converted. A typed Scale is not a list, so unlike a custom object (500
/// "content is not a list") PartialObjectMetadataList is kube's 406.
fn convert(scale: Value, conversion: Conversion, version: MetaVersion) -> Result<Value, ApiError> {
    if conversion == Conversion::PartialObjectMetadataList {
        return Err(ApiError::NotAcceptableConversion(format!(
            "you requested PartialObjectMetadataList, but the requested object is not a list ({SCALE_GO_TYPE})"
        )));
    }
    let now = jiff::Timestamp::now();
    SCALE_TABLE
        .convert_object(&scale, conversion, version, TableOptions::default(), now)
        .map_err(transform_error)
}

/// A 200 with the Scale in the negotiated representation.
pub fn scale_reply(
    call: &Call,
    representation: Representation,
    scale: Value,
) -> Result<Reply, ApiError> {
    let body = scale_body(call, representation, scale)?;
    Ok(Reply::ok(body, representation.encoding()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::table::IncludeObject;

    fn scale() -> Value {
        json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
               "metadata": {"name": "a", "namespace": "ns", "resourceVersion": "7",
                            "creationTimestamp": "2020-01-01T00:00:00Z"},
               "spec": {"replicas": 2}, "status": {"replicas": 1, "selector": "x=y"}})
    }

    #[test]
    fn convert_table_has_scale_columns() {
        let table = convert(
            scale(),
            Conversion::Table(IncludeObject::Metadata),
            MetaVersion::V1,
        )
        .unwrap();
        let names: Vec<&str> = table["columnDefinitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Name", "Desired", "Available", "Age"]);
        assert_eq!(table["metadata"], json!({"resourceVersion": "7"}));
        let cells = table["rows"][0]["cells"].as_array().unwrap();
        assert_eq!(cells[..3], [json!("a"), json!(2), json!(1)]);
        assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    }

    #[test]
    fn convert_table_include_object_embeds_scale() {
        let table = convert(
            scale(),
            Conversion::Table(IncludeObject::Object),
            MetaVersion::V1beta1,
        )
        .unwrap();
        assert_eq!(table["apiVersion"], "meta.k8s.io/v1beta1");
        assert_eq!(table["rows"][0]["object"], scale());
    }

    #[test]
    fn convert_partial_object_metadata_list_not_acceptable() {
        let err = convert(
            scale(),
            Conversion::PartialObjectMetadataList,
            MetaVersion::V1,
        )
        .unwrap_err();
        assert_eq!(err.code(), 406);
        assert_eq!(
            err.to_string(),
            "you requested PartialObjectMetadataList, but the requested object is not a list (*v1.Scale)"
        );
    }

    #[test]
    fn convert_partial_object_metadata_keeps_scale_meta() {
        let partial = convert(scale(), Conversion::PartialObjectMetadata, MetaVersion::V1).unwrap();
        assert_eq!(partial["apiVersion"], "meta.k8s.io/v1");
        assert_eq!(partial["metadata"], scale()["metadata"]);
    }
}
