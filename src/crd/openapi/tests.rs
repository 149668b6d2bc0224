//! Builder tests: the published kind and list schemas, for CRDs built through the real
//! catalog (the fixture the document tests share).

use std::sync::Arc;

use serde_json::{Value, json};

use super::published::{Flavor, kind_schema, list_schema, to_kube_openapi, unfold_int_or_string};
use crate::crd::catalog::{Catalog, ServedResource};

pub(super) const OBJECT_META_REF: &str =
    "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// A CronTab CRD (namespaced, status + scale) with `schema` and `version` overrides.
pub(super) fn crontab(schema: Value, version: Value) -> Arc<ServedResource> {
    let mut v = json!({"name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": schema},
        "subresources": {"status": {}, "scale": {
            "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}});
    if let (Some(v), Some(extra)) = (v.as_object_mut(), version.as_object()) {
        v.extend(extra.clone());
    }
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {"group": "stable.example.com", "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab"},
            "versions": [v]}});
    let crd = serde_json::from_value(crd).unwrap();
    Catalog::build(&[crd]).unwrap().resources()[0].clone()
}

pub(super) fn simple() -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"cronSpec": {"type": "string", "description": "the schedule"}}}}})
}

#[test]
fn kind_schema_v3_adds_kube_metadata_and_gvk() {
    let r = crontab(
        simple(),
        json!({"selectableFields": [{"jsonPath": ".spec.cronSpec"}]}),
    );
    let s = kind_schema(&r, &r.versions[0], Flavor::V3);
    assert_eq!(s["properties"]["metadata"]["$ref"], OBJECT_META_REF);
    assert_eq!(
        s["properties"]["metadata"]["description"],
        "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
    );
    assert!(
        s["properties"]["apiVersion"]["description"]
            .as_str()
            .unwrap()
            .starts_with("APIVersion defines")
    );
    assert_eq!(s["properties"]["kind"]["type"], "string");
    assert_eq!(
        s["properties"]["spec"]["properties"]["cronSpec"]["description"],
        "the schedule"
    );
    assert_eq!(
        s["x-kubernetes-group-version-kind"],
        json!([{"group": "stable.example.com", "version": "v1", "kind": "CronTab"}])
    );
    assert_eq!(
        s["x-kubernetes-selectable-fields"],
        json!([{"fieldPath": "spec.cronSpec"}])
    );
}

#[test]
fn kind_schema_cases_publish_like_kube() {
    let gvk = json!([{"group": "stable.example.com", "version": "v1", "kind": "CronTab"}]);
    let preserving = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
        "properties": {"spec": {"type": "object"}}});
    let cases = [
        (
            "v2 root preserving unknown fields",
            preserving.clone(),
            Flavor::V2,
            json!({"type": "object", "x-kubernetes-group-version-kind": gvk}),
        ),
        (
            "v3 root preserving unknown fields keeps its schema",
            preserving,
            Flavor::V3,
            json!(true),
        ),
    ];
    for (case, schema, flavor, want) in cases {
        let r = crontab(schema, json!({}));
        let got = kind_schema(&r, &r.versions[0], flavor);
        if want == json!(true) {
            assert_eq!(
                got["properties"]["spec"],
                json!({"type": "object"}),
                "{case}"
            );
            assert_eq!(got["x-kubernetes-preserve-unknown-fields"], true, "{case}");
        } else {
            assert_eq!(got, want, "{case}");
        }
    }
}

#[test]
fn kind_schema_embedded_resource_gets_type_meta_except_preserving_in_v2() {
    let schema = json!({"type": "object", "properties": {
        "plain": {"type": "object", "x-kubernetes-embedded-resource": true, "required": ["kind"],
            "properties": {"spec": {"type": "object"}}},
        "open": {"type": "object", "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true}}});
    let r = crontab(schema, json!({}));
    let v3 = kind_schema(&r, &r.versions[0], Flavor::V3);
    let plain = &v3["properties"]["plain"];
    assert_eq!(plain["required"], json!(["kind", "apiVersion"]));
    assert_eq!(plain["properties"]["metadata"]["$ref"], OBJECT_META_REF);
    assert!(
        plain["properties"]["kind"]["description"]
            .as_str()
            .unwrap()
            .starts_with("kind is a string value")
    );
    assert_eq!(
        v3["properties"]["open"]["required"],
        json!(["kind", "apiVersion"])
    );
    let v2 = kind_schema(&r, &r.versions[0], Flavor::V2);
    assert_eq!(
        v2["properties"]["open"],
        json!({"x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true})
    );
    assert_eq!(
        v2["properties"]["plain"]["required"],
        json!(["kind", "apiVersion"])
    );
}

#[test]
fn to_kube_openapi_drops_go_empty_values_and_unpublished_keywords() {
    let raw = json!({"type": "object", "description": "", "nullable": false, "required": [],
        "properties": {"a": {"type": "string", "default": "", "enum": [], "example": "x",
            "externalDocs": {"url": "u"}, "x-kubernetes-validations": [
                {"rule": "self != ''", "message": "", "fieldPath": ""}]},
            "b": {"type": "object", "additionalProperties": false, "properties": {}},
            "c": {"anyOf": [{"type": "string", "additionalProperties": true}]}}});
    let want = json!({"type": "object", "properties": {
        "a": {"type": "string", "default": "", "x-kubernetes-validations": [{"rule": "self != ''"}]},
        "b": {"type": "object", "additionalProperties": false},
        "c": {"anyOf": [{"type": "string"}]}}});
    assert_eq!(to_kube_openapi(&raw), want);
}

#[test]
fn unfold_int_or_string_cases() {
    let pattern = json!([{"type": "integer"}, {"type": "string"}]);
    let cases = [
        (
            "plain",
            json!({"x-kubernetes-int-or-string": true}),
            json!({"x-kubernetes-int-or-string": true, "anyOf": pattern}),
        ),
        (
            "already unfolded",
            json!({"x-kubernetes-int-or-string": true, "anyOf": pattern}),
            json!({"x-kubernetes-int-or-string": true, "anyOf": pattern}),
        ),
        (
            "own anyOf goes after",
            json!({"x-kubernetes-int-or-string": true,
                "anyOf": [{"pattern": "^a"}], "allOf": [{"maxLength": 3}]}),
            json!({"x-kubernetes-int-or-string": true, "anyOf": [{"pattern": "^a"}],
                "allOf": [{"anyOf": pattern}, {"maxLength": 3}]}),
        ),
        (
            "nested property",
            json!({"properties": {"p": {"x-kubernetes-int-or-string": true}}}),
            json!({"properties": {"p": {"x-kubernetes-int-or-string": true, "anyOf": pattern}}}),
        ),
    ];
    for (case, mut schema, want) in cases {
        unfold_int_or_string(&mut schema);
        assert_eq!(schema, want, "{case}");
    }
}

#[test]
fn list_schema_lists_kind_with_list_meta() {
    let r = crontab(simple(), json!({}));
    let s = list_schema(&r, &r.versions[0]);
    assert_eq!(s["description"], "CronTabList is a list of CronTab");
    assert_eq!(s["required"], json!(["items"]));
    assert_eq!(
        s["properties"]["items"]["items"]["$ref"],
        "#/definitions/com.example.stable.v1.CronTab"
    );
    assert_eq!(
        s["properties"]["metadata"]["$ref"],
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
    );
    assert_eq!(
        s["x-kubernetes-group-version-kind"][0]["kind"],
        "CronTabList"
    );
}
