//! ValidatingAdmissionPolicy type checking against our own schemas (issue 31, point 4):
//! the real server in dev mode following the fake core API, which serves the policies.
//! A policy whose expression does not type-check against the CronTab schema gets one
//! `crd_apiserver_validating_admission_policy_type_warnings` series and one log line per
//! generation (kube writes it to `status.typeChecking`; the host owns the object here);
//! fixed or deleted, the series goes. A policy on resources that are not ours is not
//! checked.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/webhook_host.rs"]
mod webhook_host;

use std::time::Duration;

use fake_kube::FakeKube;
use fake_kube::collections::VALIDATING_POLICIES;
use serde_json::{Value, json};
use webhook_host::start_server;

const METRIC: &str = "crd_apiserver_validating_admission_policy_type_warnings";
const WITHIN: Duration = Duration::from_secs(30);

/// A policy `name` as kube-apiserver serves it, on `resources` of `group` at v1.
fn policy(name: &str, group: &str, resources: &str, expression: &str) -> Value {
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": {"failurePolicy": "Fail",
            "matchConstraints": {"namespaceSelector": {}, "objectSelector": {},
                "matchPolicy": "Equivalent",
                "resourceRules": [{"operations": ["CREATE"], "apiGroups": [group],
                    "apiVersions": ["v1"], "resources": [resources], "scope": "*"}]},
            "validations": [{"expression": expression}]}})
}

fn series(policy: &str) -> String {
    format!("{METRIC}{{field_ref=\"spec.validations[0].expression\",policy=\"{policy}\"}} 1")
}

async fn metric_lines(server: &common::Server) -> Vec<String> {
    let text = server.metrics().await;
    text.lines()
        .filter(|l| l.starts_with(METRIC))
        .map(str::to_string)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn policy_type_error_on_crontab_field_warned_in_metrics_and_log_until_fixed() {
    let fake = FakeKube::start();
    fake.put_object(policy(
        "crontab-types",
        "stable.example.com",
        "crontabs",
        "object.spec.replicas == 'three'",
    ));
    // Not one of our resources: never checked, whatever it says.
    fake.put_object(policy("pods-types", "", "pods", "object.spec.nothing == 1"));
    let server = start_server(&fake, &[]);

    let lines = common::eventually(WITHIN, "the type warning series", || async {
        let lines = metric_lines(&server).await;
        lines.contains(&series("crontab-types")).then_some(lines)
    })
    .await;
    assert_eq!(
        lines,
        vec![series("crontab-types")],
        "only the CronTab policy"
    );
    let logged = server.log.wait_for(
        &[
            "ValidatingAdmissionPolicy type checking warning",
            "crontab-types",
            "spec.validations[0].expression",
            "stable.example.com/v1, Kind=CronTab: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(int, string)'",
        ],
        WITHIN,
    );
    assert!(logged.contains("WARN"), "{logged}");
    assert_eq!(
        server.log.count(&["type checking warning", "pods-types"]),
        0
    );

    // The fixed generation: no warning, the series gone; the old one was logged once.
    fake.put_object(policy(
        "crontab-types",
        "stable.example.com",
        "crontabs",
        "object.spec.replicas == 3",
    ));
    common::eventually(WITHIN, "the series removed", || async {
        metric_lines(&server).await.is_empty().then_some(())
    })
    .await;
    assert_eq!(
        server
            .log
            .count(&["type checking warning", "crontab-types"]),
        1
    );

    // A new broken generation, then the policy deleted: the series comes and goes.
    fake.put_object(policy(
        "crontab-types",
        "stable.example.com",
        "crontabs",
        "object.spec.schedule == '* * * * *'",
    ));
    common::eventually(WITHIN, "the new generation's series", || async {
        let lines = metric_lines(&server).await;
        (lines == vec![series("crontab-types")]).then_some(())
    })
    .await;
    server
        .log
        .wait_for(&["crontab-types", "undefined field 'schedule'"], WITHIN);
    fake.delete_object(&VALIDATING_POLICIES, None, "crontab-types");
    common::eventually(WITHIN, "the series removed with the policy", || async {
        metric_lines(&server).await.is_empty().then_some(())
    })
    .await;
}
