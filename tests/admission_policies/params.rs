//! Issue point 3 with params from the host: ConfigMaps by name and namespace, by name in the
//! request's namespace, by selector (every param must pass), a cluster-scoped param,
//! parameterNotFoundAction Deny and Allow, and a param's change followed.

use serde_json::{Value, json};

use crate::fake_kube::FakeKube;
use crate::fake_kube::collections::CONFIGMAPS;
use crate::webhook_host::start_server;
use crate::{
    assert_created, assert_refused, binding, create, create_until, crontab, crontab_in, denial, vap,
};

fn configmap(namespace: &str, name: &str, max: &str, labels: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"max": max},
        "metadata": {"name": name, "namespace": namespace, "labels": labels}})
}

fn put_params(fake: &FakeKube) {
    fake.set_namespace_labels("params", &[]);
    fake.set_namespace_labels("other", &[]);
    fake.put_object(configmap("params", "limits", "3", json!({})));
    fake.put_object(configmap("default", "limits", "4", json!({})));
    fake.put_object(configmap("params", "sel-a", "5", json!({"limits": "yes"})));
    fake.put_object(configmap("params", "sel-b", "2", json!({"limits": "yes"})));
    fake.put_object(
        json!({"apiVersion": "params.example.com/v1", "kind": "ClusterParam",
        "metadata": {"name": "cluster-limits"}, "spec": {"max": 6}}),
    );
    fake.put_object(vap(
        "cm-limit",
        json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
            "validations": [{"expression": "int(params.data.max) >= object.spec.replicas",
                "messageExpression": "'at most ' + params.data.max + ' (' + params.metadata.name + ')'"}]}),
    ));
    fake.put_object(vap(
        "cluster-limit",
        json!({"paramKind": {"apiVersion": "params.example.com/v1", "kind": "ClusterParam"},
            "validations": [{"expression": "params.spec.max >= object.spec.replicas",
                "messageExpression": "'cluster max ' + string(params.spec.max)"}]}),
    ));
    let with_ref = |name: &str, policy: &str, param_ref: Value| {
        let case = name.trim_end_matches("-binding");
        binding(
            name,
            policy,
            case,
            &["Deny"],
            json!({"paramRef": param_ref}),
        )
    };
    for (name, policy, param_ref) in [
        (
            "byname-binding",
            "cm-limit",
            json!({"name": "limits", "namespace": "params", "parameterNotFoundAction": "Deny"}),
        ),
        (
            "requestns-binding",
            "cm-limit",
            json!({"name": "limits", "parameterNotFoundAction": "Deny"}),
        ),
        (
            "selector-binding",
            "cm-limit",
            json!({"namespace": "params", "parameterNotFoundAction": "Deny", "selector": {"matchLabels": {"limits": "yes"}}}),
        ),
        (
            "missingdeny-binding",
            "cm-limit",
            json!({"name": "nope", "namespace": "params", "parameterNotFoundAction": "Deny"}),
        ),
        (
            "missingallow-binding",
            "cm-limit",
            json!({"name": "nope", "namespace": "params", "parameterNotFoundAction": "Allow"}),
        ),
        (
            "cluster-binding",
            "cluster-limit",
            json!({"name": "cluster-limits", "parameterNotFoundAction": "Deny"}),
        ),
    ] {
        fake.put_object(with_ref(name, policy, param_ref));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_params_by_name_namespace_selector_judged_and_followed() {
    let fake = FakeKube::start();
    put_params(&fake);
    let server = start_server(&fake, &[]);
    let refused = |name: &str, binding: &str, message: &str| {
        denial(name, "cm-limit", Some(binding), message, "Invalid")
    };

    // By name and namespace: params/limits allows 3.
    let p1 = crontab("p1", "byname", 3);
    assert_created(&server, &p1, &create(&server, &p1).await).await;
    let p2 = crontab("p2", "byname", 4);
    let want = refused("p2", "byname-binding", "at most 3 (limits)");
    assert_refused(&server, &p2, &create(&server, &p2).await, &want).await;

    // By name in the request's namespace: default's limits allows 4; `other` has none.
    let p3 = crontab("p3", "requestns", 4);
    assert_created(&server, &p3, &create(&server, &p3).await).await;
    let p4 = crontab_in("other", "p4", "requestns", 1);
    let not_found = "failed to configure binding: no params found for policy binding with \
        `Deny` parameterNotFoundAction";
    let mut want = refused("p4", "requestns-binding", not_found);
    assert_refused(&server, &p4, &create(&server, &p4).await, &want).await;

    // By selector: every param must pass (sel-b allows 2).
    let p5 = crontab("p5", "selector", 3);
    want = refused("p5", "selector-binding", "at most 2 (sel-b)");
    assert_refused(&server, &p5, &create(&server, &p5).await, &want).await;
    let p6 = crontab("p6", "selector", 2);
    assert_created(&server, &p6, &create(&server, &p6).await).await;

    // Not found: Deny refuses, Allow lets through unjudged.
    let p7 = crontab("p7", "missingdeny", 1);
    want = refused("p7", "missingdeny-binding", not_found);
    assert_refused(&server, &p7, &create(&server, &p7).await, &want).await;
    let p8 = crontab("p8", "missingallow", 100);
    assert_created(&server, &p8, &create(&server, &p8).await).await;

    // A cluster-scoped param.
    let p9 = crontab("p9", "cluster", 7);
    want = denial(
        "p9",
        "cluster-limit",
        Some("cluster-binding"),
        "cluster max 6",
        "Invalid",
    );
    assert_refused(&server, &p9, &create(&server, &p9).await, &want).await;

    // The param changed on the host: followed without restart.
    fake.put_object(configmap("params", "limits", "10", json!({})));
    let (sent, allowed) =
        create_until(&server, &crontab("raised", "byname", 8), |a| a.code == 201).await;
    assert_created(&server, &sent, &allowed).await;
    // And deleted: the binding's Deny.
    fake.delete_object(&CONFIGMAPS, Some("params"), "limits");
    let (sent, refusal) =
        create_until(&server, &crontab("gone", "byname", 1), |a| a.code == 422).await;
    let name = sent["metadata"]["name"].as_str().unwrap();
    want = refused(name, "byname-binding", not_found);
    assert_refused(&server, &sent, &refusal, &want).await;
}
