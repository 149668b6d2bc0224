//! CRD validation rules (`x-kubernetes-validations`, CEL) end to end: one test per example
//! of the seed section "Validation rules" and per probe, plus a comparison of 60+ requests.
//! Every expected code and text was recorded from the reference apiextensions-apiserver
//! 0.36.4 (see tests/fixtures/validation_rules/: refused.expected.json, cases.jsonl,
//! compare.jsonl); refused definitions must stop our start-up with exit 64 and kube's
//! field errors on stderr.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/recorded.rs"]
mod recorded;

use std::path::PathBuf;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{Server, write_temp};
use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    common::repo_root()
        .join("tests/fixtures/validation_rules")
        .join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}

/// cel-go names the type of `self` `selfType<nanoseconds>`: the number is not reproducible.
fn without_self_type_number(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("selfType") {
        out.push_str(&rest[..at + "selfType".len()]);
        rest = rest[at + "selfType".len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

// ---- Definitions the reference refuses ------------------------------------------------

/// The CRD of refused.yaml entry `plural`: cluster-scoped, group rules.example.com, v1.
fn refused_crd(plural: &str) -> String {
    let all: Value = serde_saphyr::from_str(&read("refused.yaml")).unwrap();
    let schema = all[plural].clone();
    assert!(schema.is_object(), "no refused.yaml entry {plural}");
    let kind: String = plural
        .split('-')
        .map(|p| p[..1].to_uppercase() + &p[1..])
        .collect();
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.rules.example.com")},
        "spec": {"group": "rules.example.com", "scope": "Cluster",
            "names": {"plural": plural, "kind": kind},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": schema}}]}})
    .to_string()
}

/// `common::start_with_definitions`, but a server that starts serving instead of refusing
/// is killed after 30 s and fails the test.
fn start_refusing(crds: &std::path::Path, dir: &std::path::Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crd-apiserver"))
        .arg("--crd-dir")
        .arg(crds)
        .args(["--secure-port", "0", "--bind-address", "127.0.0.1"])
        .arg("--data-dir")
        .arg(dir.join("data"))
        .arg("--cert-dir")
        .arg(dir.join("certs"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "started on a definition the reference refuses:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Start-up on the refused CRD must exit 64 and print every field error the reference
/// answered (`<field>: <message>`), and `fragment`.
fn assert_refused(plural: &str, fragment: &str) {
    let expected: Value = serde_json::from_str(&read("refused.expected.json")).unwrap();
    let expected = &expected[plural];
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("{plural}.yaml"));
    std::fs::write(&file, refused_crd(plural)).unwrap();
    let out = start_refusing(&file, dir.path());
    assert_eq!(out.status.code(), Some(64), "{plural}: {out:?}");
    let stderr = without_self_type_number(&String::from_utf8_lossy(&out.stderr));
    let errors = expected["errors"].as_array().unwrap();
    assert!(
        !errors.is_empty() || expected["code"] == 400,
        "{plural}: the reference accepted it"
    );
    for error in errors {
        let error = without_self_type_number(error.as_str().unwrap());
        assert!(stderr.contains(&error), "missing {error:?} in:\n{stderr}");
    }
    assert!(
        stderr.contains(fragment),
        "missing {fragment:?} in:\n{stderr}"
    );
}

macro_rules! refused_tests {
    ($($test:ident: $plural:literal, $fragment:literal;)*) => {$(
        #[test]
        fn $test() {
            assert_refused($plural, $fragment);
        }
    )*};
}

refused_tests! {
    seed_compile_no_matching_overload_refused: "seed-no-matching-overload",
        "compilation failed: ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(int, bool)'";
    seed_compile_no_such_field_refused: "seed-no-such-field",
        "compilation failed: ERROR: <input>:1:5: undefined field 'nonExistingField'";
    seed_compile_has_self_invalid_argument_refused: "seed-has-self",
        "compilation failed: ERROR: <input>:1:5: invalid argument to has() macro";
    seed_cost_unbounded_list_refused_over_budget: "seed-cost-unbounded",
        "properties[foo].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x";
    seed_cost_item_rule_as_printed_is_a_syntax_error: "seed-cost-item-rule-as-printed",
        "Syntax error: extraneous input ')' expecting <EOF>";
    seed_cost_nested_list_refused_over_budget: "seed-cost-nested-list",
        "spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget";
    seed_cost_flat_list_as_printed_does_not_decode: "seed-cost-flat-list-as-printed", "";
    seed_transition_rule_on_uncorrelatable_portion_refused: "seed-transition-uncorrelatable",
        "oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[foo]";
    seed_map_key_as_printed_refused: "seed-map-key-as-printed",
        "found no matching overload for '_[_]' applied to '(selfType";
    seed_env_rule_as_printed_is_a_syntax_error: "seed-env-as-printed",
        "Syntax error: missing ')' at '<EOF>'";
    seed_env_filter_all_refused_over_budget_despite_limits: "seed-env-filter-all",
        "estimated rule cost exceeds budget by factor of more than 100x";
    seed_values_unbounded_refused_by_factor: "seed-values-unbounded",
        "estimated rule cost exceeds budget by factor of 1.101004x";
    seed_sets_unbounded_refused_over_budget: "seed-sets-unbounded",
        "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema";
    seed_message_expression_string_concat_refused_over_budget: "seed-message-expression",
        "x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x";
    seed_optional_old_self_cases_as_printed_refused: "seed-optional-old-self-cases-as-printed",
        "undeclared reference to 'has' (in container '')";
    compile_syntax_error_refused: "syntax-error",
        "compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting";
    compile_undeclared_reference_refused: "undeclared-reference",
        "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')";
    compile_cel_bind_is_not_available: "cel-bind-int",
        "undeclared reference to 'cel' (in container '')";
    compile_math_library_is_not_available: "math-greatest",
        "undeclared reference to 'math' (in container '')";
    compile_base64_library_is_not_available: "base64-encode",
        "undeclared reference to 'base64' (in container '')";
    compile_rule_returning_int_refused: "rule-returns-int",
        "}: cel expression must evaluate to a bool";
    compile_rule_returning_string_refused: "rule-returns-string",
        "cel expression must evaluate to a bool";
    transition_rule_in_set_item_refused: "oldself-in-set",
        "uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[tags]";
    transition_rule_in_atomic_list_item_refused: "oldself-in-atomic-list-item",
        "uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[items]";
    transition_rule_in_map_list_under_atomic_list_refused: "oldself-in-map-list-item-under-atomic",
        "uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[outer]";
    field_path_unknown_field_refused: "bad-field-path-unknown", "fieldPath: Invalid value: \".nope\": must be a valid path";
    field_path_numeric_index_refused: "bad-field-path-index", "Invalid value: \".list[0]\": must be a valid path";
    field_path_without_dot_refused: "bad-field-path-syntax", "Invalid value: \"a\": must be a valid path";
    reason_unknown_refused: "bad-reason",
        "reason: Unsupported value: \"Bogus\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"";
    message_expression_returning_int_refused: "message-expression-int", "messageExpression must evaluate to a string";
    message_expression_syntax_error_refused: "message-expression-syntax", "messageExpression compilation failed: ERROR: <input>:1:6";
    metadata_labels_at_root_refused: "metadata-labels-at-root", "undefined field 'labels'";
    escaping_unescaped_dash_refused: "escaped-unescaped-dash", "undefined field 'foo'";
    date_time_field_is_a_timestamp: "date-time-as-string",
        "found no matching overload for 'startsWith' applied to 'timestamp.(string)'";
    cost_per_crd_total_refused: "cost-per-crd-total",
        "exceeds budget by factor of 1.200003x";
    optional_old_self_without_old_self_refused: "optional-old-self-without-old-self",
        "optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule";
    rule_under_all_of_refused: "rule-under-all-of",
        "properties[spec].allOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural";
    cost_item_rule_times_max_items_refused: "item-rule-cost-times-cardinality",
        "items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 2.8x";
}

// ---- Requests replayed against recorded reference answers -----------------------------

async fn send(c: &reqwest::Client, server: &Server, step: &Value) -> (u16, Value) {
    let path = step["path"].as_str().unwrap();
    let mut body = step["body"].clone();
    let method = step["method"].as_str().unwrap();
    if method == "PUT" {
        // The recording filled in the current resourceVersion just before the PUT.
        let current: Value = c
            .get(server.url(path.trim_end_matches("/status")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"].clone();
    }
    let mut req = c.request(method.parse().unwrap(), server.url(path));
    if !body.is_null() {
        let ctype = step["ctype"].as_str().unwrap_or("application/json");
        req = req.header("content-type", ctype).body(body.to_string());
    }
    let resp = req.send().await.unwrap();
    let code = resp.status().as_u16();
    (code, resp.json().await.unwrap_or(Value::Null))
}

/// A dev server on a copy of one fixture file.
fn serve(crds: &str) -> (Server, PathBuf) {
    let dir = tempfile::tempdir().unwrap().keep();
    let file = dir.join(crds);
    std::fs::copy(fixture(crds), &file).unwrap();
    (
        Server::start_with(&["--crd-dir", file.to_str().unwrap()]),
        file,
    )
}

/// Replays the recorded steps of `case` (all when None) from `file`; returns the number of
/// requests and every difference found.
async fn replay(file: &str, case: Option<&str>) -> (usize, Vec<String>) {
    let steps: Vec<Value> = read(file)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|s: &Value| case.is_none_or(|c| s["case"] == json!(c)))
        .collect();
    assert!(!steps.is_empty(), "no recorded steps for {case:?}");
    let crds = steps[0]["crds"].as_str().unwrap_or("rules.yaml");
    let (mut server, crd_file) = serve(crds);
    let (mut requests, mut diffs) = (0, Vec::new());
    for (i, step) in steps.iter().enumerate() {
        if step["op"] == json!("rewrite") {
            // The reference had its CRD updated; we restart on the rewritten definition.
            let text = std::fs::read_to_string(&crd_file).unwrap();
            let (from, to) = (step["from"].as_str().unwrap(), step["to"].as_str().unwrap());
            assert!(text.contains(from), "{from} not in {crds}");
            std::fs::write(&crd_file, text.replace(from, to)).unwrap();
            server = server.restart();
            continue;
        }
        requests += 1;
        let (code, body) = send(&server.client(), &server, step).await;
        for d in recorded::differences(step, code, &body, None) {
            diffs.push(format!(
                "[{} step {i}] {} {}: {d}",
                step["case"], step["method"], step["path"]
            ));
        }
    }
    (requests, diffs)
}

async fn assert_case(file: &str, case: &str) {
    let (_, diffs) = replay(file, Some(case)).await;
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

macro_rules! case_tests {
    ($file:literal: $($case:ident)*) => {$(
        #[tokio::test]
        async fn $case() {
            assert_case($file, stringify!($case)).await;
        }
    )*};
}

case_tests! { "cases.jsonl":
    seed_crontab_rule_with_message_rejects_create
    seed_crontab_rule_without_message_reports_failed_rule
    seed_crontab_schema_error_blocks_rules
    seed_crontab_dry_run_validates_without_storing
    ratcheting_unchanged_value_skips_stricter_rule
    examples_ordered_replicas
    examples_key_in_map
    examples_one_of_two_lists
    examples_map_value_for_key
    examples_list_map_entry_value
    examples_timestamps_and_duration
    examples_string_prefix
    examples_list_map_exists
    examples_int_or_string_both_cases
    examples_name_has_prefix_of_field
    examples_disjoint_sets
    examples_map_keyed_by_set
    examples_single_primary
    examples_map_of_objects
    examples_list_of_integers
    examples_string_scalar
    scopes_root_rule_sees_spec_and_status
    scopes_object_map_list_scalar
    escaping_property_names
    transition_rules_apply_to_updates_only
    optional_old_self_seed_examples
    message_expression_reason_field_path_seed_examples
    resource_use_seed_rules_with_limits
}

case_tests! { "compare.jsonl":
    probe_two_rules_fail_in_rule_order
    probe_message_expression_fallbacks
    probe_reasons_set_cause_type
    probe_schema_errors_block_rules
    probe_runtime_errors
    probe_runtime_cost_limit
    probe_formats_and_int_or_string
    probe_escaped_property_name
    probe_list_item_rules
    probe_list_map_item_transition
    probe_map_value_rules
    probe_optional_old_self_on_create
    probe_metadata_name_at_root
    probe_status_subresource_rules
    probe_updates_put_and_json_patch
    probe_dry_run_create
    probe_ratcheting_unchanged_rule_failure
}

#[tokio::test]
async fn comparison_probe_requests_match_reference_codes_and_statuses() {
    let (requests, diffs) = replay("compare.jsonl", None).await;
    assert!(requests >= 60, "only {requests} recorded requests");
    assert!(
        diffs.is_empty(),
        "{} of {requests} requests differ:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

// ---- The seed's texts, spelled out ------------------------------------------------------

#[tokio::test]
async fn seed_crontab_rule_failure_status_as_kube_and_kubectl() {
    let (server, _) = serve("crontab.yaml");
    let crontab = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "my-new-cron-object"},
        "spec": {"minReplicas": 0, "replicas": 20, "maxReplicas": 10}});
    let resp = server
        .client()
        .post(server.url("/apis/stable.example.com/v1/namespaces/default/crontabs"))
        .json(&crontab)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 422);
    let status: Value = resp.json().await.unwrap();
    // 0.36 leaves an object's value out of "Invalid value:" (the seed shows an older Go map).
    let cause = "Invalid value: replicas should be smaller than or equal to maxReplicas.";
    assert_eq!(
        status["message"],
        format!("CronTab.stable.example.com \"my-new-cron-object\" is invalid: spec: {cause}")
    );
    assert_eq!(
        status["details"]["causes"],
        json!([{"reason": "FieldValueInvalid", "field": "spec", "message": cause}])
    );
    let file = write_temp(&server, "my-crontab.json", &crontab.to_string());
    let out = server.kubectl(&["create", "--validate=false", "-f", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("The CronTab \"my-new-cron-object\" is invalid")
            && stderr.contains(&format!("spec: {cause}")),
        "{stderr}"
    );
}

#[tokio::test]
async fn blocking_schema_error_skips_rules_with_a_nil_field_cause() {
    let (server, _) = serve("rules.yaml");
    let probe = json!({"apiVersion": "rules.example.com/v1", "kind": "Probe",
        "metadata": {"name": "b"}, "spec": {"blocked": {"small": 4, "level": "c"}}});
    let resp = server
        .client()
        .post(server.url("/apis/rules.example.com/v1/probes"))
        .json(&probe)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 422);
    let status: Value = resp.json().await.unwrap();
    let enum_error = "Unsupported value: \"c\": supported values: \"a\", \"b\"";
    let skipped = "Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";
    assert_eq!(
        status["message"],
        format!(
            "Probe.rules.example.com \"b\" is invalid: [spec.blocked.level: {enum_error}, <nil>: {skipped}]"
        )
    );
    assert_eq!(
        status["details"]["causes"],
        json!([
            {"reason": "FieldValueNotSupported", "field": "spec.blocked.level", "message": enum_error},
            {"reason": "FieldValueInvalid", "field": "<nil>", "message": skipped}
        ])
    );
}
