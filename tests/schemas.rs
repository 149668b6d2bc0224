//! Structural schemas end to end, one test per seed section: the structural check at
//! start-up, pruning, controlling pruning, IntOrString, RawExtension, validation,
//! ratcheting, defaulting and nullable — plus `fieldValidation` Ignore/Warn/Strict.
//! Expected texts are kube's (apiextensions-apiserver, kube-openapi, k8s.io/apiserver).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::path::{Path, PathBuf};

use common::{Server, json_of, resource_version, start_with_definitions, write_temp};
use serde_json::{Value, json};

#[path = "schemas/duplicates.rs"]
mod duplicates;

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const SAMPLES: &str = "/apis/schemas.example.com/v1";

/// Start-up on definitions that must stop it; data and certificates in a temp dir.
fn start_with_definitions_in_temp(crds: &Path) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    start_with_definitions(crds, dir.path())
}

fn fixture(name: &str) -> PathBuf {
    common::repo_root()
        .join("tests/fixtures/schemas")
        .join(name)
}

/// A dev server serving only the CRDs of one fixture file, copied so tests may rewrite it.
fn serve(crds: &str) -> (Server, PathBuf) {
    let dir = tempfile::tempdir().unwrap().keep();
    let file = dir.join("crds.yaml");
    std::fs::copy(fixture(crds), &file).unwrap();
    let server = Server::start_with(&["--crd-dir", file.to_str().unwrap()]);
    (server, file)
}

async fn send(req: reqwest::RequestBuilder) -> (u16, Vec<String>, Value) {
    let resp = req.send().await.expect("request");
    let code = resp.status().as_u16();
    let warnings = resp
        .headers()
        .get_all("warning")
        .iter()
        .map(|w| w.to_str().unwrap().to_string())
        .collect();
    (code, warnings, resp.json().await.unwrap_or(Value::Null))
}

fn my_crontab(spec: Value) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
           "metadata": {"name": "my-new-cron-object"}, "spec": spec})
}

fn causes(status: &Value) -> Vec<(String, String, String)> {
    status["details"]["causes"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|c| {
            let text = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (text("reason"), text("field"), text("message"))
        })
        .collect()
}

#[test]
fn structural_schema_seed_example3_stops_startup_listing_every_violation() {
    let out = start_with_definitions_in_temp(&fixture("non-structural.yaml"));
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // One version: kube checks the schema hoisted to spec.validation.
    let at = "spec.validation.openAPIV3Schema";
    for expected in [
        // the type at the root is missing (rule 1)
        format!("{at}.type: Required value: must not be empty at the root"),
        // the type of foo is missing (rule 1)
        format!(
            "{at}.properties[foo].type: Required value: must not be empty for specified object fields"
        ),
        // bar inside of anyOf is not specified outside (rule 2)
        format!(
            "{at}.properties[bar]: Required value: because it is defined in {at}.anyOf[0].properties[bar]"
        ),
        // bar's type is within anyOf (rule 3)
        format!("{at}.anyOf[0].properties[bar].type: Forbidden: must be empty to be structural"),
        // the description is set within anyOf (rule 3)
        format!("{at}.anyOf[0].description: Forbidden: must be empty to be structural"),
        // metadata.finalizers might not be restricted (rule 4)
        format!(
            "{at}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"
        ),
    ] {
        assert!(
            stderr.contains(&expected),
            "missing {expected:?} in:\n{stderr}"
        );
    }
}

#[tokio::test]
async fn structural_schema_seed_counterpart_loads_and_validates_any_of() {
    let (server, _) = serve("structural.yaml");
    let c = server.client();
    let url = server.url(&format!("{SAMPLES}/namespaces/default/foobars"));
    let foobar = |name: &str, bar: i64| {
        json!({"apiVersion": "schemas.example.com/v1", "kind": "FooBar",
               "metadata": {"name": name}, "foo": "xabcx", "bar": bar})
    };
    let (code, _, body) = send(c.post(&url).json(&foobar("abc", 42))).await;
    assert_eq!(code, 201, "{body}");
    let (code, _, body) = send(c.post(&url).json(&foobar("bcd", 41))).await;
    assert_eq!(code, 422, "{body}");
    // The reference apiextensions-apiserver answers exactly this (kube-openapi files the
    // anyOf summary under the nil root path).
    assert_eq!(
        causes(&body),
        vec![
            (
                "FieldValueInvalid".into(),
                "<nil>".into(),
                "Invalid value: \"\": \"\" must validate at least one schema (anyOf)".into()
            ),
            (
                "FieldValueInvalid".into(),
                "bar".into(),
                "Invalid value: 41: bar in body should be greater than or equal to 42".into()
            ),
            (
                "FieldValueInvalid".into(),
                "metadata.name".into(),
                "Invalid value: \"bcd\": metadata.name in body should match '^a'".into()
            ),
        ],
        "{body}"
    );
}

