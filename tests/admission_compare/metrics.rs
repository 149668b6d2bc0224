//! The admission metrics (issue 30, point 7) after a scenario, against the reference's
//! (tests/fixtures/admission/metrics.json): every family's HELP and TYPE lines, and the
//! webhook families' series (counters and histogram counts) with their labels and values.
//! The step and per-plugin families' series are not compared: the reference counts the
//! recorder's CRD creations in them, which our server (CRDs from --crd-dir) never sees.

use std::collections::BTreeSet;

/// The families recorded, as record.py's `METRIC_PREFIXES`.
const PREFIXES: [&str; 3] = [
    "apiserver_admission_webhook_",
    "apiserver_admission_step_admission_duration_seconds",
    "apiserver_admission_controller_admission_duration_seconds",
];
/// The families whose series are compared.
const SERIES_COMPARED: &str = "apiserver_admission_webhook_";

/// A line's metric name: the third word of `# HELP name ...`, else up to `{` or space.
fn name(line: &str) -> &str {
    match line.strip_prefix("# ") {
        Some(rest) => rest.split(' ').nth(1).unwrap_or_default(),
        None => line.split(['{', ' ']).next().unwrap_or_default(),
    }
}

/// record.py's filter: HELP/TYPE lines, counters and `_count` series of the families.
pub fn admission_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| PREFIXES.iter().any(|p| name(l).starts_with(p)))
        .filter(|l| {
            l.starts_with("# ")
                || !(name(l).ends_with("_bucket")
                    || name(l).ends_with("_sum")
                    || l.contains("quantile="))
        })
        .map(str::to_string)
        .collect()
}

/// kube's families we do not serve: the client library has no summary type (the
/// histogram of the same name carries the same observations).
const NOT_SERVED: [&str; 1] = ["apiserver_admission_step_admission_duration_seconds_summary"];

/// One line in a form both expositions share. kube's is Prometheus text 0.0.4, ours
/// OpenMetrics (the project's `/metrics`): a counter family is named without `_total`
/// there and its series with it (`rejection_count` becomes `rejection_count_total`), and
/// label order is the library's. So `_total` is dropped from names and labels are sorted;
/// HELP texts, TYPEs, label values and values are compared as they are.
fn canonical(line: &str) -> String {
    let strip = |n: &str| n.strip_suffix("_total").unwrap_or(n).to_string();
    if let Some(rest) = line.strip_prefix("# ") {
        let mut words = rest.splitn(3, ' ');
        let (what, family, text) = (words.next(), words.next(), words.next());
        return format!(
            "# {} {} {}",
            what.unwrap_or_default(),
            strip(family.unwrap_or_default()),
            text.unwrap_or_default()
        );
    }
    let (series, value) = line.rsplit_once(' ').unwrap_or((line, ""));
    let (metric, labels) = match series.split_once('{') {
        Some((m, l)) => (m, l.trim_end_matches('}')),
        None => (series, ""),
    };
    let mut pairs: Vec<&str> = labels.split(',').filter(|p| !p.is_empty()).collect();
    pairs.sort_unstable();
    format!("{}{{{}}} {value}", strip(metric), pairs.join(","))
}

/// The lines compared: HELP/TYPE of every family, series of the webhook families.
fn compared(lines: &[String]) -> BTreeSet<String> {
    lines
        .iter()
        .filter(|l| !NOT_SERVED.contains(&name(l)))
        .filter(|l| l.starts_with("# ") || name(l).starts_with(SERIES_COMPARED))
        .map(|l| canonical(l))
        .collect()
}

/// Lines the reference had and we lack, and series we have and it lacked. A family we
/// declare without a series yet (kube prints one only once it has a series) is no
/// difference.
pub fn differences(ours: &[String], recorded: &[String]) -> Vec<String> {
    let (ours, theirs) = (compared(ours), compared(recorded));
    let missing = theirs
        .difference(&ours)
        .map(|l| format!("metrics: missing {l}"));
    let extra = ours
        .difference(&theirs)
        .filter(|l| !l.starts_with("# "))
        .map(|l| format!("metrics: not kube's {l}"));
    missing.chain(extra).collect()
}

#[test]
fn canonical_drops_total_and_sorts_labels() {
    let cases = [
        (
            "apiserver_admission_webhook_rejection_count_total{name=\"w\",type=\"validating\",error_type=\"no_error\"} 2",
            "apiserver_admission_webhook_rejection_count{error_type=\"no_error\",name=\"w\",type=\"validating\"} 2",
        ),
        (
            "# TYPE apiserver_admission_webhook_request_total counter",
            "# TYPE apiserver_admission_webhook_request counter",
        ),
        (
            "# HELP apiserver_admission_webhook_request [ALPHA] Admission webhook request total.",
            "# HELP apiserver_admission_webhook_request [ALPHA] Admission webhook request total.",
        ),
    ];
    for (line, want) in cases {
        assert_eq!(canonical(line), want, "{line}");
    }
}
