//! Published OpenAPI end to end: the real kubectl's `explain` (OpenAPI v3) and
//! `apply --validate=strict`, the `/openapi/v3` discovery document with hash URLs, ETags
//! and 304s, and the `/openapi/v2` definitions with the seed's v2 conversions.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use common::{Server, json_of};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A documented CronTab, and a Sample exercising the v2 conversions.
const CRDS: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          description: CronTab runs an image on a schedule.
          type: object
          properties:
            spec:
              description: CronTabSpec is the desired schedule of a CronTab.
              type: object
              properties:
                cronSpec:
                  description: The cron schedule, in cron format.
                  type: string
                image:
                  description: The image the CronTab runs.
                  type: string
                replicas:
                  description: How many jobs run at once.
                  type: integer
            status:
              type: object
              properties:
                replicas: {type: integer}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: samples.conversions.example.com
spec:
  group: conversions.example.com
  scope: Cluster
  names: {plural: samples, singular: sample, kind: Sample}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [nullableField, plain]
              properties:
                nullableField: {type: string, nullable: true}
                plain: {type: string, default: x}
                choice:
                  type: string
                  anyOf: [{pattern: "^a"}, {pattern: "^b"}]
                port: {x-kubernetes-int-or-string: true}
                open:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
                  properties: {a: {type: string}}
                nullableObject:
                  type: object
                  nullable: true
                  properties: {x: {type: string}}
"#;

const CRONTAB_DOC: &str = "/openapi/v3/apis/stable.example.com/v1";

fn serve() -> Server {
    let dir = tempfile::tempdir().unwrap().keep();
    let file = dir.join("crds.yaml");
    std::fs::write(&file, CRDS).unwrap();
    Server::start_with(&["--crd-dir", file.to_str().unwrap()])
}

fn sha512_upper_hex(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA512, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02X}")).collect()
}

