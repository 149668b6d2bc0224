//! Issue points 2, 4 and 5 on the validating side: validationActions Deny / Warn / Audit with
//! kube's check metrics, reasons and their codes, messageExpression and its fallbacks, lazy
//! variables, the authorizer's SubjectAccessReviews reaching the host, and kube's per-call
//! cost limit and per-evaluation budget with their texts.

use serde_json::{Value, json};

use crate::fake_kube::{Decision, FakeKube};
use crate::webhook_host::start_server;
use crate::{assert_created, assert_refused, binding, create, crontab, denial, sample, vap};

const CHECKS: &str = "apiserver_validating_admission_policy_check_total";
const DURATIONS: &str = "apiserver_validating_admission_policy_check_duration_seconds_count";

/// A CronTab of case `case` with the extra labels `labels`.
fn labelled(name: &str, case: &str, replicas: i64, labels: &[(&str, &str)]) -> Value {
    let mut object = crontab(name, case, replicas);
    for (k, v) in labels {
        object["metadata"]["labels"][k] = json!(v);
    }
    object
}

fn warning(policy: &str, binding: &str, message: &str) -> String {
    format!(
        "299 - \"Validation failed for ValidatingAdmissionPolicy '{policy}' with binding '{binding}': {message}\""
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validation_actions_deny_warn_audit_answered_stored_and_counted() {
    let fake = FakeKube::start();
    fake.put_object(vap(
        "limit",
        json!({"validations": [{"expression": "object.spec.replicas <= 3",
            "message": "replicas must be at most 3"}]}),
    ));
    for (name, case, actions) in [
        ("limit-deny", "deny", vec!["Deny"]),
        ("limit-warn", "warn", vec!["Warn"]),
        ("limit-audit", "audit", vec!["Audit"]),
        ("limit-deny-warn", "denywarn", vec!["Deny", "Warn"]),
    ] {
        fake.put_object(binding(name, "limit", case, &actions, json!({})));
    }
    let server = start_server(&fake, &[]);
    let text = "replicas must be at most 3";

    let d1 = crontab("d1", "deny", 5);
    let refused = create(&server, &d1).await;
    let want = denial("d1", "limit", Some("limit-deny"), text, "Invalid");
    assert_refused(&server, &d1, &refused, &want).await;
    assert!(refused.warnings.is_empty(), "{:?}", refused.warnings);
    let d2 = crontab("d2", "deny", 1);
    let allowed = create(&server, &d2).await;
    assert_created(&server, &d2, &allowed).await;
    assert!(allowed.warnings.is_empty(), "{:?}", allowed.warnings);

    // Warn: created, kube's Warning header.
    let w1 = crontab("w1", "warn", 5);
    let warned = create(&server, &w1).await;
    assert_created(&server, &w1, &warned).await;
    assert_eq!(warned.warnings, [warning("limit", "limit-warn", text)]);

    // Audit alone: nothing visible.
    let a1 = crontab("a1", "audit", 5);
    let audited = create(&server, &a1).await;
    assert_created(&server, &a1, &audited).await;
    assert!(audited.warnings.is_empty(), "{:?}", audited.warnings);

    // Deny and Warn: refused, with the warning on the refusal.
    let dw1 = crontab("dw1", "denywarn", 5);
    let refused = create(&server, &dw1).await;
    let want = denial("dw1", "limit", Some("limit-deny-warn"), text, "Invalid");
    assert_refused(&server, &dw1, &refused, &want).await;
    assert_eq!(
        refused.warnings,
        [warning("limit", "limit-deny-warn", text)]
    );

    // kube's metrics: one check per failed validation and action, labelled as kube labels
    // it (an `invalid_error` whatever its action); a validation that passes is not counted.
    let metrics = server.metrics().await;
    for (action, error, binding) in [
        ("deny", "invalid_error", "limit-deny"),
        ("warn", "invalid_error", "limit-warn"),
        ("audit", "invalid_error", "limit-audit"),
        ("deny", "invalid_error", "limit-deny-warn"),
        ("warn", "invalid_error", "limit-deny-warn"),
    ] {
        let labels = [
            ("enforcement_action", action),
            ("error_type", error),
            ("policy", "limit"),
            ("policy_binding", binding),
        ];
        for series in [CHECKS, DURATIONS] {
            assert_eq!(
                sample(&metrics, series, &labels),
                Some(1.0),
                "{series} {labels:?}\n{metrics}"
            );
        }
    }
    let labels = [
        ("enforcement_action", "allow"),
        ("error_type", "no_error"),
        ("policy", "limit"),
        ("policy_binding", "limit-deny"),
    ];
    assert_eq!(
        sample(&metrics, CHECKS, &labels),
        None,
        "d2 passed: {metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validation_reasons_messages_and_variables_in_kubes_words() {
    let fake = FakeKube::start();
    // One validation per label `r`: its reason's code; `fieldPath` changes nothing visible.
    let reasons: Vec<Value> = [
        "Forbidden",
        "Unauthorized",
        "RequestEntityTooLarge",
        "Invalid",
    ]
    .iter()
    .map(|r| {
        json!({"expression": format!("object.metadata.labels.r != '{r}'"),
            "message": format!("said {r}"), "reason": r, "fieldPath": "spec.replicas"})
    })
    .collect();
    fake.put_object(vap("reasons", json!({"validations": reasons})));
    fake.put_object(binding(
        "reasons-binding",
        "reasons",
        "reason",
        &["Deny"],
        json!({}),
    ));
    // messageExpression and its fallbacks, per label `m`.
    let m = |v: &str| format!("object.metadata.labels.m != '{v}'");
    fake.put_object(vap(
        "messages",
        json!({"validations": [
            {"expression": m("expr"), "message": "static",
                "messageExpression": "'replicas ' + string(object.spec.replicas) + ' too many'"},
            {"expression": m("empty"), "message": "static when empty", "messageExpression": "''"},
            {"expression": m("error"), "message": "static on error",
                "messageExpression": "object.spec.nosuch"},
            {"expression": m("none")},
        ]}),
    ));
    fake.put_object(binding(
        "messages-binding",
        "messages",
        "message",
        &["Deny"],
        json!({}),
    ));
    // Variables: in order, lazy (an erroring one unread is harmless), the erroring one read.
    let variables = json!([
        {"name": "broken", "expression": "object.spec.nosuch"},
        {"name": "replicas", "expression": "object.spec.replicas"},
        {"name": "double", "expression": "variables.replicas * 2"},
    ]);
    fake.put_object(vap(
        "vars",
        json!({"variables": variables, "validations": [
            {"expression": "object.spec.replicas != 7 || variables.broken",
                "message": "unreachable"},
            {"expression": "variables.double <= 6", "messageExpression":
                "'double is ' + string(variables.double)"},
        ]}),
    ));
    fake.put_object(binding(
        "vars-binding",
        "vars",
        "vars",
        &["Deny"],
        json!({}),
    ));
    let server = start_server(&fake, &[]);

    for (name, reason) in [
        ("r1", "Forbidden"),
        ("r2", "Unauthorized"),
        ("r3", "RequestEntityTooLarge"),
        ("r4", "Invalid"),
    ] {
        let object = labelled(name, "reason", 1, &[("r", reason)]);
        let refused = create(&server, &object).await;
        let said = format!("said {reason}");
        let want = denial(name, "reasons", Some("reasons-binding"), &said, reason);
        assert_refused(&server, &object, &refused, &want).await;
    }
    let none = labelled("r5", "reason", 1, &[("r", "none")]);
    assert_created(&server, &none, &create(&server, &none).await).await;

    for (name, label, message) in [
        ("m1", "expr", "replicas 5 too many".to_string()),
        ("m2", "empty", "static when empty".to_string()),
        ("m3", "error", "static on error".to_string()),
        ("m4", "none", format!("failed expression: {}", m("none"))),
    ] {
        let object = labelled(name, "message", 5, &[("m", label)]);
        let refused = create(&server, &object).await;
        let want = denial(
            name,
            "messages",
            Some("messages-binding"),
            &message,
            "Invalid",
        );
        assert_refused(&server, &object, &refused, &want).await;
    }

    let v1 = crontab("v1", "vars", 3);
    assert_created(&server, &v1, &create(&server, &v1).await).await;
    let v2 = crontab("v2", "vars", 4);
    let refused = create(&server, &v2).await;
    let want = denial("v2", "vars", Some("vars-binding"), "double is 8", "Invalid");
    assert_refused(&server, &v2, &refused, &want).await;
    let v3 = crontab("v3", "vars", 7);
    let refused = create(&server, &v3).await;
    let message = "expression 'object.spec.replicas != 7 || variables.broken' resulted \
        in error: composited variable \"broken\" fails to evaluate: no such key: nosuch";
    let want = denial("v3", "vars", Some("vars-binding"), message, "Invalid");
    assert_refused(&server, &v3, &refused, &want).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authorizer_checks_reach_host_as_subject_access_reviews() {
    let fake = FakeKube::start();
    fake.set_policy(|spec| match spec["resourceAttributes"]["verb"].as_str() {
        Some("escalate") => Decision::no_opinion("not for robots"),
        _ => Decision::allow("fine"),
    });
    let check = "authorizer.serviceAccount('default', 'robot').group('stable.example.com')\
        .resource('crontabs').namespace('default').check(object.metadata.labels.verb).allowed()";
    fake.put_object(vap(
        "authz",
        json!({"validations": [{"expression": check,
            "messageExpression": "'robot may not ' + object.metadata.labels.verb"}]}),
    ));
    fake.put_object(binding(
        "authz-binding",
        "authz",
        "authz",
        &["Deny"],
        json!({}),
    ));
    let server = start_server(&fake, &[]);
    fake.clear_reviews();

    let escalate = labelled("z1", "authz", 1, &[("verb", "escalate")]);
    let refused = create(&server, &escalate).await;
    let want = denial(
        "z1",
        "authz",
        Some("authz-binding"),
        "robot may not escalate",
        "Invalid",
    );
    assert_refused(&server, &escalate, &refused, &want).await;
    let get = labelled("z2", "authz", 1, &[("verb", "get")]);
    assert_created(&server, &get, &create(&server, &get).await).await;

    let robot: Vec<Value> = fake
        .access_reviews()
        .into_iter()
        .filter(|r| r["user"] == json!("system:serviceaccount:default:robot"))
        .collect();
    let verbs: Vec<&str> = robot
        .iter()
        .map(|r| r["resourceAttributes"]["verb"].as_str().unwrap())
        .collect();
    assert_eq!(verbs, ["escalate", "get"], "{robot:?}");
    for review in &robot {
        let attributes = &review["resourceAttributes"];
        assert_eq!(attributes["group"], json!("stable.example.com"), "{review}");
        assert_eq!(attributes["resource"], json!("crontabs"), "{review}");
        assert_eq!(attributes["namespace"], json!("default"), "{review}");
    }
}

/// `[0..99].all(a, [0..99].all(b, [0..99].all(c, true)))`: over the per-call limit.
fn over_the_call_limit() -> String {
    let list: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    let list = format!("[{}]", list.join(","));
    format!("{list}.all(a, {list}.all(b, {list}.all(c, true)))")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cost_limits_per_call_and_per_evaluation_kube_texts() {
    let fake = FakeKube::start();
    let costly = over_the_call_limit();
    fake.put_object(vap(
        "per-call",
        json!({"validations": [{"expression": costly}]}),
    ));
    fake.put_object(binding(
        "per-call-binding",
        "per-call",
        "percall",
        &["Deny"],
        json!({}),
    ));
    // Twelve of them spend more than the evaluation's budget of ten calls' limits.
    let validations: Vec<Value> = (0..12).map(|_| json!({"expression": costly})).collect();
    fake.put_object(vap("budget", json!({"validations": validations})));
    fake.put_object(binding(
        "budget-binding",
        "budget",
        "budget",
        &["Deny"],
        json!({}),
    ));
    let server = start_server(&fake, &[]);

    let c1 = crontab("c1", "percall", 1);
    let refused = create(&server, &c1).await;
    let message = format!(
        "expression '{costly}' resulted in error: operation cancelled: actual cost limit exceeded"
    );
    let want = denial(
        "c1",
        "per-call",
        Some("per-call-binding"),
        &message,
        "Invalid",
    );
    assert_refused(&server, &c1, &refused, &want).await;

    let c2 = crontab("c2", "budget", 1);
    let refused = create(&server, &c2).await;
    let message = "validation failed due to running out of cost budget, no further validation \
        rules will be run";
    let want = denial("c2", "budget", Some("budget-binding"), message, "Invalid");
    assert_refused(&server, &c2, &refused, &want).await;

    let metrics = server.metrics().await;
    let labels = |error, policy, binding| {
        [
            ("enforcement_action", "deny"),
            ("error_type", error),
            ("policy", policy),
            ("policy_binding", binding),
        ]
    };
    let per_call = labels("invalid_error", "per-call", "per-call-binding");
    assert_eq!(sample(&metrics, CHECKS, &per_call), Some(1.0), "{metrics}");
    let budget = labels("out_of_budget", "budget", "budget-binding");
    assert_eq!(sample(&metrics, CHECKS, &budget), Some(1.0), "{metrics}");
}
