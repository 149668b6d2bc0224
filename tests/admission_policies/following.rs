//! Issue point 1: policies and bindings followed from the host without restart (a change, a
//! new generation, a deleted binding, a deleted policy), writes waiting for the first lists
//! then refused with kube's "not yet ready" 403, and a policy compiled once per generation.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::fake_kube::FakeKube;
use crate::fake_kube::collections::{VALIDATING_POLICIES, VALIDATING_POLICY_BINDINGS};
use crate::webhook_host::{answer, start_server};
use crate::{
    assert_created, assert_refused, binding, cpu, create, create_until, crontab, crontabs_of,
    denial, stored, vap,
};

fn limit(max: i64) -> serde_json::Value {
    vap(
        "limit",
        json!({"validations": [{"expression": format!("object.spec.replicas <= {max}"),
            "messageExpression": format!("'at most {max}'")}]}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_changed_followed_without_restart() {
    let fake = FakeKube::start();
    fake.put_object(limit(3));
    fake.put_object(binding("limit-binding", "limit", "f", &["Deny"], json!({})));
    let server = start_server(&fake, &[]);

    // Denied with kube's text, nothing stored.
    let c1 = crontab("c1", "f", 5);
    let refused = create(&server, &c1).await;
    let want = denial("c1", "limit", Some("limit-binding"), "at most 3", "Invalid");
    assert_refused(&server, &c1, &refused, &want).await;

    // The policy changed (generation 2): the same object goes through once it arrives.
    fake.put_object(limit(10));
    let generation = |fake: &FakeKube| {
        let policy = fake.object(&VALIDATING_POLICIES, None, "limit").unwrap();
        policy["metadata"]["generation"].clone()
    };
    assert_eq!(generation(&fake), json!(2));
    let (sent, allowed) = create_until(&server, &crontab("gen2", "f", 5), |a| a.code == 201).await;
    assert_created(&server, &sent, &allowed).await;

    // Down to 2 (generation 3): denied again, with the new text.
    fake.put_object(limit(2));
    assert_eq!(generation(&fake), json!(3));
    let (sent, refused) = create_until(&server, &crontab("gen3", "f", 5), |a| a.code == 422).await;
    let name = sent["metadata"]["name"].as_str().unwrap();
    let want = denial(name, "limit", Some("limit-binding"), "at most 2", "Invalid");
    assert_refused(&server, &sent, &refused, &want).await;

    // The binding deleted: allowed.
    fake.delete_object(&VALIDATING_POLICY_BINDINGS, None, "limit-binding");
    let unbound = crontab("unbound", "f", 5);
    let (sent, allowed) = create_until(&server, &unbound, |a| a.code == 201).await;
    assert_created(&server, &sent, &allowed).await;

    // Bound again: denied; the policy deleted: allowed, and stays so.
    fake.put_object(binding("limit-binding", "limit", "f", &["Deny"], json!({})));
    create_until(&server, &crontab("rebound", "f", 5), |a| a.code == 422).await;
    fake.delete_object(&VALIDATING_POLICIES, None, "limit");
    let deleted = crontab("deleted", "f", 5);
    let (sent, allowed) = create_until(&server, &deleted, |a| a.code == 201).await;
    assert_created(&server, &sent, &allowed).await;
    for name in ["after-1", "after-2"] {
        let object = crontab(name, "f", 50);
        let allowed = create(&server, &object).await;
        assert_created(&server, &object, &allowed).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_lists_held_write_waits_then_not_yet_ready_403() {
    let fake = FakeKube::start();
    fake.put_object(limit(3));
    fake.put_object(binding("limit-binding", "limit", "f", &["Deny"], json!({})));
    fake.hold_lists(&VALIDATING_POLICIES);
    let server = start_server(&fake, &[]);
    let (client, url) = (server.client(), server.url(&crontabs_of("default")));
    let started = Instant::now();
    let mut write = tokio::spawn(async move {
        let resp = client.post(url).json(&crontab("w1", "f", 1)).send().await;
        answer(resp.unwrap()).await.unwrap()
    });
    // kube waits up to 10 s for the policies: nothing answered before 9 s.
    let early = tokio::time::timeout(Duration::from_secs(9), &mut write).await;
    assert!(early.is_err(), "answered after {:?}", started.elapsed());
    let refused = tokio::time::timeout(Duration::from_secs(20), write)
        .await
        .expect("answered within 20 s")
        .unwrap();
    let want = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "crontabs.stable.example.com \"w1\" is forbidden: not yet ready to handle request",
        "reason": "Forbidden",
        "details": {"name": "w1", "group": "stable.example.com", "kind": "crontabs"},
        "code": 403});
    assert_eq!((refused.code, refused.body), (403, want));
    assert_eq!(stored(&server, "w1").await, None);

    // Once the list arrives the policy judges: denied by it, allowed under its limit.
    fake.release_lists(&VALIDATING_POLICIES);
    let w2 = crontab("w2", "f", 5);
    let refused = create(&server, &w2).await;
    let want = denial("w2", "limit", Some("limit-binding"), "at most 3", "Invalid");
    assert_refused(&server, &w2, &refused, &want).await;
    let w3 = crontab("w3", "f", 1);
    let created = create(&server, &w3).await;
    assert_created(&server, &w3, &created).await;
}

/// A policy whose variables are costly to compile (parse, check, plan): `n` variables, each
/// a 200-element list mapped, filtered and summed, none of them read by the validation.
fn costly_to_compile(n: usize, max: i64) -> serde_json::Value {
    let list: Vec<String> = (0..200).map(|i| i.to_string()).collect();
    let expression = format!(
        "[{}].map(x, x * 2).filter(x, x % 3 == 0).exists(x, x > 1000)",
        list.join(",")
    );
    let variables: Vec<_> = (0..n)
        .map(|i| json!({"name": format!("v{i}"), "expression": expression}))
        .collect();
    vap(
        "costly",
        json!({"variables": variables,
            "validations": [{"expression": format!("object.spec.replicas <= {max}"),
                "messageExpression": format!("'at most {max}'")}]}),
    )
}

const CREATES: usize = 20;

/// The server CPU of [`CREATES`] creates labelled `case`, each allowed.
async fn cpu_of_creates(server: &crate::common::Server, prefix: &str) -> Duration {
    let before = cpu(server);
    for i in 0..CREATES {
        let object = crontab(&format!("{prefix}-{i}"), "costly", 1);
        assert_eq!(create(server, &object).await.code, 201, "{prefix}-{i}");
    }
    cpu(server).saturating_sub(before)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_costly_to_compile_compiled_once_per_generation() {
    let fake = FakeKube::start();
    fake.put_object(vap(
        "costly",
        json!({"validations": [{"expression": "object.spec.replicas <= 10",
            "messageExpression": "'at most 10'"}]}),
    ));
    fake.put_object(binding(
        "costly-binding",
        "costly",
        "costly",
        &["Deny"],
        json!({}),
    ));
    let server = start_server(&fake, &[]);
    // Warm the paths; then the cost of creates under a cheap policy.
    cpu_of_creates(&server, "warm").await;
    let cheap = cpu_of_creates(&server, "cheap").await;

    // Generation 2 costs a lot to compile: the CPU from the change to its first answer.
    let before = cpu(&server);
    fake.put_object(costly_to_compile(150, 9));
    create_until(&server, &crontab("switch", "costly", 10), |a| a.code == 422).await;
    let compile = cpu(&server).saturating_sub(before);
    // The same creates under the costly policy: no more than one compile's worth above
    // the cheap policy's (per-request compiling would cost CREATES compiles).
    let costly = cpu_of_creates(&server, "costly").await;
    let extra = costly.saturating_sub(cheap);
    assert!(
        compile >= Duration::from_millis(100),
        "a compile must be visible: {compile:?}"
    );
    assert!(
        extra < compile,
        "{CREATES} creates cost {costly:?} under the costly policy, {cheap:?} under the \
         cheap one; one compile cost {compile:?}"
    );

    // Generation 3, another costly variant: followed, compiled once more.
    fake.put_object(costly_to_compile(150, 8));
    let (sent, refused) =
        create_until(&server, &crontab("gen3", "costly", 9), |a| a.code == 422).await;
    let name = sent["metadata"]["name"].as_str().unwrap();
    let want = crate::denial(
        name,
        "costly",
        Some("costly-binding"),
        "at most 8",
        "Invalid",
    );
    assert_refused(&server, &sent, &refused, &want).await;
}
