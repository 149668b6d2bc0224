//! The layering of `src/`: a top-level module may refer (`crate::x`, or `super::` paths
//! that climb to the crate root) only to modules listed after it in [`ORDER`], the one
//! place the order is written down. Test code (`#[cfg(test)]` modules, files named
//! `tests.rs`, files under a `tests/` folder, files declared by a `#[cfg(test)] mod x;`)
//! is exempt, and so are `lib.rs` and `main.rs`. Comments and literals are not code.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

#[path = "layering/files.rs"]
mod files;
#[path = "layering/lex.rs"]
mod lex;
#[path = "layering/parse.rs"]
mod parse;

use std::collections::BTreeSet;

use files::{declared_modules, read, source_files, src_dir};
use parse::references;

/// The request path, top down: a module may import only modules listed after it.
const ORDER: &[(&str, &str)] = &[
    (
        "server",
        "connection, TLS, the filter chain (`server/chain.rs`), start-up wiring (`run.rs`), shutdown",
    ),
    (
        "migrate",
        "the `migrate` command: a client of a running server rewriting objects at their storage version",
    ),
    (
        "offload",
        "offload mode: the host's selected CRDs taken over (fence, copy, switch) and given back",
    ),
    (
        "register",
        "self-registration: our APIServices, our serving CA Secret, unregister",
    ),
    ("authn", "who is asking (front proxy, x509, TokenReview)"),
    (
        "authz",
        "may they (always-allow, SubjectAccessReview), and impersonation (moved here from authn)",
    ),
    (
        "handlers",
        "the verbs, the write strategy, the wire encoding; get an authorized request",
    ),
    (
        "admission",
        "kube's admission chain (NamespaceLifecycle now; webhooks and policies next)",
    ),
    (
        "conversion",
        "custom resources between their versions: the webhook and declarative converters, the factory the catalog uses",
    ),
    (
        "webhook",
        "the pooled HTTPS client every webhook is called through (admission and conversion)",
    ),
    (
        "config",
        "command-line flags into a validated configuration (start-up vocabulary)",
    ),
    (
        "watch",
        "storage events into watch events, per-watcher queues, per-user limit",
    ),
    ("crd", "CRDs into the served catalog"),
    ("table", "server-side printing"),
    ("meta", "ObjectMeta rules"),
    (
        "schema",
        "structural schema, pruning, defaulting, validation, CEL rules (the adaptor to cel's schema trait lives here)",
    ),
    (
        "cel",
        "the CEL engine: sees a schema only through its own small trait",
    ),
    (
        "storage",
        "revisioned key/value store, backends, watch cache (its metric labels live with it)",
    ),
    (
        "inflight",
        "the in-flight request budgets, kube's max-in-flight: drawn on by the filter chain and by a watch's initial list",
    ),
    (
        "audit",
        "kube's auditing: the policy, the per-request context the stages record into, audit.k8s.io events, the log and webhook backends",
    ),
    (
        "cluster",
        "the one client to the host cluster (kubeconfig / in-cluster, TokenReview/SAR caches, informers)",
    ),
    (
        "request",
        "request vocabulary: RequestInfo, query, options, negotiation, body decoding, and the user (`request::user::UserInfo`, as kube carries the user on the request context)",
    ),
    ("selector", "label/field selectors"),
    (
        "telemetry",
        "request tracing: TracingConfiguration, OpenTelemetry spans over OTLP, W3C traceparent in and out",
    ),
    (
        "metrics",
        "Prometheus registry: a leaf others register into (no imports of crd/request/storage)",
    ),
    (
        "error",
        "ApiError and its one conversion into metav1.Status",
    ),
    ("fieldmanager", "structured-merge-diff engine (a library)"),
    (
        "formats",
        "leaf text helpers shared by schema and cel: Go regexp (goregex), pattern, string formats (names may differ; decided by the cel-leaf engineer)",
    ),
    ("gofmt", "Go's texts"),
    ("validation", "leaf validators (DNS labels, subdomains)"),
];

