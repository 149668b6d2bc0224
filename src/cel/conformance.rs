//! Differential conformance table: expressions with the outcome and run-time cost that
//! kube-apiserver 1.36's cel-go (StoredExpressions environment, kube's program options
//! and `library.CostEstimator`) produced for them, recorded in `conformance.tsv`.
//!
//! Each row is `expression \t outcome \t cost`, optionally followed by `\t known: reason`
//! for a difference not fixed yet; such rows must still differ, so a fix shows up.
//! Outcomes are printed canonically by both sides: `null`, `true`, `42`, `42u`,
//! `d:1.5e+00` (Go's `%e` shortest), `"text"` (`\\`, `\"`, `\xNN` for controls),
//! `b'hex'`, `duration(Nns)`, `timestamp(RFC 3339 UTC)`, `[a, b]`, `{k: v}` (entries
//! sorted as text), `type(name)`, `optional.of(x)`, `optional.none()`, `opaque(name)`,
//! `error: text`, `compile: first line`, `program: text`.
//!
//! The oracle, the corpus by area and the scripts that regenerate the table are in
//! `../shared/research/cel-conformance/`.

use crate::cel::check::check;
use crate::cel::env;
use crate::cel::eval::ops::{list_items, map_entries, type_name, type_runtime_name};
use crate::cel::eval::{CostTracker, Plan};
use crate::cel::parse::parse;
use crate::cel::value::Value;

const TABLE: &str = include_str!("conformance.tsv");

fn escape(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `strconv.FormatFloat(d, 'e', -1, 64)`.
fn double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    let sci = format!("{d:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

fn show(v: &Value<'_>) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => format!("{u}u"),
        Value::Double(d) => format!("d:{}", double(*d)),
        Value::String(s) => escape(s.as_str()),
        Value::Bytes(b) => {
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            format!("b'{hex}'")
        }
        Value::Duration(d) => format!("duration({}ns)", d.as_nanos()),
        Value::Timestamp(t) => format!("timestamp({t})"),
        Value::Optional(None) => "optional.none()".into(),
        Value::Optional(Some(x)) => format!("optional.of({})", show(x)),
        Value::Type(t) => format!("type({})", type_runtime_name(t)),
        Value::List(l) => match list_items(l) {
            Ok(items) => {
                let parts: Vec<String> = items.iter().map(show).collect();
                format!("[{}]", parts.join(", "))
            }
            Err(e) => format!("<list error {e}>"),
        },
        Value::Map(m) => match map_entries(m) {
            Ok(entries) => {
                let mut parts: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{}: {}", show(k), show(v)))
                    .collect();
                // Go's sort.Strings: byte order.
                parts.sort();
                format!("{{{}}}", parts.join(", "))
            }
            Err(e) => format!("<map error {e}>"),
        },
        Value::Opaque(_) => format!("opaque({})", type_name(v)),
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

/// Our outcome and cost for `expr`, printed as the oracle prints kube's.
fn run(expr: &str) -> (String, String) {
    let env = env::stored();
    let checked = match parse(expr).and_then(|ast| check(ast, &env, &[])) {
        Ok(c) => c,
        Err(e) => return (format!("compile: {}", first_line(&e)), "-".into()),
    };
    let plan = match Plan::new(&checked, &env, &[]) {
        Ok(p) => p,
        Err(e) => return (format!("program: {e}"), "-".into()),
    };
    let mut tracker = CostTracker::default();
    let outcome = match plan.evaluate(&[], &mut tracker) {
        Ok(v) => show(&v),
        Err(e) => format!("error: {}", e.to_string().replace('\n', "\\n")),
    };
    (outcome, tracker.actual.to_string())
}

struct Row<'t> {
    line: usize,
    expr: &'t str,
    outcome: &'t str,
    cost: &'t str,
    known: Option<&'t str>,
}

fn rows() -> Vec<Row<'static>> {
    TABLE
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert!(cols.len() >= 3, "line {}: {l}", i + 1);
            Row {
                line: i + 1,
                expr: cols[0],
                outcome: cols[1],
                cost: cols[2],
                known: cols.get(3).copied(),
            }
        })
        .collect()
}

#[test]
fn conformance_corpus_matches_kube() {
    let rows = rows();
    assert!(rows.len() >= 800, "corpus has {} rows", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        let (outcome, cost) = run(row.expr);
        let same = outcome == row.outcome && cost == row.cost;
        match (row.known, same) {
            (None, false) => failures.push(format!(
                "line {}: {}\n  kube: {} (cost {})\n  ours: {outcome} (cost {cost})",
                row.line, row.expr, row.outcome, row.cost
            )),
            (Some(reason), true) => failures.push(format!(
                "line {}: {} now matches kube; drop its known difference ({reason})",
                row.line, row.expr
            )),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Writes our outcomes for the expressions in `$CEL_CONFORMANCE_IN` (one a line) to
/// `$CEL_CONFORMANCE_OUT`, in the oracle's format, for comparing a new corpus.
#[test]
#[ignore]
fn conformance_dump_ours() {
    let (Ok(input), Ok(output)) = (
        std::env::var("CEL_CONFORMANCE_IN"),
        std::env::var("CEL_CONFORMANCE_OUT"),
    ) else {
        return;
    };
    let text = std::fs::read_to_string(input).unwrap();
    let mut out = String::new();
    for expr in text.lines() {
        let (outcome, cost) =
            std::panic::catch_unwind(|| run(expr)).unwrap_or_else(|_| ("panic".into(), "-".into()));
        out.push_str(&format!("{expr}\t{outcome}\t{cost}\n"));
    }
    std::fs::write(output, out).unwrap();
}
