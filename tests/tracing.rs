//! Request tracing (issue 33, point 4), end to end: the real server exports its spans
//! over OTLP gRPC to a receiver of the test's own (tests/common/otlp.rs), with
//! `--tracing-config-file` as kube reads it. Asserted: an incoming `traceparent` is
//! continued (server span → handler → storage; admission plugin → webhook call, and the
//! webhook received that call's `traceparent`), an unprivileged user's is only linked,
//! sampling 0 exports nothing of its own, sampling 1000000 every request, spans are
//! flushed at shutdown, and bad configuration files are refused at start-up with kube's
//! texts. Names and attributes are k8s.io/apiserver's (filters/traces.go,
//! handlers/create.go, storage/etcd3/store.go, admission/plugin/webhook dispatchers).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

#[path = "common/admission_host.rs"]
mod admission_host;
mod common;
#[path = "common/conversion.rs"]
mod conversion;
#[path = "common/etcd.rs"]
mod etcd;
#[path = "common/fake_kube.rs"]
mod fake_kube;
#[path = "common/otlp.rs"]
mod otlp;
#[path = "common/stub_converter.rs"]
mod stub_converter;
#[path = "common/webhook.rs"]
mod webhook;
#[path = "common/webhook_host.rs"]
mod webhook_host;

use std::time::Duration;

use admission_host::{CRONTABS, Host, Policy, crontab, mutating, validating};
use common::Server;
use otlp::{Collector, Received};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";
const CRONTABS_EXAMPLE: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn traceparent(trace_id: &str) -> String {
    format!("00-{trace_id}-{PARENT_ID}-01")
}

/// The one span named `name` among `spans` (of one trace).
fn named<'a>(spans: &'a [Received], name: &str) -> &'a Received {
    let found: Vec<&Received> = spans.iter().filter(|s| s.name == name).collect();
    assert_eq!(found.len(), 1, "one {name:?} span in {:#?}", names(spans));
    found[0]
}

fn names(spans: &[Received]) -> Vec<(String, String, String)> {
    spans
        .iter()
        .map(|s| (s.name.clone(), s.span_id.clone(), s.parent_span_id.clone()))
        .collect()
}

fn of_trace(spans: &[Received], trace_id: &str) -> Vec<Received> {
    spans
        .iter()
        .filter(|s| s.trace_id == trace_id)
        .cloned()
        .collect()
}

fn assert_child(child: &Received, parent: &Received) {
    assert_eq!(
        child.parent_span_id, parent.span_id,
        "{} is a child of {}",
        child.name, parent.name
    );
}

