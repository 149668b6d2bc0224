//! Object semantics over HTTPS: metadata on create, generation and the status
//! subresource, finalizers, preconditions, dryRun, YAML bodies, versions and scope.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use common::Server;
use serde_json::{Value, json};

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.expect("request");
    let code = resp.status().as_u16();
    (code, resp.json::<Value>().await.unwrap_or(Value::Null))
}

fn crontab(name: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
           "metadata": {"name": name}, "spec": {"cronSpec": "* * * * */5", "replicas": 1}})
}

fn merge(c: &reqwest::Client, url: String, patch: Value) -> reqwest::RequestBuilder {
    c.patch(url)
        .header("content-type", "application/merge-patch+json")
        .body(patch.to_string())
}

#[tokio::test]
async fn create_generate_name_fills_kube_metadata() {
    let server = Server::start();
    let c = server.client();
    let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                      "metadata": {"generateName": "job-"}, "spec": {}, "status": {"replicas": 9}});
    let (code, o) = send(c.post(server.url(CT)).json(&body)).await;
    assert_eq!(code, 201, "{o}");
    let name = o["metadata"]["name"].as_str().unwrap();
    assert!(name.starts_with("job-") && name.len() == 9, "{name}");
    assert_eq!(o["metadata"]["generation"], 1);
    assert_eq!(o["metadata"]["namespace"], "default");
    assert_eq!(o["metadata"]["uid"].as_str().unwrap().len(), 36);
    assert!(
        o["metadata"]["creationTimestamp"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    assert!(
        o.get("status").is_none(),
        "status is not set on create when /status exists: {o}"
    );
    let (code, body) =
        send(c.post(server.url(CT)).json(
            &json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {}}),
        ))
        .await;
    assert_eq!(code, 422);
    assert_eq!(
        body["message"],
        "CronTab.stable.example.com \"\" is invalid: metadata.name: Required value: name or generateName is required"
    );
    let (code, body) = send(c.post(server.url(CT)).json(&crontab("Bad_Name"))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(body["details"]["causes"][0]["field"], "metadata.name");
}

#[tokio::test]
async fn status_subresource_splits_spec_and_status_writes() {
    let server = Server::start();
    let c = server.client();
    send(c.post(server.url(CT)).json(&crontab("a"))).await;
    let url = server.url(&format!("{CT}/a"));
    // Main resource: status ignored, spec change bumps generation.
    let (_, o) = send(merge(
        &c,
        url.clone(),
        json!({"spec": {"replicas": 2}, "status": {"replicas": 5}}),
    ))
    .await;
    assert_eq!(o["metadata"]["generation"], 2);
    assert!(o.get("status").is_none(), "{o}");
    // Labels only: generation stays.
    let (_, o) = send(merge(
        &c,
        url.clone(),
        json!({"metadata": {"labels": {"x": "y"}}}),
    ))
    .await;
    assert_eq!(o["metadata"]["generation"], 2);
    // /status: only status changes.
    let (code, o) = send(merge(
        &c,
        format!("{url}/status"),
        json!({"spec": {"replicas": 7}, "status": {"replicas": 5}}),
    ))
    .await;
    assert_eq!(code, 200, "{o}");
    assert_eq!(o["status"]["replicas"], 5);
    assert_eq!(o["spec"]["replicas"], 2);
    assert_eq!(o["metadata"]["generation"], 2);
    let (_, got) = send(c.get(format!("{url}/status"))).await;
    assert_eq!(got["status"]["replicas"], 5);
    // Scale reads both paths.
    let (_, scale) = send(c.get(format!("{url}/scale"))).await;
    assert_eq!(scale["kind"], "Scale");
    assert_eq!(scale["spec"]["replicas"], 2);
    assert_eq!(scale["status"]["replicas"], 5);
    let (code, body) = send(merge(
        &c,
        format!("{url}/scale"),
        json!({"spec": {"replicas": -1}}),
    ))
    .await;
    assert_eq!(code, 422, "{body}");
}

#[tokio::test]
async fn finalizers_mark_then_last_removal_deletes() {
    let server = Server::start();
    let c = server.client();
    let mut o = crontab("f");
    o["metadata"]["finalizers"] = json!(["example.com/hold"]);
    send(c.post(server.url(CT)).json(&o)).await;
    let url = server.url(&format!("{CT}/f"));
    let (code, marked) = send(c.delete(url.clone())).await;
    assert_eq!(code, 200);
    assert!(
        marked["metadata"]["deletionTimestamp"].is_string(),
        "{marked}"
    );
    assert_eq!(marked["metadata"]["generation"], 2);
    let (code, _) = send(c.get(url.clone())).await;
    assert_eq!(code, 200, "still present while finalizers remain");
    let (code, body) = send(merge(
        &c,
        url.clone(),
        json!({"metadata": {"finalizers": ["example.com/hold", "new"]}}),
    ))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["details"]["causes"][0]["message"],
        "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"new\"}"
    );
    let (code, _) = send(merge(
        &c,
        url.clone(),
        json!({"metadata": {"finalizers": null}}),
    ))
    .await;
    assert_eq!(code, 200);
    let (code, _) = send(c.get(url)).await;
    assert_eq!(code, 404, "removing the last finalizer deletes");
}

