//! Mutating webhooks where kube limits what a patch can do: on DELETE (refused), on
//! `/status` (only the status is kept) and on `/scale` (the Scale is patched; only its
//! replicas reach the CronTab).

use serde_json::json;

use crate::admission_host::{CRONTABS, Host, Policy, crontab, hook, mutating, with};
use crate::answers::internal;
use crate::webhook::Behaviour;

/// A patch answered for a DELETE is kube's 500 whatever the failurePolicy (it is no
/// failed call) and the object stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_patch_on_delete_500_object_kept() {
    let host = Host::start(|w| {
        w.on(
            "/del",
            Behaviour::Patch(json!([{"op": "add", "path": "/metadata/labels/x", "value": "y"}])),
        );
        let hooks = [Policy::Fail, Policy::Ignore].map(|p| {
            let name = format!("del-{}.example.com", p.as_str().to_lowercase());
            let h = hook(w, &name, "/del", p, &["DELETE"], &["crontabs"]);
            with(
                h,
                "objectSelector",
                json!({"matchLabels": {"policy": p.as_str()}}),
            )
        });
        vec![mutating("delete", hooks.to_vec())]
    });
    for policy in [Policy::Fail, Policy::Ignore] {
        let name = format!("d-{}", policy.as_str().to_lowercase());
        let created = host
            .create(&crontab(&name, &[("policy", policy.as_str())]))
            .await;
        assert_eq!(created.code, 201, "{}", created.body);
        let path = format!("{CRONTABS}/{name}");
        let got = host.send(http::Method::DELETE, &path, None).await;
        let hook = format!("del-{}.example.com", policy.as_str().to_lowercase());
        let message = format!(
            "admission webhook \"{hook}\" attempted to modify the object, which is not supported for this operation"
        );
        assert_eq!((got.code, &got.body), (500, &internal(&message)), "{name}");
        let kept = host.stored(&name).await.expect("not deleted");
        assert_eq!(kept, created.body, "{name}: unchanged");
        let last = host.hook.reviews_at("/del").pop().unwrap();
        assert_eq!(last.request()["operation"], "DELETE");
        assert_eq!(
            last.request()["oldObject"]["metadata"]["name"],
            name.as_str()
        );
    }
    assert_eq!(host.hook.reviews_at("/del").len(), 2);
}

/// On `/status` the webhook's changes to labels and spec are dropped (kube's status
/// strategy runs after admission and keeps only the new status); its status change is
/// kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_on_status_only_status_change_stored() {
    let host = Host::start(|w| {
        w.on(
            "/status",
            Behaviour::Patch(json!([
            {"op": "add", "path": "/metadata/labels/mutated-by", "value": "webhook"},
            {"op": "add", "path": "/spec/owner", "value": "webhook@example.com"},
            {"op": "add", "path": "/status/labelSelector", "value": "from=hook"}])),
        );
        vec![mutating(
            "status",
            vec![hook(
                w,
                "status.example.com",
                "/status",
                Policy::Fail,
                &["UPDATE"],
                &["crontabs/status"],
            )],
        )]
    });
    let created = host.create(&crontab("st", &[("app", "st")])).await;
    assert_eq!(created.code, 201, "{}", created.body);
    let mut object = created.body.clone();
    object["status"] = json!({"replicas": 2});
    let got = host
        .send(
            http::Method::PUT,
            &format!("{CRONTABS}/st/status"),
            Some(&object),
        )
        .await;
    assert_eq!(got.code, 200, "{}", got.body);
    let stored = host.stored("st").await.unwrap();
    assert_eq!(
        stored["status"],
        json!({"replicas": 2, "labelSelector": "from=hook"})
    );
    let labels = json!({"app": "st"});
    assert_eq!(
        stored["metadata"]["labels"], labels,
        "no label from the webhook"
    );
    assert_eq!(
        stored["spec"], created.body["spec"],
        "no owner from the webhook"
    );
    assert_eq!(got.body["spec"], created.body["spec"]);
    let reviews = host.hook.reviews_at("/status");
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0].request()["subResource"], "status");
}

/// On `/scale` the webhook patches the Scale: its replicas reach the CronTab, its label
/// stays on the Scale.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_on_scale_replicas_reach_crontab_label_does_not() {
    let host = Host::start(|w| {
        w.on(
            "/scale",
            Behaviour::Patch(json!([
            {"op": "replace", "path": "/spec/replicas", "value": 7},
            {"op": "add", "path": "/metadata/labels", "value": {"mutated-by": "webhook"}}])),
        );
        // (the Scale has no labels: the whole map is added)
        vec![mutating(
            "scale",
            vec![hook(
                w,
                "scale.example.com",
                "/scale",
                Policy::Fail,
                &["UPDATE"],
                &["crontabs/scale"],
            )],
        )]
    });
    let created = host.create(&crontab("sc", &[("app", "sc")])).await;
    assert_eq!(created.code, 201, "{}", created.body);
    let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
        "metadata": {"name": "sc", "namespace": "default"}, "spec": {"replicas": 3}});
    let got = host
        .send(
            http::Method::PUT,
            &format!("{CRONTABS}/sc/scale"),
            Some(&scale),
        )
        .await;
    assert_eq!(got.code, 200, "{}", got.body);
    assert_eq!(got.body["spec"]["replicas"], 7);
    let stored = host.stored("sc").await.unwrap();
    assert_eq!(stored["spec"]["replicas"], 7);
    assert_eq!(stored["metadata"]["labels"], json!({"app": "sc"}));
    let reviews = host.hook.reviews_at("/scale");
    assert_eq!(reviews.len(), 1);
    let request = reviews[0].request();
    assert_eq!(
        request["kind"],
        json!({"group": "autoscaling", "version": "v1", "kind": "Scale"})
    );
    assert_eq!(
        (
            request["subResource"].as_str(),
            request["object"]["spec"]["replicas"].as_i64()
        ),
        (Some("scale"), Some(3))
    );
}