#[tokio::test]
async fn traceparent_create_continued_through_handler_storage_admission_webhook() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().unwrap();
    // samplingRatePerMillion unset: nothing started here is sampled, a sampled parent is.
    let config = collector
        .config_file(dir.path(), None)
        .display()
        .to_string();
    let mut host = Host::start_with(
        |hook| {
            let one = |name: &str, path: &str| {
                admission_host::hook(hook, name, path, Policy::Fail, &["CREATE"], &["crontabs"])
            };
            vec![
                mutating("mutate", vec![one("mutate.example.com", "/mutate")]),
                validating("check", vec![one("check.example.com", "/check")]),
            ]
        },
        &["--tracing-config-file", &config],
    );
    let created = host
        .server
        .client()
        .post(host.server.url(CRONTABS))
        .header("traceparent", traceparent(TRACE_ID))
        .json(&crontab("traced", &[]))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    // Flushed at shutdown (the batch's delay is seconds).
    assert!(host.server.terminate().success());
    let all = collector.wait_for(Duration::from_secs(20), |spans| {
        spans.iter().any(|s| s.name.starts_with("POST "))
    });
    // kube's authentication span is outside the server span: with a traceparent, a root
    // of its own trace, which sampling (unset: never) leaves out.
    assert!(
        all.iter().all(|s| s.name != "authentication"),
        "{:#?}",
        names(&all)
    );
    let spans = of_trace(&all, TRACE_ID);
    let server = named(
        &spans,
        "POST /apis/stable.example.com/v1/namespaces/{:namespace}/crontabs",
    );
    assert_eq!(
        server.parent_span_id, PARENT_ID,
        "the incoming span is the parent"
    );
    assert_eq!(server.kind, 2, "a server span");
    assert_eq!(server.attributes["http.target"], CRONTABS);
    assert_eq!(server.attributes["http.response.status_code"], "201");
    assert_eq!(server.attributes["http.request.method"], "POST");
    assert_eq!(server.resource["service.name"], "apiserver");
    assert!(server.resource["service.instance.id"].starts_with("apiserver-"));
    // kube's filter spans, each around the rest of the request.
    let mut outer = server;
    for filter in [
        "audit",
        "constrainedimpersonation",
        "priorityandfairness",
        "authorization",
    ] {
        let span = named(&spans, filter);
        assert_child(span, outer);
        outer = span;
    }
    let handler = named(&spans, "Create");
    assert_child(handler, outer);
    let serialized = named(&spans, "SerializeObject");
    assert_child(serialized, handler);
    assert_eq!(serialized.attributes["mediaType"], "application/json");
    assert!(serialized.attributes["encoder"].contains(r#""encodeGV":"stable.example.com/v1""#));
    assert_eq!(serialized.attributes["method"], "POST");
    assert_eq!(serialized.attributes["url"], CRONTABS);
    assert_eq!(serialized.attributes["protocol"], "HTTP/1.1");
    assert_eq!(
        serialized.events,
        ["About to start writing response", "Write call succeeded"]
    );
    assert_eq!(handler.attributes["verb"], "POST");
    assert_eq!(handler.attributes["resource"], "crontabs");
    assert_eq!(handler.attributes["namespace"], "default");
    assert_eq!(handler.attributes["scope"], "resource");
    assert_eq!(handler.attributes["protocol"], "HTTP/1.1");
    assert_eq!(handler.attributes["url"], CRONTABS);
    assert_eq!(
        handler.events,
        [
            "limitedReadBody succeeded",
            "About to convert to expected version",
            "Conversion done",
            "About to store object in database",
            "Write to database call succeeded",
            "About to write a response",
            "Writing http response done"
        ]
    );
    let stored = named(&spans, "Create etcd3");
    assert_child(stored, handler);
    assert_eq!(
        stored.attributes["key"],
        "/stable.example.com/crontabs/default/traced"
    );
    assert!(
        stored.events.contains(&"Txn call succeeded".to_string()),
        "{:?}",
        stored.events
    );
    let plugin = named(&spans, "Validate ValidatingAdmissionWebhook");
    assert_child(plugin, handler);
    let call = named(&spans, "Call validating webhook");
    assert_child(call, plugin);
    assert_eq!(call.attributes["webhook"], "check.example.com");
    assert_eq!(call.attributes["configuration"], "check");
    assert_eq!(call.attributes["operation"], "CREATE");
    assert_eq!(
        call.attributes["resource"],
        "stable.example.com/v1, Resource=crontabs"
    );
    assert!(call.events.contains(&"Request completed".to_string()));
    let mutating_plugin = named(&spans, "Admit MutatingAdmissionWebhook");
    assert_child(mutating_plugin, handler);
    let mutating_call = named(&spans, "Call mutating webhook");
    assert_child(mutating_call, mutating_plugin);
    assert_eq!(mutating_call.attributes["webhook"], "mutate.example.com");
    // Each webhook was called within its call's span.
    for (path, call) in [("/check", call), ("/mutate", mutating_call)] {
        let reviews = host.hook.reviews_at(path);
        assert_eq!(reviews.len(), 1, "{path}");
        assert_eq!(
            reviews[0].traceparent.as_deref(),
            Some(format!("00-{TRACE_ID}-{}-01", call.span_id).as_str()),
            "{path}"
        );
    }
    drop(host);
}

#[tokio::test]
async fn no_config_incoming_traceparent_passed_to_webhook_unchanged() {
    let host = Host::start(|hook| {
        vec![validating(
            "check",
            vec![admission_host::hook(
                hook,
                "check.example.com",
                "/check",
                Policy::Fail,
                &["CREATE"],
                &["crontabs"],
            )],
        )]
    });
    let client = host.server.client();
    let traced = client
        .post(host.server.url(CRONTABS))
        .header("traceparent", traceparent(TRACE_ID))
        .json(&crontab("traced", &[]))
        .send()
        .await
        .unwrap();
    assert_eq!(traced.status(), 201);
    let plain = host.create(&crontab("plain", &[])).await;
    assert_eq!(plain.code, 201);
    let sent: Vec<Option<String>> = host
        .hook
        .reviews_at("/check")
        .into_iter()
        .map(|r| r.traceparent)
        .collect();
    assert_eq!(sent, vec![Some(traceparent(TRACE_ID)), None]);
}

#[tokio::test]
async fn traceparent_conversion_webhook_call_carries_its_span() {
    let converter = stub_converter::StubConverter::start();
    let collector = Collector::start();
    let dir = tempfile::tempdir().unwrap();
    let crds = dir.path().join("crds");
    std::fs::create_dir(&crds).unwrap();
    let widgets = conversion::Served {
        plural: "widgets",
        kind: "Widget",
        path: "/convert",
    };
    let definition = conversion::definition(&converter, &widgets).to_string();
    std::fs::write(crds.join("widgets.json"), definition).unwrap();
    let config = collector
        .config_file(dir.path(), None)
        .display()
        .to_string();
    let crds = crds.display().to_string();
    let mut server = Server::start_with(&["--crd-dir", &crds, "--tracing-config-file", &config]);
    let collection = "/apis/conversion.example.com/v1/namespaces/default/widgets";
    let widget = conversion::object(
        conversion::V1,
        "Widget",
        "w",
        serde_json::json!({"color": "red"}),
    );
    let client = server.client();
    let created = client
        .post(server.url(collection))
        .json(&widget)
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let at_v2 = "/apis/conversion.example.com/v2/namespaces/default/widgets/w";
    let got = client
        .get(server.url(at_v2))
        .header("traceparent", traceparent(TRACE_ID))
        .send()
        .await
        .unwrap();
    assert_eq!(got.status(), 200);
    let got: serde_json::Value = got.json().await.unwrap();
    assert_eq!(got["spec"]["shape"], "round", "converted by the webhook");
    assert!(server.terminate().success());
    let spans = collector.wait_for(Duration::from_secs(20), |spans| {
        spans.iter().any(|s| s.name == "Call conversion webhook")
    });
    let spans = of_trace(&spans, TRACE_ID);
    let call = named(&spans, "Call conversion webhook");
    assert_eq!(
        call.attributes["custom-resource-definition"],
        "widgets.conversion.example.com"
    );
    assert_eq!(
        call.attributes["desired-api-version"],
        "conversion.example.com/v2"
    );
    assert_eq!(call.attributes["object-count"], "1");
    assert!(call.events.contains(&"Request completed".to_string()));
    // Under the request's handler span.
    let handler = named(&spans, "Get");
    let mut ancestor = call.parent_span_id.clone();
    while ancestor != handler.span_id {
        let parent = spans.iter().find(|s| s.span_id == ancestor);
        let parent =
            parent.unwrap_or_else(|| panic!("{} under Get: {:#?}", call.name, names(&spans)));
        ancestor = parent.parent_span_id.clone();
    }
    let reviews = converter.reviews_at("/convert");
    let sent: Vec<Option<&str>> = reviews.iter().map(|r| r.header("traceparent")).collect();
    assert_eq!(
        sent,
        vec![Some(format!("00-{TRACE_ID}-{}-01", call.span_id).as_str())]
    );
}

#[tokio::test]
async fn sampling_zero_without_traceparent_exports_nothing() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().unwrap();
    let config = collector
        .config_file(dir.path(), Some(0))
        .display()
        .to_string();
    let mut server = Server::start_with(&["--tracing-config-file", &config]);
    let client = server.client();
    for i in 0..5 {
        let created = client
            .post(server.url(CRONTABS_EXAMPLE))
            .json(&common::crontabs::crontab(&format!("c{i}"), 0))
            .send()
            .await
            .unwrap();
        assert_eq!(created.status(), 201);
        let got = client
            .get(server.url(CRONTABS_EXAMPLE))
            .send()
            .await
            .unwrap();
        assert_eq!(got.status(), 200);
    }
    // One sampled request, so that something is exported: the exporter works.
    let marked = client
        .get(server.url(CRONTABS_EXAMPLE))
        .header("traceparent", traceparent(TRACE_ID))
        .send()
        .await
        .unwrap();
    assert_eq!(marked.status(), 200);
    assert!(server.terminate().success());
    let spans = collector.wait_for(Duration::from_secs(20), |spans| {
        spans.iter().any(|s| s.name.starts_with("GET "))
    });
    assert!(!spans.is_empty(), "the sampled request was exported");
    let others: Vec<_> = spans.iter().filter(|s| s.trace_id != TRACE_ID).collect();
    assert!(
        others.is_empty(),
        "unsampled requests exported: {others:#?}"
    );
    let list = named(&spans, "List");
    assert_child(list, named(&spans, "authorization"));
    assert!(list.events.is_empty(), "kube's list handler adds none");
    let cached = named(&spans, "cacher.GetList");
    assert_child(cached, list);
    // A consistent list asks the store for its revision (kube's one-key list).
    assert_child(named(&spans, "List(recursive=false) etcd3"), cached);
}

