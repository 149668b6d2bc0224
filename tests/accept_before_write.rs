//! An Accept header we cannot serve is refused with kube's 406 before anything is written
//! (create, update, patch, apply, `/status`, `/scale`, delete, deletecollection), and
//! `/scale` answers in the `meta.k8s.io` forms with the scale scope's own Table columns.
//! The 406 Status is the reference apiextensions-apiserver 0.36.4's answer to a create
//! with such an Accept (and a GET afterwards found nothing); the other answers follow its
//! handlers (`NegotiateOutputMediaType` first, `transformResponseObject` last).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use common::{Server, json_of, resource_version};
use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};

const COLLECTION: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

/// Accept headers no custom resource endpoint serves.
const UNSERVABLE: [&str; 3] = [
    "application/protobuf",
    "application/json;as=Foo;g=meta.k8s.io;v=v1",
    "text/html",
];

/// The reference's 406, recorded.
fn not_acceptable() -> Value {
    json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
        "reason": "NotAcceptable", "code": 406,
    })
}

fn crontab(name: &str, replicas: i64) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
           "metadata": {"name": name}, "spec": {"cronSpec": "* * * * */5", "replicas": replicas}})
}

fn request(server: &Server, method: Method, path: &str, accept: &str) -> RequestBuilder {
    server
        .client()
        .request(method, server.url(path))
        .header("accept", accept)
}

/// Sends `req`, expecting `code` and the whole Status body `want`.
async fn expect_status(req: RequestBuilder, code: u16, want: &Value, what: &str) {
    let resp = req.send().await.unwrap();
    assert_eq!(resp.status().as_u16(), code, "{what}");
    let body: Value = resp.json().await.unwrap();
    assert_eq!(&body, want, "{what}");
}

async fn get(server: &Server, path: &str) -> (u16, Value) {
    let resp = server.client().get(server.url(path)).send().await.unwrap();
    (resp.status().as_u16(), resp.json().await.unwrap())
}

async fn create(server: &Server, name: &str, replicas: i64) -> Value {
    let req = server
        .client()
        .post(server.url(COLLECTION))
        .json(&crontab(name, replicas));
    json_of(req).await
}

#[tokio::test]
async fn create_unservable_accept_stores_nothing() {
    let server = Server::start();
    for accept in UNSERVABLE {
        let req = request(&server, Method::POST, COLLECTION, accept).json(&crontab("c1", 1));
        expect_status(req, 406, &not_acceptable(), accept).await;
        let (code, _) = get(&server, &format!("{COLLECTION}/c1")).await;
        assert_eq!(code, 404, "{accept}: stored");
    }
    // The Accept header is looked at before the Content-Type.
    let req = request(&server, Method::POST, COLLECTION, "text/html")
        .header("content-type", "text/plain")
        .body("x");
    expect_status(req, 406, &not_acceptable(), "both unservable").await;
}

/// Every write of an existing object, each sent with an unservable Accept.
/// PUTs carry the current resourceVersion, so each would write if it were not refused.
fn writes(name: &str, rv: &str) -> Vec<(Method, String, &'static str, String)> {
    let object = format!("{COLLECTION}/{name}");
    let put = |rv: &str| {
        let mut body = crontab(name, 9);
        body["metadata"]["resourceVersion"] = json!(rv);
        body.to_string()
    };
    let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
                       "metadata": {"name": name, "namespace": "default"},
                       "spec": {"replicas": 9}});
    let merge = r#"{"spec":{"replicas":9}}"#.to_string();
    let apply = format!(
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: {name}\nspec:\n  replicas: 9\n"
    );
    vec![
        (Method::PUT, object.clone(), "application/json", put(rv)),
        (
            Method::PATCH,
            object.clone(),
            "application/merge-patch+json",
            merge.clone(),
        ),
        (
            Method::PATCH,
            format!("{object}?fieldManager=m"),
            "application/apply-patch+yaml",
            apply,
        ),
        (
            Method::PATCH,
            format!("{object}/status"),
            "application/merge-patch+json",
            r#"{"status":{"replicas":9}}"#.into(),
        ),
        (
            Method::PUT,
            format!("{object}/status"),
            "application/json",
            put(rv),
        ),
        (
            Method::PUT,
            format!("{object}/scale"),
            "application/json",
            scale.to_string(),
        ),
        (
            Method::PATCH,
            format!("{object}/scale"),
            "application/merge-patch+json",
            merge,
        ),
        (Method::DELETE, object, "application/json", String::new()),
        (
            Method::DELETE,
            COLLECTION.to_string(),
            "application/json",
            String::new(),
        ),
    ]
}

#[tokio::test]
async fn writes_unservable_accept_change_nothing() {
    let server = Server::start();
    let created = create(&server, "w1", 1).await;
    let path = format!("{COLLECTION}/w1");
    for (method, url, content_type, body) in writes("w1", &resource_version(&created)) {
        for accept in UNSERVABLE {
            let what = format!("{method} {url} Accept {accept}");
            let req = request(&server, method.clone(), &url, accept)
                .header("content-type", content_type)
                .body(body.clone());
            expect_status(req, 406, &not_acceptable(), &what).await;
            let (code, now) = get(&server, &path).await;
            assert_eq!(code, 200, "{what}: deleted");
            assert_eq!(
                resource_version(&now),
                resource_version(&created),
                "{what}: written"
            );
        }
    }
}

