//! Start-up with objects stored at a version the definition no longer lists: refused
//! with exit 64 naming resource, version and count (counted by the watch cache, or from
//! the store when the cache is off), started with `--allow-unmigrated-versions`, and never
//! refused for a version kept with `served: false`. On etcd, so the servers share a store.

use std::process::Stdio;

use super::*;

/// Runs a server (dev mode, its own PKI) on `etcd` and `crds` that must exit on its own;
/// its exit code and stderr.
fn exits(etcd: &etcd::Etcd, crds: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .current_dir(common::repo_root())
        .arg("dev")
        .args(["--secure-port", "0", "--bind-address", "127.0.0.1"])
        .arg("--dev-pki-dir")
        .arg(dir.path().join("pki"))
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .args(["--etcd-servers", etcd.endpoint.as_str()])
        .args(on(crds))
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + PATIENCE;
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the server did not exit");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn startup_unmigrated_version_exits_64_unless_allowed() {
    let etcd = etcd::Etcd::start();
    let base = tempfile::tempdir().unwrap();
    let (v1, v2_only) = (
        write_crd(base.path(), "v1", V1),
        write_crd(base.path(), "v2", &[("v2", true, true)]),
    );
    let unserved = write_crd(
        base.path(),
        "unserved",
        &[("v1", false, false), ("v2", true, true)],
    );
    let etcd_flag = ["--etcd-servers", etcd.endpoint.as_str()];
    let writer =
        Server::start_with(&[&etcd_flag[..], &["--crd-dir", v1.to_str().unwrap()]].concat());
    create_at(&writer, "v1", &names("a", 3)).await;
    wait_counts(&writer, &[("v1", 3)]).await;
    drop(writer);

    let line = format!(
        "{RESOURCE}: 3 objects stored at version \"v1\", which spec.versions no longer lists (spec.versions: v2)"
    );
    for extra in [&[][..], &["--default-watch-cache-size", "0"]] {
        let (code, stderr) = exits(&etcd, &v2_only, extra);
        assert_eq!(code, Some(64), "{extra:?}: {stderr}");
        assert!(stderr.contains(&line), "{extra:?}: {stderr}");
        assert!(stderr.contains("--allow-unmigrated-versions"), "{stderr}");
    }

    // Allowed: it serves, and says what it cannot read.
    let allowed = Server::start_with(
        &[
            &etcd_flag[..],
            &[
                "--crd-dir",
                v2_only.to_str().unwrap(),
                "--allow-unmigrated-versions",
            ],
        ]
        .concat(),
    );
    wait_counts(&allowed, &[("v1", 3)]).await;
    let warning = [
        "objects stored at a version spec.versions no longer lists",
        "version=v1",
        "objects=3",
    ];
    allowed.log.wait_for(&warning, PATIENCE);
    drop(allowed);

    // v1 kept with served: false is kube's deprecation step: no flag needed.
    let kept =
        Server::start_with(&[&etcd_flag[..], &["--crd-dir", unserved.to_str().unwrap()]].concat());
    wait_counts(&kept, &[("v1", 3)]).await;
}