#[tokio::test]
async fn sampling_million_exports_every_request_under_authentication() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().unwrap();
    let config = collector
        .config_file(dir.path(), Some(1_000_000))
        .display()
        .to_string();
    let mut server = Server::start_with(&["--tracing-config-file", &config]);
    let client = server.client();
    const REQUESTS: usize = 6;
    for i in 0..REQUESTS / 2 {
        let name = format!("c{i}");
        let created = client
            .post(server.url(CRONTABS_EXAMPLE))
            .json(&common::crontabs::crontab(&name, 0))
            .send()
            .await
            .unwrap();
        assert_eq!(created.status(), 201);
        let got = client
            .get(server.url(&format!("{CRONTABS_EXAMPLE}/{name}")))
            .send()
            .await
            .unwrap();
        assert_eq!(got.status(), 200);
    }
    assert!(server.terminate().success());
    let is_request = |s: &Received| s.kind == 2 && s.name.contains("/crontabs");
    let spans = collector.wait_for(Duration::from_secs(20), |spans| {
        spans.iter().filter(|s| is_request(s)).count() >= REQUESTS
    });
    let requests: Vec<&Received> = spans.iter().filter(|s| is_request(s)).collect();
    assert_eq!(requests.len(), REQUESTS, "{:#?}", names(&spans));
    let mut traces: Vec<&str> = requests.iter().map(|s| s.trace_id.as_str()).collect();
    traces.sort();
    traces.dedup();
    assert_eq!(traces.len(), REQUESTS, "a trace per request");
    // Without a traceparent, kube's authentication span is the root, the server span
    // its child.
    for request in &requests {
        let parent = spans.iter().find(|s| s.span_id == request.parent_span_id);
        let parent = parent.expect("the server span's parent exported");
        assert_eq!(parent.name, "authentication");
        assert!(
            parent.parent_span_id.is_empty(),
            "authentication is the root"
        );
        assert_eq!(parent.trace_id, request.trace_id);
    }
    let gets = requests
        .iter()
        .filter(|s| {
            s.name == "GET /apis/stable.example.com/v1/namespaces/{:namespace}/crontabs/{:name}"
        })
        .count();
    assert_eq!(gets, REQUESTS / 2);
}

