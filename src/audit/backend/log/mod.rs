//! kube's log backend (k8s.io/apiserver plugin/pkg/audit/log): each event one line, JSON
//! or legacy text, to standard out (`-`) or to a file (created 0600 in a 0700 directory,
//! as kube's `ensureLogFile` creates it; rotated by [`rotate`] unless `maxsize` is 0).
//!
//! As kube's backend writes in the request's goroutine under lumberjack's mutex, a
//! request's task encodes its events outside any lock, then writes and flushes them under
//! the sink's mutex: one `write` of a page-cache file per event batch, nothing handed to
//! another thread, nothing lost. Compressing and removing old backups runs on the mill's
//! own thread ([`mill`]).

pub mod mill;
pub mod rotate;

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Stdout, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use futures::future::BoxFuture;

use super::format::{json_line, legacy_line};
use super::metrics::AuditMetrics;
use super::settings::{Format, LogTarget};
use super::{Backend, Event};
use rotate::{Clock, Rotating};

/// kube's `PluginName`, the `plugin` label of its errors.
pub const PLUGIN: &str = "log";

/// Where the lines go.
enum Sink {
    Stdout(BufWriter<Stdout>),
    /// `--audit-log-maxsize=0`: one file, never rotated.
    Append(BufWriter<File>),
    Rotating(Rotating),
}

impl Sink {
    /// Opens `target` as kube's `getWriter` does.
    fn open(target: &LogTarget, clock: Clock) -> Result<Sink, String> {
        let rotation = match target {
            LogTarget::Stdout => return Ok(Sink::Stdout(BufWriter::new(io::stdout()))),
            LogTarget::File(rotation) => rotation,
        };
        ensure_log_file(&rotation.path).map_err(|e| format!("ensureLogFile: {e}"))?;
        if rotation.max_size_mb == 0 {
            let file = OpenOptions::new()
                .append(true)
                .open(&rotation.path)
                .map_err(|e| format!("open {}: {e}", rotation.path.display()))?;
            return Ok(Sink::Append(BufWriter::with_capacity(64 * 1024, file)));
        }
        Ok(Sink::Rotating(Rotating::new(rotation, clock)))
    }

    fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.write_all(line),
            Sink::Append(file) => file.write_all(line),
            Sink::Rotating(file) => file.write_line(line),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.flush(),
            Sink::Append(file) => file.flush(),
            Sink::Rotating(file) => file.flush(),
        }
    }

    fn close(self) -> io::Result<()> {
        match self {
            Sink::Rotating(file) => file.close(),
            mut other => other.flush(),
        }
    }
}

/// kube's `ensureLogFile`: the directory (0700) and the file (0600) exist.
fn ensure_log_file(path: &Path) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
    }
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map(drop)
        .map_err(|e| format!("open {}: {e}", path.display()))
}

/// The log backend: encodes in the caller's task, writes under the sink's lock.
pub struct LogBackend {
    format: Format,
    /// `None` once shut down.
    sink: Mutex<Option<Sink>>,
    metrics: AuditMetrics,
}

impl LogBackend {
    /// Opens `target`.
    pub fn start(
        target: &LogTarget,
        format: Format,
        metrics: AuditMetrics,
        clock: Clock,
    ) -> Result<LogBackend, String> {
        let sink = Sink::open(target, clock)?;
        Ok(LogBackend {
            format,
            sink: Mutex::new(Some(sink)),
            metrics,
        })
    }

    fn encode(&self, event: &Event) -> Vec<u8> {
        match self.format {
            Format::Json => json_line(event),
            Format::Legacy => (legacy_line(event) + "\n").into_bytes(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Sink>> {
        self.sink.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes and flushes `lines`; false (each failure counted) when one is not written.
    fn write(&self, lines: &[Vec<u8>], events: &[Arc<Event>]) -> bool {
        let mut guard = self.lock();
        let Some(sink) = guard.as_mut() else {
            self.metrics
                .plugin_error(PLUGIN, "the audit log is closed", events);
            return false;
        };
        let mut written = Vec::with_capacity(events.len());
        let mut ok = true;
        for (line, event) in lines.iter().zip(events) {
            match sink.write_line(line) {
                Ok(()) => written.push(event.clone()),
                Err(e) => {
                    self.metrics
                        .plugin_error(PLUGIN, &e.to_string(), std::slice::from_ref(event));
                    ok = false;
                }
            }
        }
        if let Err(e) = sink.flush() {
            self.metrics.plugin_error(PLUGIN, &e.to_string(), &written);
            return false;
        }
        ok
    }
}

impl Backend for LogBackend {
    fn process_events<'a>(&'a self, events: &'a [Arc<Event>]) -> BoxFuture<'a, bool> {
        let lines: Vec<Vec<u8>> = events.iter().map(|event| self.encode(event)).collect();
        let written = events.is_empty() || self.write(&lines, events);
        Box::pin(std::future::ready(written))
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        if let Some(sink) = self.lock().take()
            && let Err(e) = sink.close()
        {
            tracing::error!(error = %e, "closing the audit log");
        }
        Box::pin(std::future::ready(()))
    }
}

#[cfg(test)]
#[path = "log_tests.rs"]
mod tests;
