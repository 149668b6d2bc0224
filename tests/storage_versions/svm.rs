//! kube's StorageVersionMigration controller's request (KEP-4192), unchanged: a
//! server-side apply of `{kind, apiVersion, metadata: {uid, resourceVersion}}` with
//! `fieldManager=storage-version-migrator-controller` rewrites the object at the storage
//! version, writes nothing when it already is, and fails as kube does when the object
//! changed (stale resourceVersion), was deleted (uid), or deleted and recreated.

use super::*;

/// The controller's request for the object `name` with `uid` and `rv`.
async fn svm(server: &Server, name: &str, uid: &Value, rv: &Value) -> (u16, Value) {
    let url = format!(
        "{}/{name}?fieldManager=storage-version-migrator-controller",
        collection("v2")
    );
    let body = json!({"kind": "CronTab", "apiVersion": "stable.example.com/v2",
        "metadata": {"uid": uid, "resourceVersion": rv}});
    let resp = server
        .client()
        .patch(server.url(&url))
        .header("Content-Type", "application/apply-patch+yaml")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    (resp.status().as_u16(), resp.json().await.unwrap())
}

async fn get(server: &Server, name: &str) -> (u16, Value) {
    let url = server.url(&format!("{}/{name}", collection("v2")));
    let resp = server.client().get(url).send().await.unwrap();
    (resp.status().as_u16(), resp.json().await.unwrap())
}

fn uid_rv(object: &Value) -> (Value, Value) {
    let meta = &object["metadata"];
    (meta["uid"].clone(), meta["resourceVersion"].clone())
}

fn conflict(name: &str, detail: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": format!("Operation cannot be fulfilled on {RESOURCE} \"{name}\": {detail}"),
        "reason": "Conflict", "details": {"name": name, "group": "stable.example.com", "kind": "crontabs"},
        "code": 409})
}

const MODIFIED: &str =
    "the object has been modified; please apply your changes to the latest version and try again";

#[tokio::test]
async fn svm_apply_rewrites_at_storage_version_kube_preconditions() {
    let (server, _crds) = stored_at_v1(3, &[]).await;
    // An object stored at v1: rewritten at v2, content and managers unchanged.
    let (_, before) = get(&server, "a00").await;
    let (uid, rv) = uid_rv(&before);
    let (code, after) = svm(&server, "a00", &uid, &rv).await;
    assert_eq!(code, 200, "{after}");
    assert_ne!(after["metadata"]["resourceVersion"], rv);
    assert_eq!(after["spec"], before["spec"]);
    assert_eq!(
        after["metadata"]["managedFields"],
        before["metadata"]["managedFields"]
    );
    wait_counts(&server, &[("v1", 2), ("v2", 1)]).await;
    // Already at v2: nothing written, the resourceVersion stays.
    let (_, rv2) = uid_rv(&after);
    let (code, again) = svm(&server, "a00", &uid, &rv2).await;
    assert_eq!((code, &again["metadata"]["resourceVersion"]), (200, &rv2));
    // Stale resourceVersion: kube's conflict.
    assert_eq!(
        svm(&server, "a00", &uid, &rv).await,
        (409, conflict("a00", MODIFIED))
    );

    // Deleted: the uid makes it a conflict, not a create.
    let (_, gone) = get(&server, "a01").await;
    let (uid1, rv1) = uid_rv(&gone);
    let url = server.url(&format!("{}/a01", collection("v1")));
    assert_eq!(
        server
            .client()
            .delete(url)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16(),
        200
    );
    let detail = format!(
        "uid mismatch: the provided object specified uid {}, and no existing object was found",
        uid1.as_str().unwrap()
    );
    assert_eq!(
        svm(&server, "a01", &uid1, &rv1).await,
        (409, conflict("a01", &detail))
    );
    assert_eq!(get(&server, "a01").await.0, 404, "nothing was created");

    // Deleted and recreated: the old resourceVersion is a conflict.
    let (_, old) = get(&server, "a02").await;
    let (uid2, rv2) = uid_rv(&old);
    let url = server.url(&format!("{}/a02", collection("v1")));
    assert_eq!(
        server
            .client()
            .delete(url)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16(),
        200
    );
    create_at(&server, "v1", &["a02".to_string()]).await;
    assert_eq!(
        svm(&server, "a02", &uid2, &rv2).await,
        (409, conflict("a02", MODIFIED))
    );
    // a00 migrated, a01 gone, a02 recreated at the storage version.
    wait_counts(&server, &[("v2", 2)]).await;
}
