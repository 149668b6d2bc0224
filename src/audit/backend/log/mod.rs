//! kube's log backend (k8s.io/apiserver plugin/pkg/audit/log): each event one line, JSON
//! or legacy text, to standard out (`-`) or to a file (created 0600 in a 0700 directory,
//! as kube's `ensureLogFile` creates it; rotated by [`rotate`] unless `maxsize` is 0).
//!
//! Lines are written by a thread of their own: a request's task encodes its events and
//! hands them over through a bounded queue, then waits until they are written (the
//! thread writes everything queued at once, one write per round), so the async runtime
//! never blocks on the disk and nothing handed over is lost.

pub mod mill;
pub mod rotate;

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Stdout, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};

use super::format::{json_line, legacy_line};
use super::metrics::AuditMetrics;
use super::settings::{Format, LogTarget};
use super::{Backend, Event};
use rotate::{Clock, Rotating};

/// kube's `PluginName`, the `plugin` label of its errors.
pub const PLUGIN: &str = "log";
/// Requests' batches queued for the writer before a request waits for room.
const QUEUE: usize = 1024;
/// Batches the writer takes at once before writing them out.
const ROUND: usize = 256;

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

/// One event's line, with the event to report if it cannot be written.
struct Line {
    bytes: Vec<u8>,
    event: Arc<Event>,
}

enum Message {
    Lines {
        lines: Vec<Line>,
        written: oneshot::Sender<bool>,
    },
    Close(oneshot::Sender<()>),
}

/// The log backend: encodes in the caller's task, writes on its own thread.
pub struct LogBackend {
    format: Format,
    queue: mpsc::Sender<Message>,
    metrics: AuditMetrics,
}

impl LogBackend {
    /// Opens `target` and starts the writer thread.
    pub fn start(
        target: &LogTarget,
        format: Format,
        metrics: AuditMetrics,
        clock: Clock,
    ) -> Result<LogBackend, String> {
        let sink = Sink::open(target, clock)?;
        let (queue, received) = mpsc::channel(QUEUE);
        let writer_metrics = metrics.clone();
        std::thread::Builder::new()
            .name("audit-log".into())
            .spawn(move || write_loop(sink, received, &writer_metrics))
            .map_err(|e| format!("starting the audit log writer: {e}"))?;
        Ok(LogBackend {
            format,
            queue,
            metrics,
        })
    }

    fn encode(&self, event: &Arc<Event>) -> Line {
        let bytes = match self.format {
            Format::Json => json_line(event),
            Format::Legacy => (legacy_line(event) + "\n").into_bytes(),
        };
        Line {
            bytes,
            event: event.clone(),
        }
    }
}

impl Backend for LogBackend {
    fn process_events<'a>(&'a self, events: &'a [Arc<Event>]) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            if events.is_empty() {
                return true;
            }
            let lines = events.iter().map(|event| self.encode(event)).collect();
            let (written, answer) = oneshot::channel();
            let message = Message::Lines { lines, written };
            if self.queue.send(message).await.is_err() {
                self.metrics
                    .plugin_error(PLUGIN, "the audit log is closed", events);
                return false;
            }
            match answer.await {
                Ok(written) => written,
                Err(_) => {
                    // Queued as the writer closed: never written.
                    self.metrics
                        .plugin_error(PLUGIN, "the audit log is closed", events);
                    false
                }
            }
        })
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let (closed, answer) = oneshot::channel();
            if self.queue.send(Message::Close(closed)).await.is_ok() {
                let _ = answer.await;
            }
        })
    }
}

/// The writer thread: takes what is queued, writes it, answers each batch.
fn write_loop(mut sink: Sink, mut queue: mpsc::Receiver<Message>, metrics: &AuditMetrics) {
    while let Some(first) = queue.blocking_recv() {
        let mut round = vec![first];
        while round.len() < ROUND {
            match queue.try_recv() {
                Ok(message) => round.push(message),
                Err(_) => break,
            }
        }
        let mut answers = Vec::with_capacity(round.len());
        let mut written = Vec::new();
        let mut close = None;
        for message in round {
            match message {
                Message::Lines {
                    lines,
                    written: answer,
                } => {
                    let mut ok = true;
                    for line in lines {
                        match sink.write_line(&line.bytes) {
                            Ok(()) => written.push(line.event),
                            Err(e) => {
                                metrics.plugin_error(PLUGIN, &e.to_string(), &[line.event]);
                                ok = false;
                            }
                        }
                    }
                    answers.push((answer, ok));
                }
                Message::Close(closed) => close = Some(closed),
            }
        }
        let flushed = sink.flush();
        if let Err(e) = &flushed {
            metrics.plugin_error(PLUGIN, &e.to_string(), &written);
        }
        for (answer, ok) in answers {
            let _ = answer.send(ok && flushed.is_ok());
        }
        if let Some(closed) = close {
            if let Err(e) = sink.close() {
                tracing::error!(error = %e, "closing the audit log");
            }
            let _ = closed.send(());
            return;
        }
    }
}

#[cfg(test)]
#[path = "log_tests.rs"]
mod tests;
