//! `crd-apiserver migrate` after the storage version changed from v1 to v2: every object
//! rewritten at v2 (on the embedded store and on etcd, where the stored bytes are read),
//! a run stopped by `--limit` resumed from its checkpoint, and writers racing a `--all` run.

use super::*;

#[tokio::test]
async fn migrate_after_storage_change_rewrites_every_object() {
    let (server, _crds) = stored_at_v1(5, &[]).await;
    let before: Value = server
        .client()
        .get(server.url(&collection("v2")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let out = migrate(&server, &["--page-size", "2"]);
    let lines = lines(&out);
    assert_eq!(
        tally(&lines, "done"),
        json!({"rewritten": 5, "current": 0, "gone": 0, "contended": 0})
    );
    let last = lines.last().unwrap();
    assert_eq!(last["event"], "storedVersions");
    assert_eq!(last["objects"], json!({"v2": 5}));
    wait_counts(&server, &[("v2", 5)]).await;
    assert!(
        !checkpoint(&server).exists(),
        "a finished run leaves no checkpoint"
    );
    // Same objects, new resourceVersions.
    let after: Value = server
        .client()
        .get(server.url(&collection("v2")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    for (old, new) in before["items"]
        .as_array()
        .unwrap()
        .iter()
        .zip(after["items"].as_array().unwrap())
    {
        assert_eq!(old["spec"], new["spec"]);
        assert_eq!(old["metadata"]["uid"], new["metadata"]["uid"]);
        assert_ne!(
            old["metadata"]["resourceVersion"],
            new["metadata"]["resourceVersion"]
        );
    }
    // Nothing left at another version: the next run skips the resource.
    let lines = super::lines(&migrate(&server, &[]));
    assert!(lines.iter().all(|l| l["event"] != "start"), "{lines:?}");
    assert_eq!(tally(&lines, "done")["rewritten"], 0);
}

#[tokio::test]
async fn migrate_limit_stops_then_resumes_from_checkpoint() {
    let (server, _crds) = stored_at_v1(6, &[]).await;
    let first = lines(&migrate(&server, &["--limit", "2", "--page-size", "4"]));
    assert_eq!(tally(&first, "limit")["rewritten"], 2);
    assert!(first.iter().all(|l| l["event"] != "done"), "{first:?}");
    let saved: Value =
        serde_json::from_slice(&std::fs::read(checkpoint(&server)).unwrap()).unwrap();
    assert_eq!(saved["resources"][RESOURCE]["after"], "default/a01");
    wait_counts(&server, &[("v1", 4), ("v2", 2)]).await;
    // The second run starts from the checkpoint: the first two are not sent again (they
    // would count as current).
    let second = lines(&migrate(&server, &["--page-size", "4"]));
    assert_eq!(tally(&second, "start")["rewritten"], 2);
    assert_eq!(
        tally(&second, "done"),
        json!({"rewritten": 6, "current": 0, "gone": 0, "contended": 0})
    );
    wait_counts(&server, &[("v2", 6)]).await;
    assert!(!checkpoint(&server).exists());
}

#[tokio::test]
async fn migrate_racing_writers_all_at_storage_version() {
    let (server, _crds) = stored_at_v1(30, &[]).await;
    let mut run = Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .arg("migrate")
        .arg("--kubeconfig")
        .arg(server.kubeconfig())
        .arg("--checkpoint")
        .arg(checkpoint(&server))
        .args(["--all", "--qps", "10", "--page-size", "5"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let c = server.client();
    create_at(&server, "v1", &names("new", 10)).await;
    for name in names("a", 30).iter().step_by(3) {
        let url = server.url(&format!("{}/{name}", collection("v1")));
        let patch = c
            .patch(url)
            .header("Content-Type", "application/merge-patch+json");
        let resp = patch
            .body(r#"{"spec":{"during":true}}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
    }
    for name in names("a", 30).iter().skip(1).step_by(6) {
        let url = server.url(&format!("{}/{name}", collection("v2")));
        assert_eq!(c.delete(url).send().await.unwrap().status().as_u16(), 200);
    }
    assert!(
        run.try_wait().unwrap().is_none(),
        "the run ended before the writers did"
    );
    let out = run.wait_with_output().unwrap();
    let lines = lines(&out);
    let done = tally(&lines, "done");
    assert!(done["gone"].as_u64().unwrap() <= 5, "{done}");
    wait_counts(&server, &[("v2", 35)]).await;
}

#[tokio::test]
async fn migrate_on_etcd_stored_bytes_at_storage_version() {
    let etcd = etcd::Etcd::start();
    let (server, _crds) = stored_at_v1(4, &["--etcd-servers", etcd.endpoint.as_str()]).await;
    let lines = lines(&migrate(&server, &[]));
    assert_eq!(tally(&lines, "done")["rewritten"], 4);
    wait_counts(&server, &[("v2", 4)]).await;
    let store = etcd.store().await;
    let range = crd_apiserver::storage::RangeRequest {
        prefix: "/registry/stable.example.com/crontabs/".into(),
        ..Default::default()
    };
    let kvs = store.range(range).await.unwrap().kvs;
    assert_eq!(kvs.len(), 4);
    for kv in kvs {
        let stored: Value = serde_json::from_slice(&kv.value).unwrap();
        assert_eq!(stored["apiVersion"], "stable.example.com/v2", "{}", kv.key);
    }
}
