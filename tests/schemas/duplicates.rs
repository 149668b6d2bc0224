//! Duplicate fields of JSON bodies under `fieldValidation`: found by the request decode
//! itself, answered in kube's words, and the last of the duplicated values kept.

use serde_json::{Value, json};

use super::{CT, send, serve};

/// A CronTab body naming `spec.image` twice (no `json!`: it cannot repeat a key).
const DUPLICATED: &str = r#"{"apiVersion":"stable.example.com/v1","kind":"CronTab",
    "metadata":{"name":"dup"},"spec":{"image":"a","image":"b","bogus":1}}"#;

#[tokio::test]
async fn field_validation_duplicate_fields_strict_refused_warn_last_kept() {
    let (server, _) = serve("validation-crontab.yaml");
    let c = server.client();
    let post = |directive: &str| {
        c.post(server.url(&format!("{CT}?fieldValidation={directive}")))
            .header("content-type", "application/json")
            .body(DUPLICATED)
    };
    let (code, _, status) = send(post("Strict")).await;
    assert_eq!(code, 400, "{status}");
    assert_eq!(
        status["message"],
        "CronTab in version \"v1\" cannot be handled as a CronTab: strict decoding error: duplicate field \"spec.image\", unknown field \"spec.bogus\""
    );
    let (code, _, _) = send(c.get(server.url(&format!("{CT}/dup")))).await;
    assert_eq!(code, 404, "a refused create stored nothing");

    let (code, warnings, created) = send(post("Warn")).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        warnings,
        [
            r#"299 - "duplicate field \"spec.image\"""#,
            r#"299 - "unknown field \"spec.bogus\"""#
        ]
    );
    assert_eq!(created["spec"], json!({"image": "b"}));
    let (_, _, stored) = send(c.get(server.url(&format!("{CT}/dup")))).await;
    assert_eq!(stored["spec"], json!({"image": "b"}));

    let rv = created["metadata"]["resourceVersion"].as_str().unwrap();
    let replaced = DUPLICATED.replace(
        r#""name":"dup"}"#,
        &format!(r#""name":"dup","resourceVersion":"{rv}"}}"#),
    );
    let (code, warnings, status) = send(
        c.put(server.url(&format!("{CT}/dup?fieldValidation=Ignore")))
            .header("content-type", "application/json")
            .body(replaced.replace(r#""image":"b""#, r#""image":"c""#)),
    )
    .await;
    assert_eq!((code, warnings.len()), (200, 0), "{status}");
    assert_eq!(status["spec"], json!({"image": "c"}));
}

#[tokio::test]
async fn field_validation_duplicate_fields_in_patches_reported() {
    let (server, _) = serve("validation-crontab.yaml");
    let c = server.client();
    let object = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "p"}, "spec": {"image": "a"}});
    let (code, _, _) = send(c.post(server.url(CT)).json(&object)).await;
    assert_eq!(code, 201);
    let patch = |directive: &str, content_type: &str, body: &str| {
        c.patch(server.url(&format!("{CT}/p?fieldValidation={directive}")))
            .header("content-type", content_type)
            .body(body.to_string())
    };
    let merge = r#"{"spec":{"image":"x","image":"y"}}"#;
    let (code, _, status) = send(patch("Strict", "application/merge-patch+json", merge)).await;
    assert_eq!(code, 422, "{status}");
    let message = status["details"]["causes"][0]["message"].as_str().unwrap();
    assert!(
        message.ends_with(": strict decoding error: duplicate field \"spec.image\""),
        "{message}"
    );
    let (_, _, stored) = send(c.get(server.url(&format!("{CT}/p")))).await;
    assert_eq!(
        stored["spec"],
        json!({"image": "a"}),
        "a refused patch changed nothing"
    );

    let (code, warnings, patched) =
        send(patch("Warn", "application/merge-patch+json", merge)).await;
    assert_eq!(code, 200, "{patched}");
    assert_eq!(warnings, [r#"299 - "duplicate field \"spec.image\"""#]);
    assert_eq!(patched["spec"], json!({"image": "y"}));

    let ops = r#"[{"op":"replace","path":"/spec/image","value":"z","value":"w"}]"#;
    let (code, warnings, patched) = send(patch("Warn", "application/json-patch+json", ops)).await;
    assert_eq!(code, 200, "{patched}");
    assert_eq!(
        warnings,
        [r#"299 - "json patch duplicate field \"[0].value\"""#]
    );
    assert_eq!(patched["spec"]["image"], Value::from("w"));
}
