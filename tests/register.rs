//! Self-registration against the fake host cluster, with the real binary over real TLS:
//! `--register-apiservices` creates an APIService per served group/version with our
//! route and caBundle (following `--apiservice-ca-file`) and keeps it (edits and
//! deletions are put back) without touching one that is not ours. `crd-apiserver
//! unregister`: tests/unregister.rs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/registering.rs"]
mod registering;

use base64::Engine;
use common::eventually;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use registering::{
    DEADLINE, NAMESPACE, SERVED, apiservices, ca_file, foreign, host, registered, serve, spec_json,
};
use serde_json::json;

/// (manager, operation) of each managedFields entry.
fn managers(a: &APIService) -> Vec<(String, String)> {
    a.metadata
        .managed_fields
        .iter()
        .flatten()
        .map(|m| (m.manager.clone().unwrap(), m.operation.clone().unwrap()))
        .collect()
}

#[tokio::test]
async fn register_served_group_versions_spec_and_ca_bundle_created() {
    let (fake, client) = host().await;
    let dir = tempfile::tempdir().unwrap();
    let (ca_path, ca_pem) = ca_file(&dir);
    let server = serve(&fake, &["--apiservice-ca-file", &ca_path]);
    let found = registered(&client).await;
    let b64 = base64::engine::general_purpose::STANDARD.encode(&ca_pem);
    for a in &found {
        let name = a.metadata.name.clone().unwrap();
        let (version, group) = name.split_once('.').unwrap();
        assert_eq!(
            spec_json(a),
            json!({"group": group, "version": version, "groupPriorityMinimum": 1000,
                "versionPriority": 100, "caBundle": b64, "insecureSkipTLSVerify": false,
                "service": {"namespace": NAMESPACE, "name": "crd-apiserver", "port": 443}}),
            "{name}"
        );
        // Absent, so created by a POST with fieldManager crd-apiserver (never a forced
        // apply, which could take over one made by someone else since our list).
        assert_eq!(
            managers(a),
            [("crd-apiserver".to_string(), "Update".to_string())],
            "{name}"
        );
        let created = fake
            .writes()
            .into_iter()
            .filter(|w| w.path.ends_with("/apiservices") && w.method == "POST")
            .count();
        assert!(created >= SERVED.len(), "created by POST");
    }
    let metrics = server.metrics().await;
    assert!(
        fake_kube::delegated::sample(
            &metrics,
            "crd_apiserver_apiservice_reconciles_total{result=\"success\"}"
        ) >= 1.0,
        "{metrics}"
    );
}

#[tokio::test]
async fn register_edited_and_deleted_apiservices_put_back() {
    let (fake, client) = host().await;
    let dir = tempfile::tempdir().unwrap();
    let (ca_path, _) = ca_file(&dir);
    let _server = serve(&fake, &["--apiservice-ca-file", &ca_path]);
    let before = registered(&client).await;
    let api = apiservices(&client);
    let edit = json!({"spec": {"groupPriorityMinimum": 5, "insecureSkipTLSVerify": true, "caBundle": null}});
    api.patch(
        "v1.stable.example.com",
        &PatchParams::default(),
        &Patch::Merge(&edit),
    )
    .await
    .unwrap();
    let want = before
        .iter()
        .find(|a| a.metadata.name.as_deref() == Some("v1.stable.example.com"))
        .map(spec_json)
        .unwrap();
    eventually(DEADLINE, "the edited spec put back", || {
        let (api, want) = (api.clone(), want.clone());
        async move {
            let now = api.get("v1.stable.example.com").await.ok()?;
            (spec_json(&now) == want).then_some(())
        }
    })
    .await;
    // Ours that differs: server-side applied (force) by crd-apiserver.
    let applied = eventually(DEADLINE, "applied by crd-apiserver", || {
        let api = api.clone();
        async move {
            let now = api.get("v1.stable.example.com").await.ok()?;
            let found = managers(&now).contains(&("crd-apiserver".into(), "Apply".into()));
            found.then_some(now)
        }
    })
    .await;
    assert_eq!(spec_json(&applied), want);

    let old_uid = before
        .iter()
        .find(|a| a.metadata.name.as_deref() == Some("v1.example.org"))
        .and_then(|a| a.metadata.uid.clone())
        .unwrap();
    api.delete("v1.example.org", &DeleteParams::default())
        .await
        .unwrap();
    let recreated = eventually(DEADLINE, "the deleted APIService put back", || {
        let api = api.clone();
        async move { api.get_opt("v1.example.org").await.ok()? }
    })
    .await;
    assert_ne!(recreated.metadata.uid.as_deref(), Some(old_uid.as_str()));
    assert_eq!(spec_json(&recreated)["group"], "example.org");
}

