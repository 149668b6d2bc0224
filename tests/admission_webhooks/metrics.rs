//! kube's admission metrics on `/metrics` after webhook calls: per webhook its calls'
//! durations, requests and rejections, per phase its durations, each with kube's labels
//! and counting exactly the calls made.

use std::collections::BTreeMap;

use serde_json::json;

use crate::fake_kube::FakeKube;
use crate::webhook::{Behaviour, Webhook};
use crate::webhook_host::{create, crontab, hook, mutating, start_server, stored, validating};
use crate::{at, deny_labelled, names};

/// The samples of `series` (the whole sample name) whose labels are exactly `labels`.
fn value(metrics: &str, series: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let want: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    metrics.lines().find_map(|line| {
        let (sample, number) = line.rsplit_once(' ')?;
        let (name, rest) = sample.split_once('{').unwrap_or((sample, "}"));
        (name == series && parse_labels(rest.strip_suffix('}')?) == want)
            .then(|| number.parse().unwrap())
    })
}

/// `a="x",b="y"` (values without `,` or escapes, as these are).
fn parse_labels(text: &str) -> BTreeMap<String, String> {
    text.split(',')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap();
            (k.to_string(), v.trim_matches('"').to_string())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admission_metrics_after_calls_count_kube_labels() {
    let webhook = Webhook::start(&[]);
    webhook.on("/mutate", Behaviour::Allow);
    webhook.on("/validate", deny_labelled(&[]));
    let fake = FakeKube::start();
    let mutate = hook("mutate.example.com", at(&webhook, "/mutate"));
    fake.put_webhook_configuration(mutating("mutate", vec![mutate]));
    // A second validating webhook, for objects labelled reach=closed, where nothing listens.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_url = format!("https://{}/validate", closed.local_addr().unwrap());
    drop(closed);
    let mut unreachable = hook(
        "unreachable.example.com",
        crate::webhook_host::url_config(&closed_url, &webhook.ca_pem()),
    );
    unreachable["objectSelector"] = json!({"matchLabels": {"reach": "closed"}});
    let check = hook("validate.example.com", at(&webhook, "/validate"));
    fake.put_webhook_configuration(validating("validate", vec![check, unreachable]));
    let server = start_server(&fake, &[]);

    let outcomes = [
        ("m1", vec![], 201),
        ("m2", vec![], 201),
        ("m3", vec![("deny", "true")], 403),
        ("m4", vec![("reach", "closed")], 500),
    ];
    for (name, labels, code) in &outcomes {
        let answer = create(&server, &crontab(name, labels)).await;
        assert_eq!(answer.code, *code, "{name}: {:?}", answer.body);
        assert_eq!(
            stored(&server, name).await.is_some(),
            *code == 201,
            "{name}"
        );
    }
    assert_eq!(
        names(&webhook.reviews_at("/mutate")),
        ["m1", "m2", "m3", "m4"]
    );
    assert_eq!(
        names(&webhook.reviews_at("/validate")),
        ["m1", "m2", "m3", "m4"]
    );

    let metrics = server.metrics().await;
    let got = |series: &str, labels: &[(&str, &str)]| {
        value(&metrics, series, labels)
            .unwrap_or_else(|| panic!("no {series}{labels:?} in\n{}", admission(&metrics)))
    };
    let call = |name, kind, rejected| {
        [
            ("name", name),
            ("type", kind),
            ("operation", "CREATE"),
            ("rejected", rejected),
        ]
    };
    let duration = "apiserver_admission_webhook_admission_duration_seconds_count";
    assert_eq!(
        got(duration, &call("mutate.example.com", "admit", "false")),
        4.0
    );
    assert_eq!(
        got(
            duration,
            &call("validate.example.com", "validating", "false")
        ),
        3.0
    );
    assert_eq!(
        got(
            duration,
            &call("validate.example.com", "validating", "true")
        ),
        1.0
    );
    assert_eq!(
        got(
            duration,
            &call("unreachable.example.com", "validating", "true")
        ),
        1.0
    );
    let sum = "apiserver_admission_webhook_admission_duration_seconds_sum";
    assert!(got(sum, &call("mutate.example.com", "admit", "false")) > 0.0);

    let requests = "apiserver_admission_webhook_request_total";
    let request = |name, kind, code, rejected| {
        [
            ("name", name),
            ("type", kind),
            ("operation", "CREATE"),
            ("code", code),
            ("rejected", rejected),
        ]
    };
    assert_eq!(
        got(
            requests,
            &request("mutate.example.com", "admit", "200", "false")
        ),
        4.0
    );
    assert_eq!(
        got(
            requests,
            &request("validate.example.com", "validating", "200", "false")
        ),
        3.0
    );
    assert_eq!(
        got(
            requests,
            &request("validate.example.com", "validating", "403", "true")
        ),
        1.0
    );
    // A call that failed: client-go's "error calling webhook" ServiceUnavailable.
    let refused = request("unreachable.example.com", "validating", "503", "true");
    assert_eq!(got(requests, &refused), 1.0);

    let rejection = |name, error_type, code| {
        [
            ("name", name),
            ("type", "validating"),
            ("operation", "CREATE"),
            ("error_type", error_type),
            ("rejection_code", code),
        ]
    };
    let rejections = rejection_series(&metrics);
    let denied = rejection("validate.example.com", "no_error", "403");
    assert_eq!(got(rejections, &denied), 1.0);
    let failed = rejection("unreachable.example.com", "calling_webhook_error", "503");
    assert_eq!(got(rejections, &failed), 1.0);
    let total_rejections: usize = metrics
        .lines()
        .filter(|l| l.starts_with(rejections))
        .count();
    assert_eq!(
        total_rejections,
        2,
        "only the two rejections:\n{}",
        admission(&metrics)
    );

    let step = "apiserver_admission_step_admission_duration_seconds_count";
    let phase = |kind, rejected| {
        [
            ("type", kind),
            ("operation", "CREATE"),
            ("rejected", rejected),
        ]
    };
    assert_eq!(got(step, &phase("admit", "false")), 4.0);
    assert_eq!(got(step, &phase("validate", "false")), 2.0);
    assert_eq!(got(step, &phase("validate", "true")), 2.0);
    assert_eq!(value(&metrics, step, &phase("admit", "true")), None);
}

/// kube's `apiserver_admission_webhook_rejection_count` as served (with or without the
/// OpenMetrics `_total` suffix).
fn rejection_series(metrics: &str) -> &'static str {
    let name = "apiserver_admission_webhook_rejection_count";
    match metrics.contains(&format!("{name}_total{{")) {
        true => "apiserver_admission_webhook_rejection_count_total",
        false => name,
    }
}

/// The admission lines of `/metrics`, for failure messages.
fn admission(metrics: &str) -> String {
    let lines = metrics
        .lines()
        .filter(|l| l.contains("apiserver_admission_"));
    lines.collect::<Vec<_>>().join("\n")
}
