//! The in-cluster deployment: `kubectl kustomize` of the repository's manifests must
//! render every object the install needs — the server registering its own APIServices
//! with its own serving CA Secret, and the RBAC both need — and `hack/gen-pki.sh` (for
//! installs with `--tls-cert-file` and `--apiservice-ca-file`) must make a serving
//! certificate its CA verifies. Needs bash, openssl and kubectl (CI installs them).

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

/// Renders a temporary copy of the manifests with kustomize; the dir and the objects.
fn render() -> (tempfile::TempDir, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let manifests = dir.path().join("manifests");
    copy_dir(&common::repo_root().join("manifests"), &manifests);
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

/// The value of `--flag=` in `args`.
fn arg<'a>(args: &'a [Value], flag: &str) -> Option<&'a str> {
    args.iter()
        .filter_map(Value::as_str)
        .find_map(|a| a.strip_prefix(&format!("{flag}=")))
}

#[test]
fn kustomize_renders_self_registration_flags_and_their_rbac() {
    let (_dir, objects) = render();
    assert!(
        find(&objects, "APIService").is_empty(),
        "the server registers its APIServices itself"
    );
    assert!(
        find(&objects, "Secret").is_empty(),
        "the server makes its CA"
    );
    let deployment = one(&objects, "Deployment");
    let args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
        .as_array()
        .unwrap();
    assert!(args.iter().any(|a| a == "--register-apiservices"));
    let secret = arg(args, "--serving-ca-secret").expect("--serving-ca-secret");
    let (namespace, name) = secret.split_once('/').unwrap();
    let service = one(&objects, "Service");
    assert_eq!(
        arg(args, "--service-name"),
        service["metadata"]["name"].as_str()
    );
    assert_eq!(
        arg(args, "--service-namespace"),
        service["metadata"]["namespace"].as_str()
    );
    assert_eq!(arg(args, "--service-port"), Some("443"));
    // The CRDs' served group/versions are what the server registers.
    assert!(!served_group_versions().is_empty());

    let registrar = find(&objects, "ClusterRole")
        .into_iter()
        .find(|r| r["metadata"]["name"] == "crd-apiserver:apiservice-registrar")
        .expect("the registrar ClusterRole");
    assert_eq!(
        registrar["rules"],
        serde_json::json!([{"apiGroups": ["apiregistration.k8s.io"], "resources": ["apiservices"],
            "verbs": ["get", "list", "watch", "create", "patch", "update", "delete"]}])
    );
    let role = find(&objects, "Role")
        .into_iter()
        .find(|r| r["metadata"]["name"] == "crd-apiserver:serving-ca")
        .expect("the serving CA Role");
    assert_eq!(role["metadata"]["namespace"], namespace);
    assert_eq!(
        role["rules"],
        serde_json::json!([
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]},
            {"apiGroups": [""], "resources": ["secrets"], "resourceNames": [name],
                "verbs": ["get", "update"]}])
    );
    let bound = |kind: &str, role: &str| {
        find(&objects, kind).iter().any(|b| {
            b["roleRef"]["name"] == role
                && b["subjects"][0]["name"] == "crd-apiserver"
                && b["subjects"][0]["namespace"] == namespace
        })
    };
    assert!(bound(
        "ClusterRoleBinding",
        "crd-apiserver:apiservice-registrar"
    ));
    assert!(bound("RoleBinding", "crd-apiserver:serving-ca"));
}

#[test]
fn unregister_job_unregisters_only_our_service_after_scale_down() {
    let path = common::repo_root().join("manifests/uninstall/unregister-job.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let objects: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
    let job = one(&objects, "Job");
    let pod = &job["spec"]["template"]["spec"];
    assert_eq!(
        pod["containers"][0]["args"],
        serde_json::json!(["unregister", "--service=crd-apiserver/crd-apiserver"])
    );
    let scale = pod["initContainers"][0]["command"].to_string();
    assert!(
        scale.contains("scale deployment/crd-apiserver --replicas=0"),
        "{scale}"
    );
    let deleter = one(&objects, "ClusterRole");
    assert_eq!(
        deleter["rules"],
        serde_json::json!([{"apiGroups": ["apiregistration.k8s.io"], "resources": ["apiservices"],
            "verbs": ["list", "delete"]},
            {"apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"],
            "verbs": ["list"]}])
    );
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
            "crd-apiserver:apiservice-registrar",
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
    let reader = find(&objects, "RoleBinding")
        .into_iter()
        .find(|b| b["metadata"]["namespace"] == "kube-system")
        .expect("the RoleBinding in kube-system");
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
    let cert_dir = arg(container["args"].as_array().unwrap(), "--cert-dir").unwrap();
    let mount = container["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mountPath"] == cert_dir)
        .expect("--cert-dir is a mounted volume (the root filesystem is read-only)");
    let volume = pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == mount["name"])
        .unwrap();
    assert_eq!(
        volume["emptyDir"]["medium"], "Memory",
        "the key stays off disk"
    );
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