#[tokio::test]
async fn register_ca_file_replaced_ca_bundle_follows() {
    let (fake, client) = host().await;
    let dir = tempfile::tempdir().unwrap();
    let (ca_path, first) = ca_file(&dir);
    let _server = serve(&fake, &["--apiservice-ca-file", &ca_path]);
    for a in registered(&client).await {
        assert_eq!(a.spec.unwrap().ca_bundle.unwrap().0, first);
    }
    // Rotated by whoever owns the file (a new file renamed over it, as Secret volumes do).
    let next = crd_apiserver::server::pki::new_authority("next-ca").unwrap();
    let both = format!("{}{}", next.pem.cert, String::from_utf8(first).unwrap());
    crd_apiserver::server::pki::write_file(std::path::Path::new(&ca_path), both.as_bytes(), 0o644)
        .unwrap();
    let api = apiservices(&client);
    eventually(DEADLINE, "every caBundle following the file", || {
        let (api, both) = (api.clone(), both.clone());
        async move {
            let items = api.list(&ListParams::default()).await.ok()?.items;
            let followed = items
                .iter()
                .filter(|a| {
                    a.spec
                        .as_ref()
                        .and_then(|s| s.ca_bundle.as_ref())
                        .map(|b| &b.0)
                        == Some(&both.clone().into_bytes())
                })
                .count();
            (followed == SERVED.len()).then_some(())
        }
    })
    .await;
}

#[tokio::test]
async fn register_ca_file_without_certificate_old_bundle_kept() {
    let (fake, client) = host().await;
    let dir = tempfile::tempdir().unwrap();
    let (ca_path, first) = ca_file(&dir);
    let server = serve(&fake, &["--apiservice-ca-file", &ca_path]);
    registered(&client).await;
    let path = std::path::Path::new(&ca_path);
    // Replaced by something that is no CA bundle: a key only.
    let key = crd_apiserver::server::pki::new_authority("k")
        .unwrap()
        .pem
        .key;
    crd_apiserver::server::pki::write_file(path, key.as_bytes(), 0o644).unwrap();
    server.log.wait_for(
        &[
            "keeping the CA bundle in use",
            "holds no PEM CERTIFICATE block",
        ],
        DEADLINE,
    );
    // A later good bundle is still followed: the file is still read, only refused.
    let next = crd_apiserver::server::pki::new_authority("next-ca").unwrap();
    let api = apiservices(&client);
    for a in api.list(&ListParams::default()).await.unwrap().items {
        assert_eq!(
            a.spec.unwrap().ca_bundle.unwrap().0,
            first,
            "old bundle kept"
        );
    }
    crd_apiserver::server::pki::write_file(path, next.pem.cert.as_bytes(), 0o644).unwrap();
    eventually(DEADLINE, "the next bundle followed", || {
        let (api, want) = (api.clone(), next.pem.cert.clone().into_bytes());
        async move {
            let a = api.get("v1.example.org").await.ok()?;
            (a.spec?.ca_bundle?.0 == want).then_some(())
        }
    })
    .await;
}

#[tokio::test]
async fn register_not_owned_apiservice_same_name_left_byte_identical() {
    let (fake, client) = host().await;
    let api = apiservices(&client);
    let theirs = api
        .create(
            &PostParams::default(),
            &foreign("v1.stable.example.com", json!({"team": "a"})),
        )
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (ca_path, _) = ca_file(&dir);
    let server = serve(&fake, &["--apiservice-ca-file", &ca_path]);
    // Ours appear; theirs (same name) stays as it was.
    eventually(DEADLINE, "the other two registered", || {
        let api = api.clone();
        async move {
            let a = api.get_opt("v1.example.org").await.ok()??;
            let b = api.get_opt("v1beta1.example.org").await.ok()??;
            Some((a, b))
        }
    })
    .await;
    server
        .log
        .wait_for(&["v1.stable.example.com", "is not ours"], DEADLINE);
    // Our own applies' watch events made more reconciles: none may write theirs or warn again.
    eventually(DEADLINE, "a second reconcile", || {
        let server = &server;
        async move {
            let metrics = server.metrics().await;
            let series = "crd_apiserver_apiservice_reconciles_total{result=\"success\"}";
            (fake_kube::delegated::sample(&metrics, series) >= 2.0).then_some(())
        }
    })
    .await;
    let now = api.get("v1.stable.example.com").await.unwrap();
    assert_eq!(
        serde_json::to_value(&now).unwrap(),
        serde_json::to_value(&theirs).unwrap(),
        "not ours: never written"
    );
    assert_eq!(
        server.log.count(&["v1.stable.example.com", "is not ours"]),
        1,
        "warned once"
    );
}