// ---------------------------------------------------------------- the checks on src/

#[test]
fn src_references_against_the_order_none() {
    let src = src_dir();
    let modules = declared_modules(&read(&src.join("lib.rs")));
    let mut problems = Vec::new();
    for file in source_files(&src).expect("walk src/") {
        let text = read(&src.join(&file.path));
        for (line, target) in references(&text, file.depth) {
            if let Some(problem) = against_order(&file.module, &target)
                && modules.contains(&target)
            {
                problems.push(format!("src/{}:{line}: {problem}", file.path.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} reference(s) run against the layering order (tests/layering.rs ORDER; a module \
         may import only modules listed after it):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn layer_table_against_lib_rs_names_every_module_once() {
    let src = src_dir();
    let declared = declared_modules(&read(&src.join("lib.rs")));
    let problems = table_problems(&declared, |name| {
        src.join(format!("{name}.rs")).is_file() || src.join(name).join("mod.rs").is_file()
    });
    assert!(
        problems.is_empty(),
        "the layering table (tests/layering.rs ORDER) and src/lib.rs disagree:\n{}",
        problems.join("\n")
    );
}

/// Every problem between the table and the modules `lib.rs` declares: a module missing
/// from the table, one the table names that is not declared, a declared module with no
/// file, a module the table names twice.
fn table_problems(declared: &BTreeSet<String>, has_file: impl Fn(&str) -> bool) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for (name, _) in ORDER {
        if !seen.insert(*name) {
            problems.push(format!("{name}: named twice in the table"));
        }
        if !declared.contains(*name) {
            problems.push(format!(
                "{name}: in the table but not a module of src/lib.rs (remove it from the table)"
            ));
        }
    }
    for name in declared {
        if !seen.contains(name.as_str()) {
            problems.push(format!(
                "{name}: a module of src/lib.rs missing from the table (place it in the order)"
            ));
        }
        if !has_file(name) {
            problems.push(format!(
                "{name}: neither src/{name}.rs nor src/{name}/mod.rs exists"
            ));
        }
    }
    problems
}

/// `a -> b (b is before a in the order)` when `a` may not refer to `b`; `None` when it
/// may, or when either is not in the table (the table check reports that).
fn against_order(from: &str, to: &str) -> Option<String> {
    let rank = |name: &str| ORDER.iter().position(|(module, _)| *module == name);
    match (rank(from), rank(to)) {
        (Some(a), Some(b)) if b < a => Some(format!(
            "{from} -> {to} ({to} is before {from} in the order)"
        )),
        _ => None,
    }
}

#[test]
fn against_order_of_module_pairs_flags_only_upward_references() {
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("server", "handlers", None),
        (
            "handlers",
            "server",
            Some("handlers -> server (server is before handlers in the order)"),
        ),
        (
            "cel",
            "schema",
            Some("cel -> schema (schema is before cel in the order)"),
        ),
        ("schema", "cel", None),
        (
            "metrics",
            "storage",
            Some("metrics -> storage (storage is before metrics in the order)"),
        ),
        ("storage", "storage", None),
        ("namespaces", "server", None),
    ];
    for (from, to, want) in cases {
        assert_eq!(against_order(from, to).as_deref(), *want, "{from} -> {to}");
    }
}

#[test]
fn table_problems_of_module_sets_name_missing_and_unknown_modules() {
    let mut declared: BTreeSet<String> = ORDER.iter().map(|(m, _)| (*m).to_owned()).collect();
    assert_eq!(table_problems(&declared, |_| true), Vec::<String>::new());

    declared.remove("formats");
    declared.insert("namespaces".to_owned());
    let problems = table_problems(&declared, |name| name != "namespaces");
    assert_eq!(
        problems,
        [
            "formats: in the table but not a module of src/lib.rs (remove it from the table)",
            "namespaces: a module of src/lib.rs missing from the table (place it in the order)",
            "namespaces: neither src/namespaces.rs nor src/namespaces/mod.rs exists",
        ]
    );
}