#[tokio::test]
async fn apply_missing_object_unservable_accept_creates_nothing() {
    let server = Server::start();
    let url = format!("{COLLECTION}/a1?fieldManager=m");
    let req = request(&server, Method::PATCH, &url, "text/html")
        .header("content-type", "application/apply-patch+yaml")
        .body(crontab("a1", 1).to_string());
    expect_status(req, 406, &not_acceptable(), "apply").await;
    let (code, _) = get(&server, &format!("{COLLECTION}/a1")).await;
    assert_eq!(code, 404, "apply created the object");
}

#[tokio::test]
async fn patch_unknown_patch_type_checked_before_accept() {
    let server = Server::start();
    create(&server, "p1", 1).await;
    let req = request(
        &server,
        Method::PATCH,
        &format!("{COLLECTION}/p1"),
        "text/html",
    )
    .header("content-type", "application/strategic-merge-patch+json")
    .body("{}");
    let want = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
        "reason": "UnsupportedMediaType", "code": 415,
    });
    expect_status(req, 415, &want, "patch type first").await;
}

const TABLE_V1: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";

/// The scale scope's columns (`getScaleColumnsForVersion`).
fn scale_columns() -> Value {
    let age = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
    let name = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
    json!([
        {"name": "Name", "type": "string", "format": "name", "description": name, "priority": 0},
        {"name": "Desired", "type": "integer", "format": "", "description": "Number of desired replicas", "priority": 0},
        {"name": "Available", "type": "integer", "format": "", "description": "Number of actual replicas", "priority": 0},
        {"name": "Age", "type": "date", "format": "", "description": age, "priority": 0},
    ])
}

/// The Scale's metadata as PartialObjectMetadata carries it.
fn scale_meta(object: &Value) -> Value {
    let m = &object["metadata"];
    json!({"name": m["name"], "namespace": m["namespace"], "uid": m["uid"],
           "resourceVersion": m["resourceVersion"], "creationTimestamp": m["creationTimestamp"]})
}

/// A Table of one Scale; the Age cell is checked to be a duration and set aside.
fn assert_scale_table(mut table: Value, object: &Value, desired: Value, what: &str) {
    let age = table["rows"][0]["cells"][3].take();
    assert!(
        age.as_str().is_some_and(|a| a.ends_with('s')),
        "{what}: age {age}"
    );
    let rv = &object["metadata"]["resourceVersion"];
    let want = json!({
        "kind": "Table", "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": rv},
        "columnDefinitions": scale_columns(),
        "rows": [{
            // The typed Scale always has status.replicas (0 here); Age is set aside.
            "cells": [object["metadata"]["name"], desired, 0, Value::Null],
            "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                       "metadata": scale_meta(object)},
        }],
    });
    assert_eq!(table, want, "{what}");
}

#[tokio::test]
async fn scale_get_meta_forms_convert_scale() {
    let server = Server::start();
    let object = create(&server, "s1", 2).await;
    let scale = format!("{COLLECTION}/s1/scale");
    let table = json_of(request(&server, Method::GET, &scale, TABLE_V1)).await;
    assert_scale_table(table, &object, json!(2), "GET as Table");

    let accept = "application/json;as=PartialObjectMetadata;v=v1beta1;g=meta.k8s.io";
    let partial = json_of(request(&server, Method::GET, &scale, accept)).await;
    let want = json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1beta1",
                      "metadata": scale_meta(&object)});
    assert_eq!(partial, want, "GET as PartialObjectMetadata");

    let accept = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io";
    let want = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "you requested PartialObjectMetadataList, but the requested object is not a list (*v1.Scale)",
        "reason": "NotAcceptable", "code": 406,
    });
    let req = request(&server, Method::GET, &scale, accept);
    expect_status(req, 406, &want, "GET as PartialObjectMetadataList").await;
}

#[tokio::test]
async fn scale_write_meta_forms_convert_after_write() {
    let server = Server::start();
    create(&server, "s2", 2).await;
    let scale = format!("{COLLECTION}/s2/scale");
    let patch = |accept: &str, replicas: i64| {
        request(&server, Method::PATCH, &scale, accept)
            .header("content-type", "application/merge-patch+json")
            .body(json!({"spec": {"replicas": replicas}}).to_string())
    };
    let table = json_of(patch(TABLE_V1, 3)).await;
    let (_, object) = get(&server, &format!("{COLLECTION}/s2")).await;
    assert_scale_table(table, &object, json!(3), "PATCH as Table");

    // kube converts the written Scale: a conversion that does not fit fails after the write.
    let accept = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io";
    let resp = patch(accept, 4).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 406);
    let (_, object) = get(&server, &format!("{COLLECTION}/s2")).await;
    assert_eq!(object["spec"]["replicas"], json!(4), "not written");

    let resp = patch("application/yaml", 5).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let content_type = resp.headers()["content-type"].to_str().unwrap().to_owned();
    assert_eq!(content_type, "application/yaml");
    let text = resp.text().await.unwrap();
    assert!(text.contains("kind: Scale"), "{text}");
}
