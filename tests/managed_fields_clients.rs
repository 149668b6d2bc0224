//! Server-side apply through real clients: the `kube` crate's `Api<DynamicObject>` with
//! `PatchParams::apply`, and real kubectl's client-side ↔ server-side apply migration
//! (client-go's csaupgrade and the `kubectl-last-applied` manager in kubectl). The
//! server's side of that migration over raw HTTP is tests/managed_fields_last_applied.rs.
//! Every expected answer here is the one the reference apiextensions-apiserver 0.36.4
//! gave to the same requests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/managed.rs"]
mod managed;

use common::Server;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams};
use kube::config::{Config, KubeConfigOptions, Kubeconfig};
use managed::{
    CRON, CSA, GV, LAST_APPLIED, config, csa_created, entries, last_applied_text, spec_fields,
    stored,
};
use serde_json::{Value, json};
use std::time::Duration;

/// The server's dev kubeconfig, once written (just after the address is announced).
async fn dev_kubeconfig(server: &Server) -> Kubeconfig {
    let path = server.kubeconfig();
    common::eventually(Duration::from_secs(10), "the dev kubeconfig", || {
        let read = Kubeconfig::read_from(&path).ok();
        async move { read.filter(|k| !k.clusters.is_empty() && !k.auth_infos.is_empty()) }
    })
    .await
}

/// CronTabs through a kube-rs client built from the server's dev kubeconfig.
async fn crontabs(server: &Server) -> Api<DynamicObject> {
    let kubeconfig = dev_kubeconfig(server).await;
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .expect("config");
    let client = kube::Client::try_from(config).expect("client");
    let gvk = GroupVersionKind::gvk("stable.example.com", "v1", "CronTab");
    Api::namespaced_with(
        client,
        "default",
        &ApiResource::from_gvk_with_plural(&gvk, "crontabs"),
    )
}

/// A kube-rs server-side apply of `body` by `manager` (`force`d or not).
async fn apply(
    api: &Api<DynamicObject>,
    manager: &str,
    force: bool,
    body: &Value,
) -> kube::Result<DynamicObject> {
    let params = PatchParams {
        force,
        ..PatchParams::apply(manager)
    };
    let name = body["metadata"]["name"].as_str().expect("name");
    api.patch(name, &params, &Patch::Apply(body)).await
}

/// An apply that must succeed.
async fn apply_ok(
    api: &Api<DynamicObject>,
    manager: &str,
    force: bool,
    body: &Value,
) -> DynamicObject {
    let result = apply(api, manager, force, body).await;
    result.unwrap_or_else(|e| panic!("apply by {manager} of {body}: {e}"))
}

/// [`entries`] of a kube-rs object, whose entries all carry this apiVersion and fieldsType.
fn owners(object: &DynamicObject) -> Value {
    let object = serde_json::to_value(object).expect("object JSON");
    for e in object["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let types = (e["apiVersion"].as_str(), e["fieldsType"].as_str());
        assert_eq!(types, (Some(GV), Some("FieldsV1")), "{e}");
    }
    entries(&object)
}

/// The timed Apply entry of `manager` owning `fields` of the spec.
fn applier(manager: &str, fields: &[&str]) -> Value {
    json!([manager, "Apply", true, spec_fields(fields)])
}

