//! The audit log file rotated as lumberjack (gopkg.in/natefinch/lumberjack.v2, kube's
//! `--audit-log-max*` writer) rotates it: a write that would take the file past
//! `maxsize` MiB first renames it to `<name>-<UTC time>.<ext>` and starts a new one
//! (mode 0600, or the old file's); old files are then removed and compressed by the
//! [`super::mill`] thread. Lines are buffered and written out by [`Rotating::flush`].

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiff::Timestamp;

use super::mill::{Mill, backup_name};
use crate::audit::backend::settings::Rotation;

/// lumberjack's `megabyte`.
const MEGABYTE: u64 = 1024 * 1024;
/// lumberjack's default when `MaxSize` is 0 (kube then does not rotate at all).
const DEFAULT_MAX_SIZE_MB: u64 = 100;
/// What is collected before a write to the file.
const BUFFER: usize = 64 * 1024;

/// The time the backups are named after (a test's clock in tests).
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// A log file that rotates itself by size.
pub struct Rotating {
    path: PathBuf,
    max: u64,
    file: Option<BufWriter<File>>,
    size: u64,
    clock: Clock,
    mill: Mill,
}

impl Rotating {
    /// The file of `rotation` (opened at the first write, as lumberjack does).
    pub fn new(rotation: &Rotation, clock: Clock) -> Rotating {
        let max_mb = match rotation.max_size_mb {
            0 => DEFAULT_MAX_SIZE_MB,
            mb => mb,
        };
        Rotating {
            path: rotation.path.clone(),
            max: max_mb.saturating_mul(MEGABYTE),
            file: None,
            size: 0,
            mill: Mill::start(rotation),
            clock,
        }
    }

    /// Appends one line, rotating first if it would not fit.
    pub fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        let len = line.len() as u64;
        if len > self.max {
            return Err(io::Error::other(format!(
                "write length {len} exceeds maximum file size {}",
                self.max
            )));
        }
        if self.file.is_none() {
            self.open_existing_or_new(len)?;
        }
        if self.size + len > self.max {
            self.rotate()?;
        }
        let file = self.file.as_mut().ok_or_else(closed)?;
        file.write_all(line)?;
        self.size += len;
        Ok(())
    }

    /// Writes out what is buffered.
    pub fn flush(&mut self) -> io::Result<()> {
        match self.file.as_mut() {
            Some(file) => file.flush(),
            None => Ok(()),
        }
    }

    /// Flushes, closes the file and waits for the mill to finish its work.
    pub fn close(mut self) -> io::Result<()> {
        let flushed = self.flush();
        self.file = None;
        self.mill.stop();
        flushed
    }

    fn open_existing_or_new(&mut self, write_len: u64) -> io::Result<()> {
        self.mill.request(&self.clock);
        let info = match fs::metadata(&self.path) {
            Ok(info) => info,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return self.open_new(),
            Err(e) => {
                return Err(io::Error::other(format!(
                    "error getting log file info: {e}"
                )));
            }
        };
        if info.len() + write_len >= self.max {
            return self.rotate();
        }
        match OpenOptions::new().append(true).open(&self.path) {
            Ok(file) => {
                self.file = Some(BufWriter::with_capacity(BUFFER, file));
                self.size = info.len();
                Ok(())
            }
            // As lumberjack: a file that cannot be opened is replaced.
            Err(_) => self.open_new(),
        }
    }

    fn rotate(&mut self) -> io::Result<()> {
        if let Some(mut file) = self.file.take() {
            file.flush()?;
        }
        self.open_new()?;
        self.mill.request(&self.clock);
        Ok(())
    }

    /// Renames the current file to its backup name and creates an empty one.
    fn open_new(&mut self) -> io::Result<()> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(|e| {
                io::Error::other(format!("can't make directories for new logfile: {e}"))
            })?;
        }
        let mut mode = 0o600;
        if let Ok(info) = fs::metadata(&self.path) {
            mode = info.permissions().mode() & 0o7777;
            let backup = backup_name(&self.path, (self.clock)());
            fs::rename(&self.path, &backup)
                .map_err(|e| io::Error::other(format!("can't rename log file: {e}")))?;
        }
        let file = create(&self.path, mode)
            .map_err(|e| io::Error::other(format!("can't open new logfile: {e}")))?;
        self.file = Some(BufWriter::with_capacity(BUFFER, file));
        self.size = 0;
        Ok(())
    }
}

fn create(path: &Path, mode: u32) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .mode(mode)
        .open(path)
}

fn closed() -> io::Error {
    io::Error::other("the log file is closed")
}

#[cfg(test)]
#[path = "rotate_tests.rs"]
mod tests;
