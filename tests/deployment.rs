//! The in-cluster deployment: `hack/gen-pki.sh` run into a temporary copy of the
//! repository's manifests, then `kubectl kustomize` must render every object the install
//! needs, and each APIService's caBundle must verify the serving certificate the script
//! made for the Service's DNS name. Needs bash, openssl and kubectl (CI installs them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use base64::Engine;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use serde_json::Value;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Runs the PKI script and kustomize in a temp dir; returns the dir and the objects.
fn render() -> (tempfile::TempDir, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let manifests = dir.path().join("manifests");
    copy_dir(&common::repo_root().join("manifests"), &manifests);
    let script = common::repo_root().join("hack/gen-pki.sh");
    let out = Command::new("bash")
        .arg(&script)
        .env("PKI_DIR", dir.path().join("pki"))
        .env("MANIFESTS_DIR", &manifests)
        .output()
        .expect("run bash hack/gen-pki.sh (bash and openssl are required)");
    assert!(
        out.status.success(),
        "gen-pki.sh failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        Path::new(common::KUBECTL).exists(),
        "kubectl is required at {}: install it with `hack/install-deps.sh`",
        common::KUBECTL
    );
    let out = Command::new(common::KUBECTL)
        .arg("kustomize")
        .arg(&manifests)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kubectl kustomize failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains("insecureSkipTLSVerify"),
        "no insecureSkipTLSVerify anywhere"
    );
    (dir, serde_saphyr::from_multiple::<Value>(&text).unwrap())
}

fn find<'a>(objects: &'a [Value], kind: &str) -> Vec<&'a Value> {
    objects.iter().filter(|o| o["kind"] == kind).collect()
}

fn one<'a>(objects: &'a [Value], kind: &str) -> &'a Value {
    let found = find(objects, kind);
    assert_eq!(found.len(), 1, "exactly one {kind}");
    found[0]
}

fn verify_serving(ca_bundle_b64: &str, serving_cert: &Path, host: &str) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let compact: String = ca_bundle_b64.split_whitespace().collect();
    let pem = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .unwrap();
    let mut roots = rustls::RootCertStore::empty();
    for ca in CertificateDer::pem_slice_iter(&pem) {
        roots.add(ca.unwrap()).unwrap();
    }
    assert!(!roots.is_empty(), "caBundle holds a certificate");
    let leaf = CertificateDer::from_pem_file(serving_cert).unwrap();
    let verifier = WebPkiServerVerifier::builder(Arc::new(roots))
        .build()
        .unwrap();
    let name = ServerName::try_from(host.to_string()).unwrap();
    verifier
        .verify_server_cert(&leaf, &[], &name, &[], UnixTime::now())
        .unwrap_or_else(|e| {
            panic!("caBundle does not verify the serving certificate for {host}: {e}")
        });
}

/// The served (group, version) pairs of the example CRDs the kustomization ships.
fn served_group_versions() -> BTreeSet<(String, String)> {
    let paths: Vec<PathBuf> = ["crontab-crd.yaml", "widget-crd.yaml"]
        .iter()
        .map(|f| common::repo_root().join("manifests/examples").join(f))
        .collect();
    let crds = crd_apiserver::crd::load::load_paths(&paths).unwrap();
    crds.iter()
        .flat_map(|l| {
            let group = l.crd.spec.group.clone();
            l.crd
                .spec
                .versions
                .iter()
                .filter(|v| v.served)
                .map(move |v| (group.clone(), v.name.clone()))
        })
        .collect()
}

