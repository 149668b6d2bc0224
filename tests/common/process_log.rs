//! A child process's log (its stderr): every line kept for assertions, and passed on to
//! the test process's stderr as an inherited stderr would show it.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The lines read so far; a waiter is woken at each new line.
#[derive(Clone, Default)]
pub struct ProcessLog(Arc<(Mutex<Vec<String>>, Condvar)>);

impl ProcessLog {
    /// Reads `stderr` on a thread of its own until the process closes it.
    pub fn follow(stderr: impl Read + Send + 'static) -> ProcessLog {
        let log = ProcessLog::default();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = writeln!(std::io::stderr(), "{line}");
                let (lines, added) = &*sink.0;
                lines.lock().unwrap().push(line);
                added.notify_all();
            }
        });
        log
    }

    /// How many lines contain every one of `parts`.
    pub fn count(&self, parts: &[&str]) -> usize {
        let lines = self.0.0.lock().unwrap();
        lines.iter().filter(|line| matches(line, parts)).count()
    }

    /// The first line containing every one of `parts`, waiting for it up to `within`.
    pub fn wait_for(&self, parts: &[&str], within: Duration) -> String {
        let deadline = Instant::now() + within;
        let (lines, added) = &*self.0;
        let mut lines = lines.lock().unwrap();
        loop {
            if let Some(line) = lines.iter().find(|line| matches(line, parts)) {
                return line.clone();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "no log line with {parts:?} within {within:?}; log:\n{}",
                lines.join("\n")
            );
            lines = added.wait_timeout(lines, left).unwrap().0;
        }
    }

    /// Every line so far, for failure messages.
    pub fn text(&self) -> String {
        self.0.0.lock().unwrap().join("\n")
    }
}

fn matches(line: &str, parts: &[&str]) -> bool {
    parts.iter().all(|part| line.contains(part))
}
