//! The combined table: every measurement of the run as one row, with the full-stack
//! figure, its baseline (raw etcd unless the measurement names another) and their ratio.

/// One measurement.
pub struct Row {
    pub backend: &'static str,
    pub measurement: String,
    /// Concurrency or watchers; empty where neither applies.
    pub load: String,
    pub full: f64,
    /// None where there is no baseline (the ratio is then left empty).
    pub raw: Option<f64>,
}

impl Row {
    pub fn new(
        backend: &'static str,
        measurement: impl Into<String>,
        load: impl ToString,
        full: f64,
        raw: Option<f64>,
    ) -> Row {
        Row {
            backend,
            measurement: measurement.into(),
            load: load.to_string(),
            full,
            raw,
        }
    }
}

/// Figures at a precision that suits their size.
pub fn figure(value: f64) -> String {
    if value.is_nan() {
        "–".into()
    } else if value == 0.0 || value.abs() >= 100.0 {
        format!("{value:.0}")
    } else if value.abs() >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

pub fn print(rows: &[Row], machine: &str) {
    println!();
    println!("{machine}");
    if rows.is_empty() {
        return;
    }
    println!();
    println!("| backend  | measurement | concurrency / watchers | full stack | raw etcd | ratio |");
    println!("|----------|-------------|-----------------------:|-----------:|---------:|------:|");
    for r in rows {
        let (raw, ratio) = match r.raw {
            Some(raw) if raw != 0.0 => (figure(raw), format!("{:.2}", r.full / raw)),
            Some(raw) => (figure(raw), String::new()),
            None => (String::new(), String::new()),
        };
        println!(
            "| {:<8} | {} | {:>5} | {:>10} | {:>8} | {:>5} |",
            r.backend,
            r.measurement,
            r.load,
            figure(r.full),
            raw,
            ratio
        );
    }
}