#[tokio::test]
async fn unprivileged_user_traceparent_linked_not_continued() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().unwrap();
    let config = collector
        .config_file(dir.path(), Some(1_000_000))
        .display()
        .to_string();
    let mut server = Server::start_with(&["--tracing-config-file", &config]);
    // Anonymous (not system:masters): kube's public-endpoint rule starts a new trace.
    let answered = server
        .anonymous()
        .get(server.url(CRONTABS_EXAMPLE))
        .header("traceparent", traceparent(TRACE_ID))
        .send()
        .await
        .unwrap();
    let code = answered.status().as_u16();
    assert!(server.terminate().success());
    let spans = collector.wait_for(Duration::from_secs(20), |spans| {
        spans.iter().any(|s| s.kind == 2)
    });
    let server_span = spans.iter().find(|s| s.kind == 2).expect("a server span");
    assert_ne!(server_span.trace_id, TRACE_ID, "a new trace");
    assert!(server_span.parent_span_id.is_empty(), "a root");
    assert_eq!(
        server_span.links,
        vec![(TRACE_ID.to_string(), PARENT_ID.to_string())]
    );
    assert_eq!(
        server_span.attributes["http.response.status_code"],
        code.to_string()
    );
}

#[test]
fn bad_config_files_refused_at_start_with_kube_texts() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    const HEAD: &str = "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\n";
    let missing = dir.path().join("missing.yaml").display().to_string();
    let cases = [
        (missing.clone(), format!("--tracing-config-file: tracing-config-file {missing} does not exist")),
        (
            file("negative.yaml", &format!("{HEAD}samplingRatePerMillion: -1\n")),
            "--tracing-config-file: failed to validate tracing configuration: samplingRatePerMillion: Invalid value: -1: sampling rate must be positive".into(),
        ),
        (
            file("large.yaml", &format!("{HEAD}samplingRatePerMillion: 1000001\n")),
            "--tracing-config-file: failed to validate tracing configuration: samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million".into(),
        ),
        (
            file("scheme.yaml", &format!("{HEAD}endpoint: http://127.0.0.1:4317\n")),
            "--tracing-config-file: failed to validate tracing configuration: endpoint: Invalid value: \"http://127.0.0.1:4317\": unsupported scheme: http.".into(),
        ),
        (
            file("unknown.yaml", &format!("{HEAD}samplingRate: 5\n")),
            "--tracing-config-file: failed to read tracing config: unable to decode tracing configuration data: strict decoding error: unknown field \"samplingRate\"".into(),
        ),
    ];
    for (path, want) in cases {
        let data = dir.path().join("data");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
            .current_dir(common::repo_root())
            .args(["--crd-dir", "manifests/examples", "--secure-port", "0"])
            .args([
                "--bind-address",
                "127.0.0.1",
                "--tracing-config-file",
                &path,
            ])
            .arg("--data-dir")
            .arg(&data)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(64), "{path}: {stderr}");
        assert!(
            stderr.contains(&want),
            "{path}: want {want:?} in:\n{stderr}"
        );
        assert!(out.stdout.is_empty(), "nothing listens");
        assert!(!data.exists(), "no store was opened");
    }
}
