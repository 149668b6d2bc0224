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

/// The lines compared: HELP/TYPE of every family, series of the webhook families.
fn compared(lines: &[String]) -> BTreeSet<String> {
    lines
        .iter()
        .filter(|l| l.starts_with("# ") || name(l).starts_with(SERIES_COMPARED))
        .cloned()
        .collect()
}

/// Lines the reference had and we lack, and lines we have and it lacked.
pub fn differences(ours: &[String], recorded: &[String]) -> Vec<String> {
    let (ours, theirs) = (compared(ours), compared(recorded));
    let missing = theirs
        .difference(&ours)
        .map(|l| format!("metrics: missing {l}"));
    let extra = ours
        .difference(&theirs)
        .map(|l| format!("metrics: not kube's {l}"));
    missing.chain(extra).collect()
}
