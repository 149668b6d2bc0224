//! What `migrate` shows while it works: a progress bar on stderr when stderr is a
//! terminal, else one JSON line on stdout per step (a resource started, a page done, a
//! resource done, the final stored-version counts), for scripts and logs.

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};

use super::checkpoint::Tally;

/// The reporter of one run.
pub enum Progress {
    Bar(Option<ProgressBar>),
    Lines,
}

impl Progress {
    /// A bar when stderr is a terminal, else JSON lines.
    pub fn detect() -> Progress {
        match std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            true => Progress::Bar(None),
            false => Progress::Lines,
        }
    }

    /// A resource starts (`total` when known); `tally` is what a previous run did.
    pub fn start(&mut self, resource: &str, total: Option<u64>, tally: &Tally) {
        match self {
            Progress::Bar(bar) => {
                let new = match total {
                    Some(n) => ProgressBar::new(n),
                    None => ProgressBar::no_length(),
                };
                let template = "{prefix} [{bar:40}] {pos}/{len} {per_sec} {msg}";
                if let Ok(style) = ProgressStyle::with_template(template) {
                    new.set_style(style.progress_chars("=> "));
                }
                new.set_prefix(resource.to_string());
                new.set_position(tally.total());
                *bar = Some(new);
            }
            Progress::Lines => line(json!({"event": "start", "resource": resource,
                "total": total, "tally": tally})),
        }
    }

    /// One object handled.
    pub fn object(&self, tally: &Tally) {
        if let Progress::Bar(Some(bar)) = self {
            bar.set_position(tally.total());
            bar.set_message(format!(
                "rewritten {} current {} gone {}",
                tally.rewritten, tally.current, tally.gone
            ));
        }
    }

    /// A page handled, or the resource done (`done`), or the run stopped at `--limit`.
    pub fn step(&self, event: &str, resource: &str, tally: &Tally) {
        match self {
            Progress::Bar(Some(bar)) if event != "page" => {
                bar.finish_with_message(format!(
                    "{event}: rewritten {} current {} gone {} contended {}",
                    tally.rewritten, tally.current, tally.gone, tally.contended
                ));
            }
            Progress::Bar(_) => {}
            Progress::Lines => line(json!({"event": event, "resource": resource, "tally": tally})),
        }
    }

    /// A resource's stored versions after the run (the `/storedversions` entry), or why
    /// they could not be read.
    pub fn stored(&self, resource: &str, entry: Option<&Value>) {
        let entry = match entry {
            Some(entry) => entry.clone(),
            None => json!({"resource": resource,
                "error": "the server's /storedversions could not be read (through an aggregator it is not proxied)"}),
        };
        match self {
            Progress::Bar(_) => eprintln!("{}", human(&entry)),
            Progress::Lines => {
                let mut entry = entry;
                entry["event"] = json!("storedVersions");
                line(entry);
            }
        }
    }
}

fn line(value: Value) {
    println!("{value}");
}

/// `crontabs.stable.example.com: storage version v2; stored: v1=0 v2=5`.
fn human(entry: &Value) -> String {
    let resource = entry["resource"].as_str().unwrap_or_default();
    if let Some(error) = entry["error"].as_str() {
        return format!("{resource}: {error}");
    }
    let objects = entry["objects"].as_object().into_iter().flatten();
    let counts: Vec<String> = objects.map(|(v, n)| format!("{v}={n}")).collect();
    format!(
        "{resource}: storage version {}; stored: {}",
        entry["storageVersion"].as_str().unwrap_or_default(),
        counts.join(" ")
    )
}