#[test]
fn kustomize_renders_apiservices_with_ca_bundle_verifying_serving_cert() {
    let (dir, objects) = render();
    let apiservices = find(&objects, "APIService");
    let listed: BTreeSet<(String, String)> = apiservices
        .iter()
        .map(|a| {
            (
                a["spec"]["group"].as_str().unwrap().into(),
                a["spec"]["version"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        served_group_versions(),
        "one APIService per served group/version"
    );
    for api in apiservices {
        let service = &api["spec"]["service"];
        let host = format!(
            "{}.{}.svc",
            service["name"].as_str().unwrap(),
            service["namespace"].as_str().unwrap()
        );
        let bundle = api["spec"]["caBundle"]
            .as_str()
            .unwrap_or_else(|| panic!("{} has no caBundle", api["metadata"]["name"]));
        verify_serving(bundle, &dir.path().join("pki/serving.crt"), &host);
    }
}

#[test]
fn kustomize_renders_rbac_service_and_hardened_deployment() {
    let (_dir, objects) = render();
    assert_eq!(
        one(&objects, "Namespace")["metadata"]["name"],
        "crd-apiserver"
    );
    assert_eq!(
        one(&objects, "ServiceAccount")["metadata"]["name"],
        "crd-apiserver"
    );
    let cluster_roles: BTreeSet<&str> = find(&objects, "ClusterRoleBinding")
        .iter()
        .filter_map(|b| b["roleRef"]["name"].as_str())
        .collect();
    assert_eq!(
        cluster_roles,
        BTreeSet::from([
            "crd-apiserver:admission-config-reader",
            "crd-apiserver:namespace-reader",
            "system:auth-delegator"
        ])
    );
    let rules = |name: &str| {
        find(&objects, "ClusterRole")
            .into_iter()
            .find(|r| r["metadata"]["name"] == name)
            .unwrap_or_else(|| panic!("no ClusterRole {name}"))["rules"]
            .clone()
    };
    // NamespaceLifecycle follows the cluster's namespaces (get for the live lookup).
    assert_eq!(
        rules("crd-apiserver:namespace-reader"),
        serde_json::json!([{"apiGroups": [""], "resources": ["namespaces"],
            "verbs": ["get", "list", "watch"]}])
    );
    // The webhook plugins follow the cluster's webhook configurations, the policy plugins
    // its admission policies and their bindings.
    assert_eq!(
        rules("crd-apiserver:admission-config-reader"),
        serde_json::json!([{"apiGroups": ["admissionregistration.k8s.io"],
            "resources": ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"],
            "verbs": ["list", "watch"]},
            {"apiGroups": ["admissionregistration.k8s.io"],
            "resources": ["mutatingadmissionpolicies", "mutatingadmissionpolicybindings",
                "validatingadmissionpolicies", "validatingadmissionpolicybindings"],
            "verbs": ["list", "watch"]}])
    );
    let reader = one(&objects, "RoleBinding");
    assert_eq!(reader["metadata"]["namespace"], "kube-system");
    assert_eq!(
        reader["roleRef"]["name"],
        "extension-apiserver-authentication-reader"
    );
    assert_eq!(one(&objects, "Service")["spec"]["ports"][0]["port"], 443);
    let crds = find(&objects, "ConfigMap");
    assert!(crds.iter().any(|c| {
        c["data"]["crontab-crd.yaml"]
            .as_str()
            .is_some_and(|t| t.contains("CustomResourceDefinition"))
    }));

    let deployment = one(&objects, "Deployment");
    let pod = &deployment["spec"]["template"]["spec"];
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    assert_eq!(pod["serviceAccountName"], "crd-apiserver");
    let container = &pod["containers"][0];
    assert_eq!(container["securityContext"]["readOnlyRootFilesystem"], true);
    assert_eq!(
        container["securityContext"]["allowPrivilegeEscalation"],
        false
    );
    assert_eq!(container["livenessProbe"]["httpGet"]["path"], "/livez");
    assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/readyz");
    assert!(container["resources"]["requests"]["cpu"].is_string());
    assert!(container["resources"]["requests"]["memory"].is_string());
    let secret = one(&objects, "Secret");
    let mounted = pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|v| v["secret"]["secretName"] == secret["metadata"]["name"]);
    assert!(mounted, "the generated serving Secret is the one mounted");
}

#[test]
fn gen_pki_rerun_keeps_ca_and_renews_leaf() {
    let dir = tempfile::tempdir().unwrap();
    let run = || {
        let out = Command::new("bash")
            .arg(common::repo_root().join("hack/gen-pki.sh"))
            .env("PKI_DIR", dir.path().join("pki"))
            .env("MANIFESTS_DIR", dir.path().join("manifests"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let read = |f: &str| std::fs::read_to_string(dir.path().join("pki").join(f)).unwrap();
        (read("serving-ca.crt"), read("serving.crt"))
    };
    let (ca1, leaf1) = run();
    let (ca2, leaf2) = run();
    assert_eq!(ca1, ca2, "the CA (and so every caBundle) survives a re-run");
    assert_ne!(leaf1, leaf2, "the serving certificate is renewed");
    let b64 = base64::engine::general_purpose::STANDARD.encode(&ca2);
    verify_serving(
        &b64,
        &dir.path().join("pki/serving.crt"),
        "crd-apiserver.crd-apiserver.svc",
    );
}