#[test]
fn kubectl_explain_field_prints_crd_fields_and_descriptions() {
    let server = serve();
    let out = server.kubectl_ok(&["explain", "crontabs.spec"]);
    for want in [
        "GROUP:      stable.example.com",
        "KIND:       CronTab",
        "VERSION:    v1",
        "FIELD: spec <Object>",
        "CronTabSpec is the desired schedule of a CronTab.",
        "cronSpec\t<string>",
        "The cron schedule, in cron format.",
        "replicas\t<integer>",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
}

#[test]
fn kubectl_explain_metadata_shows_object_meta() {
    let server = serve();
    let out = server.kubectl_ok(&["explain", "crontab.metadata"]);
    for want in [
        "FIELD: metadata <ObjectMeta>",
        "ObjectMeta is metadata that all persisted resources must have",
        "annotations\t<map[string]string>",
        "managedFields\t<[]ManagedFieldsEntry>",
        "ownerReferences\t<[]OwnerReference>",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
}

#[test]
fn kubectl_explain_recursive_walks_every_field() {
    let server = serve();
    let out = server.kubectl_ok(&["explain", "crontab", "--recursive"]);
    for want in [
        "CronTab runs an image on a schedule.",
        "apiVersion\t<string>",
        "metadata\t<ObjectMeta>",
        "creationTimestamp\t<string>",
        "managedFields\t<[]ManagedFieldsEntry>",
        "spec\t<Object>",
        "cronSpec\t<string>",
        "status\t<Object>",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
}

#[tokio::test]
async fn openapi_v3_root_lists_group_versions_with_hash_urls() {
    let server = serve();
    let client = server.client();
    let root = json_of(client.get(server.url("/openapi/v3"))).await;
    let paths = root["paths"].as_object().unwrap();
    let keys: Vec<&String> = paths.keys().collect();
    assert_eq!(
        keys,
        [
            "apis/conversions.example.com/v1",
            "apis/stable.example.com/v1"
        ]
    );
    for (path, entry) in paths {
        let url = entry["serverRelativeURL"].as_str().unwrap();
        let resp = client
            .get(server.url(&format!("/openapi/v3/{path}")))
            .send()
            .await
            .unwrap();
        let bytes = resp.bytes().await.unwrap();
        let want = format!("/openapi/v3/{path}?hash={}", sha512_upper_hex(&bytes));
        assert_eq!(url, want);
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(doc["openapi"], "3.0.0");
    }
}

#[tokio::test]
async fn openapi_etag_if_none_match_answers_304() {
    let server = serve();
    let client = server.client();
    for path in ["/openapi/v3", CRONTAB_DOC, "/openapi/v2"] {
        let first = client.get(server.url(path)).send().await.unwrap();
        assert_eq!(first.status(), StatusCode::OK, "{path}");
        let etag = first.headers()["etag"].to_str().unwrap().to_string();
        let body = first.bytes().await.unwrap();
        assert_eq!(etag, format!("\"{}\"", sha512_upper_hex(&body)), "{path}");
        let again = client
            .get(server.url(path))
            .header("If-None-Match", &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert!(again.bytes().await.unwrap().is_empty(), "{path}");
    }
}

#[tokio::test]
async fn openapi_v3_hash_pins_content_or_redirects() {
    let server = serve();
    let client = server.client();
    let root = json_of(client.get(server.url("/openapi/v3"))).await;
    let url = root["paths"]["apis/stable.example.com/v1"]["serverRelativeURL"]
        .as_str()
        .unwrap()
        .to_string();
    let pinned = client.get(server.url(&url)).send().await.unwrap();
    assert_eq!(pinned.status(), StatusCode::OK);
    assert_eq!(pinned.headers()["cache-control"], "public, immutable");
    assert!(pinned.headers().contains_key("expires"));
    let plain = client.get(server.url(CRONTAB_DOC)).send().await.unwrap();
    assert!(!plain.headers().contains_key("cache-control"));
    // A stale hash is redirected (301) to the current URL, which the client follows.
    let stale = client
        .get(server.url(&format!("{CRONTAB_DOC}?hash=0123")))
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), StatusCode::OK);
    assert_eq!(stale.url().as_str(), server.url(&url));
    assert_eq!(stale.headers()["cache-control"], "public, immutable");
}

#[tokio::test]
async fn openapi_accept_protobuf_only_answers_406_and_json_answers() {
    let server = serve();
    let client = server.client();
    let protobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
    let resp = client
        .get(server.url("/openapi/v2"))
        .header("Accept", protobuf)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::NOT_ACCEPTABLE);
    let resp = client
        .get(server.url("/openapi/v2"))
        .header("Accept", format!("{protobuf}, application/json"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.headers()["content-type"], "application/json");
    let unknown = client
        .get(server.url("/openapi/v3/apis/nope.example.com/v1"))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn openapi_v2_definitions_carry_the_seed_conversions() {
    let server = serve();
    let doc = json_of(server.client().get(server.url("/openapi/v2"))).await;
    assert_eq!(doc["swagger"], "2.0");
    let spec = &doc["definitions"]["com.example.conversions.v1.Sample"]["properties"]["spec"];
    let want = json!({"type": "object", "required": ["plain"], "properties": {
        "nullableField": {},
        "plain": {"type": "string"},
        "choice": {"type": "string"},
        "port": {"x-kubernetes-int-or-string": true},
        "open": {"x-kubernetes-preserve-unknown-fields": true},
        "nullableObject": {},
    }});
    assert_eq!(spec, &want);
    let meta = &doc["definitions"]["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"];
    assert!(meta["properties"]["labels"].is_object());
    let patch = &doc["paths"]["/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"]
        ["patch"];
    let field_validation = patch["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "fieldValidation" && p["in"] == "query");
    assert!(field_validation, "{patch}");

    // v3 keeps the lossless schema: nullable, anyOf, defaults, int-or-string unfolded.
    let v3 = json_of(
        server
            .client()
            .get(server.url("/openapi/v3/apis/conversions.example.com/v1")),
    )
    .await;
    let spec =
        &v3["components"]["schemas"]["com.example.conversions.v1.Sample"]["properties"]["spec"];
    assert_eq!(spec["properties"]["nullableField"]["nullable"], true);
    assert_eq!(spec["properties"]["plain"]["default"], "x");
    assert_eq!(
        spec["properties"]["port"]["anyOf"],
        json!([{"type": "integer"}, {"type": "string"}])
    );
    assert_eq!(spec["required"], json!(["nullableField", "plain"]));
}

#[test]
fn kubectl_apply_validate_strict_rejects_unknown_fields() {
    let server = serve();
    let write = |name: &str, spec: &str| {
        let manifest = format!(
            "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: {name}\nspec:\n{spec}"
        );
        common::write_temp(&server, &format!("{name}.yaml"), &manifest)
    };
    let bad = write("bad", "  cronSpec: \"* * * * */5\"\n  bogus: 1\n");
    let out = server.kubectl(&["apply", "--validate=strict", "-f", bad.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "unknown field accepted: {stderr}");
    assert!(stderr.contains(r#"unknown field "spec.bogus""#), "{stderr}");

    let good = write("good", "  cronSpec: \"* * * * */5\"\n  image: my-image\n");
    let out = server.kubectl_ok(&["apply", "--validate=strict", "-f", good.to_str().unwrap()]);
    assert!(
        out.contains("crontab.stable.example.com/good created"),
        "{out}"
    );
}
