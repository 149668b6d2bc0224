//! The real kubectl against the dev server: the seeds' CronTab walk-through.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{KUBECTL, Server};

fn crontab_manifest() -> String {
    common::repo_root()
        .join("manifests/examples/objects/crontab.yaml")
        .display()
        .to_string()
}

#[test]
fn kubectl_crontab_walkthrough_behaves_like_kube() {
    let server = Server::start();
    let applied = server.kubectl_ok(&["apply", "-f", &crontab_manifest()]);
    assert!(
        applied.contains("crontab.stable.example.com/my-new-cron-object created"),
        "{applied}"
    );

    // Printer columns: Name, then the CRD's Spec, Replicas, Age.
    let table = server.kubectl_ok(&["get", "crontabs"]);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "SPEC", "REPLICAS", "AGE"], "{table}");
    assert!(
        table.contains("my-new-cron-object") && table.contains("* * * * */5"),
        "{table}"
    );

    // Short name and singular name.
    assert!(
        server
            .kubectl_ok(&["get", "ct"])
            .contains("my-new-cron-object")
    );
    let yaml = server.kubectl_ok(&["get", "crontab", "my-new-cron-object", "-o", "yaml"]);
    assert!(
        yaml.contains("image: my-awesome-cron-image") && yaml.contains("uid:"),
        "{yaml}"
    );

    // -o yaml round-trips: applying the output back is accepted unchanged.
    let path = common::write_temp(&server, "roundtrip.yaml", &yaml);
    let out = server.kubectl_ok(&["apply", "-f", path.to_str().unwrap()]);
    assert!(
        out.contains("unchanged") || out.contains("configured"),
        "{out}"
    );

    server.kubectl_ok(&[
        "patch",
        "ct",
        "my-new-cron-object",
        "--type=merge",
        "-p",
        r#"{"spec":{"replicas":2}}"#,
    ]);
    server.kubectl_ok(&[
        "patch",
        "ct",
        "my-new-cron-object",
        "--type=json",
        "-p",
        r#"[{"op":"replace","path":"/spec/image","value":"img:2"}]"#,
    ]);
    server.kubectl_ok(&["label", "ct", "my-new-cron-object", "tier=batch"]);
    server.kubectl_ok(&["annotate", "ct", "my-new-cron-object", "note=hello"]);
    let got = server.kubectl_ok(&["get", "ct", "my-new-cron-object", "-o", "jsonpath={.spec.replicas} {.spec.image} {.metadata.labels.tier} {.metadata.annotations.note}"]);
    assert_eq!(got, "2 img:2 batch hello");
    assert!(
        server
            .kubectl_ok(&["get", "ct", "-l", "tier=batch"])
            .contains("my-new-cron-object")
    );
    assert!(
        !server
            .kubectl_ok(&["get", "ct", "-l", "tier!=batch"])
            .contains("my-new-cron-object")
    );

    let scaled = server.kubectl_ok(&["scale", "crontab/my-new-cron-object", "--replicas=5"]);
    assert!(scaled.contains("scaled"), "{scaled}");
    assert_eq!(
        server.kubectl_ok(&[
            "get",
            "ct",
            "my-new-cron-object",
            "-o",
            "jsonpath={.spec.replicas}"
        ]),
        "5"
    );

    let deleted = server.kubectl_ok(&["delete", "ct", "my-new-cron-object"]);
    assert!(deleted.contains("deleted"), "{deleted}");
    let out = server.kubectl(&["get", "ct", "my-new-cron-object"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("crontabs.stable.example.com \"my-new-cron-object\" not found")
    );
}

#[test]
fn kubectl_discovery_lists_groups_resources_and_categories() {
    let server = Server::start();
    let versions = server.kubectl_ok(&["api-versions"]);
    assert!(
        versions.contains("stable.example.com/v1") && versions.contains("example.org/v1"),
        "{versions}"
    );
    let resources = server.kubectl_ok(&["api-resources"]);
    let crontabs = resources
        .lines()
        .find(|l| l.starts_with("crontabs"))
        .expect(&resources);
    let cols: Vec<&str> = crontabs.split_whitespace().collect();
    assert_eq!(
        cols,
        ["crontabs", "ct", "stable.example.com/v1", "true", "CronTab"],
        "{resources}"
    );

    server.kubectl_ok(&["apply", "-f", &crontab_manifest()]);
    let widget = common::write_temp(
        &server,
        "w.yaml",
        "apiVersion: example.org/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: 3\n",
    );
    server.kubectl_ok(&["apply", "-f", widget.to_str().unwrap()]);
    let all = server.kubectl_ok(&["get", "all"]);
    assert!(all.contains("my-new-cron-object"), "{all}");
    let gadgets = server.kubectl_ok(&["get", "gadgets"]);
    assert!(gadgets.contains("w1"), "{gadgets}");
}

#[test]
fn kubectl_get_watch_shows_later_change() {
    let server = Server::start();
    server.kubectl_ok(&["apply", "-f", &crontab_manifest()]);
    let mut watch = Command::new(KUBECTL)
        .arg("--kubeconfig")
        .arg(server.kubeconfig())
        .args(["get", "ct", "-w"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("kubectl get -w");
    let stdout = watch.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // Header and the existing object first.
    let first = rx.recv_timeout(Duration::from_secs(20)).expect("header");
    assert!(first.starts_with("NAME"), "{first}");
    let existing = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("existing row");
    assert!(existing.contains("my-new-cron-object"), "{existing}");
    server.kubectl_ok(&[
        "patch",
        "ct",
        "my-new-cron-object",
        "--type=merge",
        "-p",
        r#"{"spec":{"cronSpec":"*/9 * * * *"}}"#,
    ]);
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
            if line.contains("*/9 * * * *") {
                let _ = watch.kill();
                let _ = watch.wait();
                return;
            }
            seen.push(line);
        }
    }
    let _ = watch.kill();
    let _ = watch.wait();
    panic!("kubectl get -w never showed the change; saw {seen:?}");
}