#[tokio::test]
async fn field_pruning_seed_crontab_drops_unknown_field_with_kubectl() {
    let (server, _) = serve("validation-crontab.yaml");
    let file = write_temp(
        &server,
        "my-crontab.yaml",
        "apiVersion: \"stable.example.com/v1\"\nkind: CronTab\nmetadata:\n  name: my-new-cron-object\nspec:\n  cronSpec: \"* * * * */5\"\n  image: my-awesome-cron-image\n  someRandomField: 42\n",
    );
    let out = server.kubectl_ok(&[
        "create",
        "--validate=false",
        "-f",
        file.to_str().unwrap(),
        "-o",
        "yaml",
    ]);
    assert!(out.contains("image: my-awesome-cron-image"), "{out}");
    assert!(!out.contains("someRandomField"), "pruned on create: {out}");
    let stored = json_of(
        server
            .client()
            .get(server.url(&format!("{CT}/my-new-cron-object"))),
    )
    .await;
    assert_eq!(
        stored["spec"],
        json!({"cronSpec": "* * * * */5", "image": "my-awesome-cron-image"})
    );
    // kubectl validates strictly by default: the server refuses the unknown field.
    server.kubectl_ok(&["delete", "ct", "my-new-cron-object"]);
    let out = server.kubectl(&["create", "-f", file.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("CronTab in version \"v1\" cannot be handled as a CronTab: strict decoding error: unknown field \"spec.someRandomField\""),
        "{stderr}"
    );
}

#[tokio::test]
async fn field_validation_directives_ignore_warn_and_strict_as_kube() {
    let (server, _) = serve("validation-crontab.yaml");
    let c = server.client();
    let body = my_crontab(json!({"image": "x", "someRandomField": 42, "other": {"a": 1}}));
    let (code, _, status) = send(
        c.post(server.url(&format!("{CT}?fieldValidation=Strict")))
            .json(&body),
    )
    .await;
    assert_eq!(code, 400, "{status}");
    assert_eq!(status["reason"], "BadRequest");
    assert_eq!(
        status["message"],
        "CronTab in version \"v1\" cannot be handled as a CronTab: strict decoding error: unknown field \"spec.other\", unknown field \"spec.someRandomField\""
    );
    let (code, warnings, created) = send(c.post(server.url(CT)).json(&body)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        warnings,
        vec![
            "299 - \"unknown field \\\"spec.other\\\"\"",
            "299 - \"unknown field \\\"spec.someRandomField\\\"\""
        ]
    );
    assert_eq!(created["spec"], json!({"image": "x"}));
    let mut ignored = body.clone();
    ignored["metadata"]["name"] = json!("ignored");
    let (code, warnings, _) = send(
        c.post(server.url(&format!("{CT}?fieldValidation=Ignore")))
            .json(&ignored),
    )
    .await;
    assert_eq!((code, warnings.len()), (201, 0));
    // A merge patch adding an unknown field under Strict: kube's 422 on the patched object.
    let (code, _, status) = send(
        c.patch(server.url(&format!("{CT}/ignored?fieldValidation=Strict")))
            .header("content-type", "application/merge-patch+json")
            .body(r#"{"spec":{"bogus":true}}"#),
    )
    .await;
    assert_eq!(code, 422, "{status}");
    let (reason, field, message) = causes(&status).remove(0);
    assert_eq!(
        (reason.as_str(), field.as_str()),
        ("FieldValueInvalid", "patch")
    );
    assert!(
        message.ends_with(": strict decoding error: unknown field \"spec.bogus\""),
        "{message}"
    );
}

#[tokio::test]
async fn controlling_pruning_seed_prunes_only_specified_subtree() {
    let (server, _) = serve("samples.yaml");
    let c = server.client();
    let object = json!({"apiVersion": "schemas.example.com/v1", "kind": "Preserved",
        "metadata": {"name": "p"},
        "json": {"spec": {"foo": "abc", "bar": "def", "something": "x"},
                 "status": {"something": "x"}}});
    let (code, _, created) = send(
        c.post(server.url(&format!("{SAMPLES}/preserveds")))
            .json(&object),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["json"],
        json!({"spec": {"foo": "abc", "bar": "def"}, "status": {"something": "x"}})
    );
    // Examples 1 and 2: any JSON value is kept; with `type: object` only objects are.
    let kept = json!({"apiVersion": "schemas.example.com/v1", "kind": "Preserved",
        "metadata": {"name": "kept"},
        "anything": [1, {"a": {"b": null}}, "x"], "objects": {"x": {"y": [1, 2]}}});
    let (code, _, created) = send(
        c.post(server.url(&format!("{SAMPLES}/preserveds")))
            .json(&kept),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        (&created["anything"], &created["objects"]),
        (&kept["anything"], &kept["objects"])
    );
    let not_object = json!({"apiVersion": "schemas.example.com/v1", "kind": "Preserved",
        "metadata": {"name": "scalar"}, "objects": "str"});
    let (code, _, status) = send(
        c.post(server.url(&format!("{SAMPLES}/preserveds")))
            .json(&not_object),
    )
    .await;
    assert_eq!(code, 422, "{status}");
    assert_eq!(
        causes(&status),
        vec![(
            "FieldValueTypeInvalid".into(),
            "objects".into(),
            "Invalid value: \"string\": objects in body must be of type object: \"string\"".into()
        )]
    );
}

#[tokio::test]
async fn int_or_string_seed_patterns_accept_integers_and_strings() {
    let (server, _) = serve("samples.yaml");
    let c = server.client();
    let url = server.url(&format!("{SAMPLES}/ports"));
    let port = |name: &str, v: Value| {
        json!({"apiVersion": "schemas.example.com/v1", "kind": "Port",
               "metadata": {"name": name}, "foo": v, "bar": v, "baz": v})
    };
    for (name, value) in [("int", json!(42)), ("string", json!("42%"))] {
        let (code, _, body) = send(c.post(&url).json(&port(name, value.clone()))).await;
        assert_eq!(code, 201, "{body}");
        assert_eq!(
            (&body["foo"], &body["bar"], &body["baz"]),
            (&value, &value, &value)
        );
    }
    let (code, _, body) = send(c.post(&url).json(&port("bool", json!(true)))).await;
    assert_eq!(code, 422, "{body}");
    let fields: Vec<String> = causes(&body).into_iter().map(|c| c.1).collect();
    for f in ["foo", "bar", "baz"] {
        assert!(fields.contains(&f.to_string()), "{f} rejected: {body}");
    }
}

#[tokio::test]
async fn raw_extension_seed_keeps_embedded_object_and_checks_type_meta() {
    let (server, _) = serve("samples.yaml");
    let c = server.client();
    let url = server.url(&format!("{SAMPLES}/raws"));
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "inner", "labels": {"a": "b"}},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    let raw = |name: &str, foo: Value| {
        json!({"apiVersion": "schemas.example.com/v1", "kind": "Raw",
               "metadata": {"name": name}, "foo": foo})
    };
    let (code, _, body) = send(c.post(&url).json(&raw("ok", pod.clone()))).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(body["foo"], pod);
    let (code, _, body) = send(c.post(&url).json(&raw("bad", json!({"spec": {}})))).await;
    assert_eq!(code, 422, "{body}");
    let mut found = causes(&body);
    found.sort();
    assert_eq!(
        found,
        vec![
            (
                "FieldValueRequired".into(),
                "foo.apiVersion".into(),
                "Required value".into()
            ),
            (
                "FieldValueRequired".into(),
                "foo.kind".into(),
                "Required value".into()
            ),
        ]
    );
}

#[tokio::test]
async fn validation_seed_invalid_crontab_rejected_with_kube_causes() {
    let (server, _) = serve("validation-crontab.yaml");
    let c = server.client();
    let invalid = my_crontab(
        json!({"cronSpec": "* * * *", "image": "my-awesome-cron-image", "replicas": 15}),
    );
    let (code, _, status) = send(c.post(server.url(CT)).json(&invalid)).await;
    assert_eq!(code, 422, "{status}");
    let pattern = r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$";
    let cron =
        format!("Invalid value: \"* * * *\": spec.cronSpec in body should match '{pattern}'");
    let replicas = "Invalid value: 15: spec.replicas in body should be less than or equal to 10";
    assert_eq!(
        status["message"],
        format!(
            "CronTab.stable.example.com \"my-new-cron-object\" is invalid: [spec.cronSpec: {cron}, spec.replicas: {replicas}]"
        )
    );
    assert_eq!(
        causes(&status),
        vec![
            (
                "FieldValueInvalid".into(),
                "spec.cronSpec".into(),
                cron.clone()
            ),
            (
                "FieldValueInvalid".into(),
                "spec.replicas".into(),
                replicas.to_string()
            ),
        ]
    );
    // kubectl apply prints kube's aggregate; the valid object is created.
    let file = write_temp(
        &server,
        "bad.yaml",
        &serde_json::to_string(&invalid).unwrap(),
    );
    let out = server.kubectl(&["apply", "-f", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("The CronTab \"my-new-cron-object\" is invalid"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("spec.replicas: {replicas}")),
        "{stderr}"
    );
    let valid = my_crontab(
        json!({"cronSpec": "* * * * */5", "image": "my-awesome-cron-image", "replicas": 5}),
    );
    let file = write_temp(
        &server,
        "good.yaml",
        &serde_json::to_string(&valid).unwrap(),
    );
    let out = server.kubectl_ok(&["apply", "-f", file.to_str().unwrap()]);
    assert!(
        out.contains("crontab.stable.example.com/my-new-cron-object created"),
        "{out}"
    );
}

#[tokio::test]
async fn validation_ratcheting_unchanged_invalid_value_survives_stricter_schema() {
    // Stored under the seed's CRD (replicas ≤ 10), then served by a CRD whose maximum
    // is 5 (same data dir): unchanged invalid values ratchet, changed ones fail.
    let (server, file) = serve("validation-crontab.yaml");
    let c = server.client();
    let (code, _, _) = send(
        c.post(server.url(CT))
            .json(&my_crontab(json!({"image": "a", "replicas": 9}))),
    )
    .await;
    assert_eq!(code, 201);
    let stricter = std::fs::read_to_string(&file)
        .unwrap()
        .replace("maximum: 10", "maximum: 5");
    std::fs::write(&file, stricter).unwrap();
    let server = server.restart();
    let c = server.client();
    let url = server.url(&format!("{CT}/my-new-cron-object"));
    let merge = |patch: Value| {
        c.patch(&url)
            .header("content-type", "application/merge-patch+json")
            .body(patch.to_string())
    };
    let (code, _, body) = send(merge(json!({"spec": {"image": "b"}}))).await;
    assert_eq!(code, 200, "unchanged replicas ratchets: {body}");
    let (code, _, body) = send(merge(json!({"spec": {"replicas": 8}}))).await;
    assert_eq!(code, 422, "a changed invalid value fails: {body}");
    assert_eq!(
        causes(&body),
        vec![(
            "FieldValueInvalid".into(),
            "spec.replicas".into(),
            "Invalid value: 8: spec.replicas in body should be less than or equal to 5".into()
        )]
    );
    let (code, _, _) = send(merge(json!({"spec": {"replicas": 5}}))).await;
    assert_eq!(code, 200);
}

#[tokio::test]
async fn defaulting_seed_fills_cron_spec_and_replicas_on_write_and_read() {
    // An object stored before the defaults existed gets them when read, without a write.
    let (server, file) = serve("validation-crontab.yaml");
    let c = server.client();
    let (code, _, old) = send(c.post(server.url(CT)).json(&json!({"apiVersion": "stable.example.com/v1",
        "kind": "CronTab", "metadata": {"name": "old"}, "spec": {"image": "my-awesome-cron-image"}}))).await;
    assert_eq!(code, 201);
    assert_eq!(old["spec"], json!({"image": "my-awesome-cron-image"}));
    std::fs::copy(fixture("defaulting-crontab.yaml"), &file).unwrap();
    let server = server.restart();
    let c = server.client();
    let defaulted =
        json!({"cronSpec": "5 0 * * *", "image": "my-awesome-cron-image", "replicas": 1});
    let read = json_of(c.get(server.url(&format!("{CT}/old")))).await;
    assert_eq!(read["spec"], defaulted);
    assert_eq!(
        resource_version(&read),
        resource_version(&old),
        "not written back"
    );
    let (code, _, created) = send(
        c.post(server.url(CT))
            .json(&my_crontab(json!({"image": "my-awesome-cron-image"}))),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["spec"], defaulted);
    let list = json_of(c.get(server.url(CT))).await;
    for item in list["items"].as_array().unwrap() {
        assert_eq!(item["spec"], defaulted, "lists are defaulted too");
    }
    // "An update request via the API is required to persist those defaults": writing
    // back what was read stores them (a new resourceVersion, the same generation).
    let (code, _, updated) = send(c.put(server.url(&format!("{CT}/old"))).json(&read)).await;
    assert_eq!(code, 200, "{updated}");
    assert_ne!(
        resource_version(&updated),
        resource_version(&read),
        "persisted"
    );
    assert_eq!(
        updated["metadata"]["generation"],
        read["metadata"]["generation"]
    );
    let (code, _, again) = send(c.put(server.url(&format!("{CT}/old"))).json(&updated)).await;
    assert_eq!(code, 200);
    assert_eq!(
        resource_version(&again),
        resource_version(&updated),
        "a no-op is not written"
    );
}

#[test]
fn defaulting_unpruned_or_invalid_defaults_stop_startup() {
    let out = start_with_definitions_in_temp(&fixture("bad-defaults.yaml"));
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let at = "spec.validation.openAPIV3Schema.properties[spec]";
    for expected in [
        format!(
            "{at}.default: Invalid value: {{\"bogus\":1,\"replicas\":\"x\"}}: must not have unknown fields"
        ),
        format!(
            "{at}.properties[num].default: Invalid value: 7:  in body should be less than or equal to 5"
        ),
        format!(
            "{at}.properties[replicas].default: Invalid value: \"string\":  in body must be of type integer: \"string\""
        ),
    ] {
        assert!(
            stderr.contains(&expected),
            "missing {expected:?} in:\n{stderr}"
        );
    }
}

#[tokio::test]
async fn validation_scale_subresource_writes_are_checked_by_the_schema() {
    let (server, _) = serve("samples.yaml");
    let c = server.client();
    let url = server.url(&format!("{SAMPLES}/scaleds"));
    let object = json!({"apiVersion": "schemas.example.com/v1", "kind": "Scaled",
        "metadata": {"name": "s"}, "spec": {"replicas": 1}});
    let (code, _, _) = send(c.post(&url).json(&object)).await;
    assert_eq!(code, 201);
    let scale = |replicas: i64| {
        c.patch(format!("{url}/s/scale"))
            .header("content-type", "application/merge-patch+json")
            .body(json!({"spec": {"replicas": replicas}}).to_string())
    };
    let (code, _, body) = send(scale(4)).await;
    assert_eq!(
        (code, &body["spec"]["replicas"]),
        (200, &json!(4)),
        "{body}"
    );
    let (code, _, status) = send(scale(6)).await;
    assert_eq!(code, 422, "{status}");
    assert_eq!(
        status["message"],
        "Scaled.schemas.example.com \"s\" is invalid: spec.replicas: Invalid value: 6: spec.replicas in body should be less than or equal to 5"
    );
}

#[tokio::test]
async fn defaulting_and_nullable_seed_prunes_defaults_and_keeps_nulls() {
    let (server, _) = serve("samples.yaml");
    let c = server.client();
    let object = json!({"apiVersion": "schemas.example.com/v1", "kind": "Nullable",
        "metadata": {"name": "n"}, "spec": {"foo": null, "bar": null, "baz": null}});
    let (code, _, created) = send(
        c.post(server.url(&format!("{SAMPLES}/nullables")))
            .json(&object),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["spec"], json!({"foo": "default", "bar": null}));
}