#[tokio::test]
async fn delete_preconditions_and_success_status() {
    let server = Server::start();
    let c = server.client();
    let (_, created) = send(c.post(server.url(CT)).json(&crontab("p"))).await;
    let url = server.url(&format!("{CT}/p"));
    let (code, body) = send(
        c.delete(url.clone())
            .json(&json!({"preconditions": {"uid": "other"}})),
    )
    .await;
    assert_eq!(code, 409, "{body}");
    assert_eq!(body["reason"], "Conflict");
    let uid = created["metadata"]["uid"].as_str().unwrap();
    assert_eq!(
        body["message"],
        format!(
            "Operation cannot be fulfilled on CronTab.stable.example.com \"p\": the UID in the precondition (other) does not match the UID in record ({uid}). The object might have been deleted and then recreated"
        )
    );
    let (code, body) = send(
        c.delete(url.clone())
            .json(&json!({"preconditions": {"uid": uid, "resourceVersion": "1"}})),
    )
    .await;
    assert_eq!(code, 409, "{body}");
    let (code, body) = send(
        c.delete(url.clone())
            .json(&json!({"preconditions": {"uid": uid}})),
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(body["status"], "Success");
    assert_eq!(body["details"]["uid"], uid);
}

#[tokio::test]
async fn dry_run_all_stores_nothing() {
    let server = Server::start();
    let c = server.client();
    let (code, o) = send(
        c.post(server.url(&format!("{CT}?dryRun=All")))
            .json(&crontab("d")),
    )
    .await;
    assert_eq!(code, 201);
    assert_eq!(o["metadata"]["name"], "d");
    let (code, _) = send(c.get(server.url(&format!("{CT}/d")))).await;
    assert_eq!(code, 404);
    send(c.post(server.url(CT)).json(&crontab("d"))).await;
    let (_, o) = send(merge(
        &c,
        server.url(&format!("{CT}/d?dryRun=All")),
        json!({"spec": {"replicas": 9}}),
    ))
    .await;
    assert_eq!(o["spec"]["replicas"], 9);
    let (_, o) = send(c.get(server.url(&format!("{CT}/d")))).await;
    assert_eq!(o["spec"]["replicas"], 1);
    let (code, _) = send(c.delete(server.url(&format!("{CT}/d?dryRun=All")))).await;
    assert_eq!(code, 200);
    let (code, _) = send(c.get(server.url(&format!("{CT}/d")))).await;
    assert_eq!(code, 200);
}

#[tokio::test]
async fn yaml_body_and_json_patch_apply() {
    let server = Server::start();
    let c = server.client();
    let yaml = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: yml\nspec:\n  image: a\n";
    let (code, o) = send(
        c.post(server.url(CT))
            .header("content-type", "application/yaml")
            .body(yaml),
    )
    .await;
    assert_eq!(code, 201, "{o}");
    let url = server.url(&format!("{CT}/yml"));
    let patch = json!([{"op": "test", "path": "/spec/image", "value": "zzz"}]);
    let (code, body) = send(
        c.patch(url.clone())
            .header("content-type", "application/json-patch+json")
            .body(patch.to_string()),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "the server rejected our request due to an error in our request"
    );
    let patch = json!([{"op": "replace", "path": "/spec/image", "value": "b"}]);
    let (code, o) = send(
        c.patch(url)
            .header("content-type", "application/json-patch+json")
            .body(patch.to_string()),
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(o["spec"]["image"], "b");
}

#[tokio::test]
async fn deprecated_version_warns_and_versions_share_storage() {
    let server = Server::start();
    let c = server.client();
    let w = json!({"apiVersion": "example.org/v1beta1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}});
    let resp = c
        .post(server.url("/apis/example.org/v1beta1/widgets"))
        .json(&w)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 201);
    let warning = resp
        .headers()
        .get("warning")
        .expect("Warning header")
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(
        warning,
        "299 - \"example.org/v1beta1 Widget is deprecated; use example.org/v1 Widget\""
    );
    let (code, o) = send(c.get(server.url("/apis/example.org/v1/widgets/w"))).await;
    assert_eq!(code, 200);
    assert_eq!(o["apiVersion"], "example.org/v1");
    assert!(
        o["metadata"].get("namespace").is_none(),
        "cluster-scoped: {o}"
    );
    let (code, _) =
        send(c.get(server.url("/apis/example.org/v1/namespaces/default/widgets/w"))).await;
    assert_eq!(
        code, 404,
        "cluster-scoped resources have no namespaced path"
    );
}

#[tokio::test]
async fn writes_guarded_as_kube_guards_custom_resources() {
    let server = Server::start();
    let c = server.client();
    let (_, created) = send(c.post(server.url(CT)).json(&crontab("g"))).await;
    let url = server.url(&format!("{CT}/g"));
    // PUT without a resourceVersion is not an unconditional update for custom resources.
    let (code, body) = send(c.put(url.clone()).json(&crontab("g"))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "crontabs.stable.example.com \"g\" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update"
    );
    // A patch cannot rename the object.
    let (code, body) = send(merge(
        &c,
        url.clone(),
        json!({"metadata": {"name": "other"}}),
    ))
    .await;
    assert_eq!(code, 400, "{body}");
    assert_eq!(
        body["message"],
        "the name of the object (other) does not match the name on the URL (g)"
    );
    // A patch that changes nothing writes nothing.
    let (code, same) = send(merge(&c, url.clone(), json!({"spec": {"replicas": 1}}))).await;
    assert_eq!(code, 200);
    assert_eq!(
        same["metadata"]["resourceVersion"],
        created["metadata"]["resourceVersion"]
    );
    // A dry-run create of a taken name is still a conflict.
    let (code, _) = send(
        c.post(server.url(&format!("{CT}?dryRun=All")))
            .json(&crontab("g")),
    )
    .await;
    assert_eq!(code, 409);
}

#[tokio::test]
async fn delete_orphan_propagation_leaves_gc_finalizer() {
    let server = Server::start();
    let c = server.client();
    send(c.post(server.url(CT)).json(&crontab("o"))).await;
    let url = server.url(&format!("{CT}/o"));
    let (code, body) = send(
        c.delete(url.clone())
            .json(&json!({"propagationPolicy": "Sideways"})),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let (code, marked) = send(c.delete(format!("{url}?propagationPolicy=Orphan"))).await;
    assert_eq!(code, 200);
    assert_eq!(marked["metadata"]["finalizers"], json!(["orphan"]));
    assert!(marked["metadata"]["deletionTimestamp"].is_string());
}

#[tokio::test]
async fn bad_metadata_rejected_and_nothing_stored() {
    let server = Server::start();
    let c = server.client();
    let mut bad_label = crontab("l");
    bad_label["metadata"]["labels"] = json!({"bad key": "v"});
    let (code, body) = send(c.post(server.url(CT)).json(&bad_label)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(body["details"]["causes"][0]["field"], "metadata.labels");
    let mut typed = crontab("l");
    typed["metadata"]["name"] = json!(true);
    let (code, body) = send(c.post(server.url(CT)).json(&typed)).await;
    assert_eq!(code, 400, "{body}");
    // kube decodes metadata into ObjectMeta with Go's json.
    assert_eq!(
        body["message"],
        "CronTab in version \"v1\" cannot be handled as a CronTab: json: cannot unmarshal bool into Go struct field ObjectMeta.name of type string"
    );
    let (_, list) = send(c.get(server.url(CT))).await;
    assert_eq!(list["items"], json!([]));
}

#[tokio::test]
async fn write_options_invalid_values_are_kube_422s() {
    let server = Server::start();
    let c = server.client();
    let (code, body) = send(
        c.post(server.url(&format!("{CT}?dryRun=Foo")))
            .json(&crontab("o")),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"Foo\"]: supported values: \"All\""
    );
    assert!(
        body["details"].get("name").is_none(),
        "no empty name in details: {body}"
    );
    let (code, body) = send(
        c.post(server.url(&format!("{CT}?fieldValidation=Bogus")))
            .json(&crontab("o")),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"Bogus\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""
    );
    let (code, _) = send(c.get(server.url(&format!("{CT}/o")))).await;
    assert_eq!(code, 404, "nothing was created");
}

/// Without NamespaceLifecycle (dev mode has no cluster), a namespace path segment that
/// is no DNS-1123 label is still refused on create, by kube's ObjectMeta validation, and
/// nothing is stored: a cluster-wide list shows no such namespace.
#[tokio::test]
async fn create_in_namespace_not_a_label_is_422_and_nothing_stored() {
    let server = Server::start();
    let c = server.client();
    let label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    let cases = [
        ("Bad_NS", "\"Bad_NS\"", label.to_string()),
        ("a%00b", "\"a\\x00b\"", label.to_string()),
        ("x%20y", "\"x y\"", label.to_string()),
        ("a.b", "\"a.b\"", "must not contain dots".to_string()),
    ];
    for (segment, printed, detail) in cases {
        let url = server.url(&format!(
            "/apis/stable.example.com/v1/namespaces/{segment}/crontabs"
        ));
        let (code, status) = send(c.post(url).json(&crontab("x"))).await;
        assert_eq!(code, 422, "{segment}: {status}");
        assert_eq!(status["reason"], "Invalid");
        assert_eq!(
            status["message"],
            format!(
                "CronTab.stable.example.com \"x\" is invalid: metadata.namespace: Invalid value: {printed}: {detail}"
            ),
            "{segment}"
        );
        assert_eq!(
            status["details"]["causes"][0]["field"],
            "metadata.namespace"
        );
    }
    let (code, all) = send(c.get(server.url("/apis/stable.example.com/v1/crontabs"))).await;
    assert_eq!(code, 200);
    assert_eq!(all["items"], json!([]), "nothing was stored: {all}");
}