#[tokio::test]
async fn kube_api_apply_creates_updates_conflicts_forces_prunes_and_dry_runs() {
    let server = Server::start();
    let api = crontabs(&server).await;
    assert!(api.get_opt("k").await.expect("get").is_none());
    let spec = json!({"cronSpec": CRON, "image": "i", "replicas": 1});
    let created = apply_ok(&api, "alice", false, &config("k", spec.clone())).await;
    assert_eq!(created.metadata.generation, Some(1));
    let alice_all = applier("alice", &["cronSpec", "image", "replicas"]);
    assert_eq!(owners(&created), json!([alice_all]));
    let stored = api.get("k").await.expect("created object");
    assert_eq!(stored.metadata.uid, created.metadata.uid);

    let mut three = config("k", spec);
    three["spec"]["replicas"] = json!(3);
    let updated = apply_ok(&api, "alice", false, &three).await;
    assert_eq!(
        (
            updated.data["spec"]["replicas"].as_i64(),
            updated.metadata.generation
        ),
        (Some(3), Some(2))
    );
    assert_eq!(owners(&updated), json!([alice_all]));

    let bob = config("k", json!({"replicas": 5}));
    let Err(kube::Error::Api(status)) = apply(&api, "bob", false, &bob).await else {
        panic!("expected a 409 Conflict");
    };
    assert_eq!((status.code, status.reason.as_str()), (409, "Conflict"));
    let message = "Apply failed with 1 conflict: conflict with \"alice\": .spec.replicas";
    assert_eq!(status.message, message);
    let cause = &status.details.as_ref().expect("details").causes[0];
    let cause = (
        cause.reason.as_str(),
        cause.message.as_str(),
        cause.field.as_str(),
    );
    assert_eq!(
        cause,
        (
            "FieldManagerConflict",
            "conflict with \"alice\"",
            ".spec.replicas"
        )
    );
    assert_eq!(api.get("k").await.expect("get").data["spec"]["replicas"], 3);

    // Forcing moves ownership: alice's entry loses the field.
    let forced = apply_ok(&api, "bob", true, &bob).await;
    assert_eq!(forced.data["spec"]["replicas"], 5);
    let bob_replicas = applier("bob", &["replicas"]);
    let alice_rest = applier("alice", &["cronSpec", "image"]);
    assert_eq!(owners(&forced), json!([alice_rest, bob_replicas]));

    // Applying the same value co-owns without conflict; dropped fields go unless co-owned.
    apply_ok(
        &api,
        "bob",
        false,
        &config("k", json!({"replicas": 5, "cronSpec": CRON})),
    )
    .await;
    let dropped = apply_ok(&api, "alice", false, &config("k", Value::Null)).await;
    assert_eq!(
        dropped.data["spec"],
        json!({"cronSpec": CRON, "replicas": 5})
    );
    assert_eq!(
        owners(&dropped),
        json!([applier("bob", &["cronSpec", "replicas"])])
    );
    let last = apply_ok(&api, "bob", false, &bob).await;
    assert_eq!(last.data["spec"], json!({"replicas": 5}));
    assert_eq!(owners(&last), json!([bob_replicas]));

    // A dry run answers the merge and stores nothing, for an update as for a create.
    let dry = PatchParams::apply("carol").force().dry_run();
    let nine = |name: &str| Patch::Apply(config(name, json!({"replicas": 9})));
    let answer = api
        .patch("k", &dry, &nine("k"))
        .await
        .expect("dry-run update");
    assert_eq!(answer.data["spec"]["replicas"], 9);
    assert_eq!(owners(&answer), json!([applier("carol", &["replicas"])]));
    let after = api.get("k").await.expect("get");
    assert_eq!(after.data["spec"]["replicas"], 5);
    assert_eq!(
        after.metadata.resource_version,
        last.metadata.resource_version
    );
    assert_eq!(owners(&after), json!([bob_replicas]));
    let answer = api
        .patch("n", &dry, &nine("n"))
        .await
        .expect("dry-run create");
    assert_eq!(owners(&answer), json!([applier("carol", &["replicas"])]));
    assert!(api.get_opt("n").await.expect("get").is_none());
}

fn annotation_only() -> Value {
    json!({"f:metadata": {"f:annotations": {format!("f:{LAST_APPLIED}"): {}}}})
}

/// kubectl 1.33 (its User-Agent) sends, per `apply --server-side` of an object with a
/// last-applied annotation: the apply, a `kubectl-last-applied` apply of the annotation,
/// csaupgrade's JSON patch of managedFields, and the apply again.
#[tokio::test]
async fn kubectl_client_side_to_server_side_and_back_migrates_as_kube() {
    let server = Server::start();
    dev_kubeconfig(&server).await;
    let apply = |flags: &str, replicas: i64| {
        let text = format!(
            "apiVersion: {GV}\nkind: CronTab\nmetadata:\n  name: mig\nspec:\n  cronSpec: '{CRON}'\n  replicas: {replicas}\n"
        );
        let path = common::write_temp(&server, &format!("mig{replicas}.yaml"), &text);
        let mut args: Vec<&str> = flags.split_whitespace().collect();
        args.extend(["-f", path.to_str().expect("utf8 path")]);
        let out = server.kubectl(&args);
        let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let done = |what: &str| {
        (
            Some(0),
            format!("crontab.stable.example.com/mig {what}\n"),
            String::new(),
        )
    };
    assert_eq!(apply("apply", 1), done("created"));
    let csa_all = csa_created();
    assert_eq!(
        stored(&server, "mig").await,
        json!([1, last_applied_text("mig", 1, true), [csa_all]])
    );

    // Another manager gets no migration: client-side apply's fields conflict.
    let (code, _, stderr) = apply("apply --server-side --field-manager=ops", 2);
    assert_eq!(code, Some(1), "{stderr}");
    let conflict =
        format!("Apply failed with 1 conflict: conflict with \"{CSA}\" using {GV}: .spec.replicas");
    assert!(
        stderr.starts_with(&format!("error: {conflict}\n")),
        "{stderr}"
    );

    assert_eq!(apply("apply --server-side", 2), done("serverside-applied"));
    let ssa_entries = json!([
        ["kubectl-last-applied", "Apply", false, annotation_only()],
        applier("kubectl", &["cronSpec", "replicas"]),
    ]);
    let expected = json!([2, last_applied_text("mig", 2, false), ssa_entries]);
    assert_eq!(stored(&server, "mig").await, expected);

    assert_eq!(apply("apply", 3), done("configured"));
    let mut csa_fields = annotation_only();
    csa_fields["f:spec"] = json!({"f:replicas": {}});
    let csa_entries = json!([
        applier("kubectl", &["cronSpec"]),
        [CSA, "Update", true, csa_fields]
    ]);
    let expected = json!([3, last_applied_text("mig", 3, true), csa_entries]);
    assert_eq!(stored(&server, "mig").await, expected);

    assert_eq!(apply("apply --server-side", 4), done("serverside-applied"));
    let expected = json!([4, last_applied_text("mig", 4, false), ssa_entries]);
    assert_eq!(stored(&server, "mig").await, expected);
    let yaml = server.kubectl_ok(&["get", "ct", "mig", "-o", "yaml", "--show-managed-fields"]);
    assert!(yaml.contains("manager: kubectl-last-applied"), "{yaml}");
}
