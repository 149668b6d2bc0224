//! Document tests: the operations of a served version, the v2 and v3 documents and the
//! v3 discovery document.

use serde_json::{Value, json};

use super::tests::{OBJECT_META_REF, crontab, simple};
use super::{Documents, paths, v2, v3};

#[test]
fn paths_namespaced_resource_operations_like_kube() {
    let r = crontab(simple(), json!({}));
    let paths = paths::paths(&r, &r.versions[0]);
    let ns = "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs";
    let cases = [
        (
            "/apis/stable.example.com/v1/crontabs",
            "get",
            "listStableExampleComV1CronTabForAllNamespaces",
            "list objects of kind CronTab",
        ),
        (
            "",
            "post",
            "createStableExampleComV1NamespacedCronTab",
            "create a CronTab",
        ),
        (
            "",
            "delete",
            "deleteStableExampleComV1CollectionNamespacedCronTab",
            "delete collection of CronTab",
        ),
        (
            "/{name}",
            "patch",
            "patchStableExampleComV1NamespacedCronTab",
            "partially update the specified CronTab",
        ),
        (
            "/{name}/status",
            "get",
            "readStableExampleComV1NamespacedCronTabStatus",
            "read status of the specified CronTab",
        ),
        (
            "/{name}/scale",
            "put",
            "replaceStableExampleComV1NamespacedCronTabScale",
            "replace scale of the specified CronTab",
        ),
    ];
    for (suffix, method, id, description) in cases {
        let path = match suffix.starts_with("/apis") {
            true => suffix.to_string(),
            false => format!("{ns}{suffix}"),
        };
        let op = paths[&path]
            .operations
            .iter()
            .find(|o| o.method == method)
            .unwrap();
        assert_eq!(
            (op.operation_id.as_str(), op.description.as_str()),
            (id, description)
        );
    }
}

#[test]
fn paths_object_path_shares_common_parameters() {
    let r = crontab(simple(), json!({}));
    let paths = paths::paths(&r, &r.versions[0]);
    let ns = "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs";
    let item = &paths[&format!("{ns}/{{name}}")];
    let shared: Vec<&str> = item.params.iter().map(|p| p.name).collect();
    assert_eq!(shared, ["name", "namespace", "pretty"]);
    let patch = item
        .operations
        .iter()
        .find(|o| o.method == "patch")
        .unwrap();
    let own: Vec<&str> = patch.params.iter().map(|p| p.name).collect();
    assert_eq!(own, ["dryRun", "fieldManager", "fieldValidation", "force"]);
}

#[test]
fn v3_document_has_fieldvalidation_on_patch_and_wrapped_refs() {
    let r = crontab(simple(), json!({}));
    let doc = v3::document(&[(&r, &r.versions[0])]);
    assert_eq!(doc["openapi"], "3.0.0");
    let path = "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}";
    let patch = &doc["paths"][path]["patch"];
    assert_eq!(patch["x-kubernetes-action"], "patch");
    assert_eq!(patch["x-kubernetes-group-version-kind"]["kind"], "CronTab");
    let names: Vec<&str> = patch["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"fieldValidation"), "{names:?}");
    let content = patch["requestBody"]["content"].as_object().unwrap();
    let types: Vec<&String> = content.keys().collect();
    assert_eq!(
        types,
        [
            "application/apply-patch+yaml",
            "application/json-patch+json",
            "application/merge-patch+json"
        ]
    );
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for name in [
        "com.example.stable.v1.CronTab",
        "com.example.stable.v1.CronTabList",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
        "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
        "io.k8s.api.autoscaling.v1.Scale",
    ] {
        assert!(schemas.contains_key(name), "{name}");
    }
    let metadata = &schemas["com.example.stable.v1.CronTab"]["properties"]["metadata"];
    assert_eq!(
        metadata["allOf"],
        json!([{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}])
    );
    assert_eq!(
        schemas["io.k8s.api.autoscaling.v1.ScaleStatus"]["properties"]["replicas"]["default"],
        0
    );
}

#[test]
fn v2_document_shares_parameters_and_prunes_defaults() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"color": {"type": "string", "default": "blue"}}}}});
    let r = crontab(schema, json!({}));
    let doc = v2::document(&[(&r, &r.versions[0])], "v0.1.0");
    assert_eq!(doc["swagger"], "2.0");
    let defs = &doc["definitions"];
    assert_eq!(
        defs["com.example.stable.v1.CronTab"]["properties"]["spec"]["properties"]["color"],
        json!({"type": "string"})
    );
    assert_eq!(
        defs["com.example.stable.v1.CronTab"]["properties"]["metadata"]["$ref"],
        OBJECT_META_REF
    );
    let labels = &defs["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]["labels"];
    assert_eq!(labels["additionalProperties"], json!({"type": "string"}));
    assert_eq!(doc["parameters"]["pretty-tJGM1-ng"]["name"], "pretty");
    let path = "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}";
    let patch = &doc["paths"][path]["patch"];
    let inline: Vec<&str> = patch["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(inline, ["dryRun", "fieldValidation"]);
    assert_eq!(
        patch["parameters"][0],
        json!({"$ref": "#/parameters/body-78PwaGsr"})
    );
}

#[test]
fn documents_discovery_points_at_hashed_group_versions() {
    let r = crontab(simple(), json!({}));
    let docs = Documents::build(&[r]);
    let root: Value = serde_json::from_slice(docs.v3_root().bytes()).unwrap();
    let doc = docs.v3("apis/stable.example.com/v1").unwrap();
    assert_eq!(doc.etag().len(), 128);
    assert!(
        doc.etag()
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
    );
    let url = format!("/openapi/v3/apis/stable.example.com/v1?hash={}", doc.etag());
    assert_eq!(
        root,
        json!({"paths": {"apis/stable.example.com/v1": {"serverRelativeURL": url}}})
    );
}
