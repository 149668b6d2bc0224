//! `autoscaling/v1` `Scale` as kube's static OpenAPI types it (`io.k8s.api.autoscaling.v1.Scale`)
//! for the field manager of `/scale` writes, and that manager's one-version converter.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde_json::Value;

use super::atom::{Atom, Field, Map, Scalar, TypeRef};
use crate::fieldmanager::merge::Converter;

/// The only version of the Scale kind /scale serves.
pub const SCALE_API_VERSION: &str = "autoscaling/v1";

/// The Scale kind.
pub const SCALE_KIND: &str = "Scale";

static SCALE_TYPE: LazyLock<TypeRef> = LazyLock::new(build_scale_type);

/// `io.k8s.api.autoscaling.v1.Scale`: `metadata` ObjectMeta, `spec.replicas`,
/// `status.replicas` and `status.selector`; every struct granular and closed.
pub fn scale_type() -> &'static TypeRef {
    &SCALE_TYPE
}

/// The Scale's versions for the merge: `autoscaling/v1` only; nothing converts.
pub struct ScaleConverter;

impl Converter for ScaleConverter {
    fn type_at(&self, version: &str) -> Option<&TypeRef> {
        (version == SCALE_API_VERSION).then(scale_type)
    }

    fn convert(&self, object: &Value, from: &str, to: &str) -> Result<Value, String> {
        if from == to {
            return Ok(object.clone());
        }
        Err(format!("cannot convert {SCALE_KIND} from {from} to {to}"))
    }
}

fn build_scale_type() -> TypeRef {
    let numeric = || leaf(Scalar::Numeric);
    let spec = closed_struct(vec![("replicas", numeric())]);
    let status = closed_struct(vec![
        ("replicas", numeric()),
        ("selector", leaf(Scalar::String)),
    ]);
    closed_struct(vec![
        ("apiVersion", leaf(Scalar::String)),
        ("kind", leaf(Scalar::String)),
        ("metadata", object_meta()),
        ("spec", spec),
        ("status", status),
    ])
}

/// ObjectMeta as it is typed for every resource.
fn object_meta() -> TypeRef {
    TypeRef::inline(super::objectmeta::object_meta())
}

fn leaf(s: Scalar) -> TypeRef {
    TypeRef::inline(Atom {
        scalar: Some(s),
        ..Atom::default()
    })
}

fn closed_struct(fields: Vec<(&str, TypeRef)>) -> TypeRef {
    let fields: BTreeMap<String, Field> = fields
        .into_iter()
        .map(|(name, ty)| (name.to_string(), Field { ty, default: None }))
        .collect();
    TypeRef::inline(Atom {
        map: Some(Box::new(Map {
            atomic: false,
            fields,
            element: None,
        })),
        ..Atom::default()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::fieldmanager::typed::{to_field_set, validate};

    #[test]
    fn scale_type_metadata_is_object_meta() {
        let root = scale_type().resolve().map.as_deref().unwrap();
        let meta = root.fields["metadata"].ty.resolve().map.as_deref().unwrap();
        assert!(meta.is_field("managedFields") && meta.is_field("labels"));
        assert!(meta.element.is_none());
    }

    #[test]
    fn scale_type_valid_scale_validates() {
        let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {"name": "a", "labels": {"x": "y"}},
            "spec": {"replicas": 3}, "status": {"replicas": 1, "selector": "a=b"}});
        assert!(validate(scale_type(), &scale, false).is_ok());
    }

    #[test]
    fn scale_type_unknown_spec_field_is_not_declared() {
        let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
            "spec": {"replicas": 1, "foo": 1}});
        let err = validate(scale_type(), &scale, false)
            .unwrap_err()
            .to_string();
        assert_eq!(err, ".spec.foo: field not declared in schema");
    }

    #[test]
    fn scale_type_field_set_has_each_leaf() {
        let scale = json!({"spec": {"replicas": 3}, "status": {"replicas": 1}});
        let set = to_field_set(scale_type(), &scale).unwrap();
        assert_eq!(
            set.to_fields_v1(),
            json!({"f:spec": {"f:replicas": {}}, "f:status": {"f:replicas": {}}})
        );
    }

    #[test]
    fn scale_converter_serves_autoscaling_v1_only() {
        assert!(ScaleConverter.type_at("autoscaling/v1").is_some());
        assert!(ScaleConverter.type_at("autoscaling/v2").is_none());
        assert!(
            ScaleConverter
                .convert(&json!({}), "autoscaling/v1", "x/v1")
                .is_err()
        );
    }
}
