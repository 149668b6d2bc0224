//! lumberjack's mill: after each rotation, on a thread of its own, the backups of the
//! audit log beyond `maxbackup` (newest kept) and older than `maxage` days (by the
//! timestamp in their names) are removed, and the rest gzipped when `compress` is set.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

use flate2::Compression;
use flate2::write::GzEncoder;
use jiff::{SignedDuration, Timestamp};

use super::rotate::Clock;
use crate::audit::backend::settings::Rotation;

const COMPRESS_SUFFIX: &str = ".gz";
/// lumberjack's `backupTimeFormat` (`2006-01-02T15-04-05.000`) is this long.
const TIME_LEN: usize = 23;

/// What the mill does, and for which file.
#[derive(Clone, Debug)]
struct Rules {
    path: PathBuf,
    max_backups: usize,
    max_age_days: u64,
    compress: bool,
}

/// The mill thread; none when there is nothing to mill.
pub struct Mill {
    requests: Option<SyncSender<Timestamp>>,
    thread: Option<JoinHandle<()>>,
}

impl Mill {
    pub fn start(rotation: &Rotation) -> Mill {
        let rules = Rules {
            path: rotation.path.clone(),
            max_backups: rotation.max_backups,
            max_age_days: rotation.max_age_days,
            compress: rotation.compress,
        };
        if rules.max_backups == 0 && rules.max_age_days == 0 && !rules.compress {
            return Mill {
                requests: None,
                thread: None,
            };
        }
        // One pending request is enough: a run sees every backup there is.
        let (requests, pending) = sync_channel::<Timestamp>(1);
        let thread = std::thread::Builder::new()
            .name("audit-log-mill".into())
            .spawn(move || {
                while let Ok(now) = pending.recv() {
                    if let Err(e) = run_once(&rules, now) {
                        tracing::error!(error = %e, path = %rules.path.display(), "milling the audit log's backups");
                    }
                }
            });
        match thread {
            Ok(thread) => Mill {
                requests: Some(requests),
                thread: Some(thread),
            },
            Err(e) => {
                tracing::error!(error = %e, "starting the audit log's mill thread; old files are kept");
                Mill {
                    requests: None,
                    thread: None,
                }
            }
        }
    }

    /// Asks for a run as of the clock's time (coalesced with one already pending).
    pub fn request(&self, clock: &Clock) {
        if let Some(requests) = &self.requests
            && let Err(TrySendError::Disconnected(_)) = requests.try_send(clock())
        {
            tracing::error!("the audit log's mill thread is gone");
        }
    }

    /// Lets the pending run finish and ends the thread.
    pub fn stop(&mut self) {
        self.requests = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Mill {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `<dir>/<name without ext>-<UTC 2006-01-02T15-04-05.000><ext>`.
pub fn backup_name(path: &Path, at: Timestamp) -> PathBuf {
    let (prefix, ext) = split_name(path);
    let stamp = format!(
        "{}.{:03}",
        at.strftime("%Y-%m-%dT%H-%M-%S"),
        at.subsec_millisecond()
    );
    path.with_file_name(format!("{prefix}-{stamp}{ext}"))
}

/// Go's `filepath.Ext` split of the file name: (`audit`, `.log`).
fn split_name(path: &Path) -> (String, String) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.rfind('.') {
        Some(dot) => (name[..dot].to_string(), name[dot..].to_string()),
        None => (name, String::new()),
    }
}

/// One backup in the log's directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backup {
    pub name: String,
    pub time: Timestamp,
}

/// The time in a backup's name, if `name` is a backup of the log (`prefix`, `ext`).
fn time_from_name(name: &str, prefix: &str, ext: &str) -> Option<Timestamp> {
    let stamp = name.strip_prefix(prefix)?.strip_suffix(ext)?;
    let bytes = stamp.as_bytes();
    let shaped = stamp.len() == TIME_LEN
        && [4, 7, 13, 16].iter().all(|&i| bytes[i] == b'-')
        && bytes[10] == b'T'
        && bytes[19] == b'.';
    if !shaped {
        return None;
    }
    let text = format!(
        "{}T{}:{}:{}Z",
        &stamp[..10],
        &stamp[11..13],
        &stamp[14..16],
        &stamp[17..]
    );
    text.parse().ok()
}

/// The log's backups, newest first.
fn backups(path: &Path) -> io::Result<Vec<Backup>> {
    let (name, ext) = split_name(path);
    let prefix = format!("{name}-");
    let gz_ext = format!("{ext}{COMPRESS_SUFFIX}");
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let mut found = Vec::new();
    for entry in fs::read_dir(dir.unwrap_or(Path::new(".")))? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let time = time_from_name(&name, &prefix, &ext)
            .or_else(|| time_from_name(&name, &prefix, &gz_ext));
        if let Some(time) = time {
            found.push(Backup { name, time });
        }
    }
    found.sort_by_key(|b| std::cmp::Reverse(b.time));
    Ok(found)
}

/// What one run removes and compresses (lumberjack's `millRunOnce`), given the backups
/// newest first.
pub fn plan(
    mut files: Vec<Backup>,
    max_backups: usize,
    max_age_days: u64,
    compress: bool,
    now: Timestamp,
) -> (Vec<String>, Vec<String>) {
    let mut remove = Vec::new();
    if max_backups > 0 && max_backups < files.len() {
        // A backup and its compressed form count once.
        let mut preserved = std::collections::BTreeSet::new();
        let mut remaining = Vec::new();
        for file in files {
            let base = file
                .name
                .strip_suffix(COMPRESS_SUFFIX)
                .unwrap_or(&file.name);
            preserved.insert(base.to_string());
            match preserved.len() > max_backups {
                true => remove.push(file.name),
                false => remaining.push(file),
            }
        }
        files = remaining;
    }
    if max_age_days > 0 {
        let hours = i64::try_from(max_age_days.saturating_mul(24)).unwrap_or(i64::MAX);
        let cutoff = now
            .checked_sub(SignedDuration::from_hours(hours))
            .unwrap_or(Timestamp::MIN);
        let (old, kept): (Vec<_>, Vec<_>) = files.into_iter().partition(|f| f.time < cutoff);
        remove.extend(old.into_iter().map(|f| f.name));
        files = kept;
    }
    let gzip = match compress {
        true => files
            .into_iter()
            .map(|f| f.name)
            .filter(|n| !n.ends_with(COMPRESS_SUFFIX))
            .collect(),
        false => Vec::new(),
    };
    (remove, gzip)
}

fn run_once(rules: &Rules, now: Timestamp) -> io::Result<()> {
    let files = backups(&rules.path)?;
    let (remove, gzip) = plan(
        files,
        rules.max_backups,
        rules.max_age_days,
        rules.compress,
        now,
    );
    let dir = rules.path.parent().unwrap_or(Path::new("."));
    let mut first_error = None;
    for name in remove {
        if let Err(e) = fs::remove_file(dir.join(&name)) {
            first_error.get_or_insert(e);
        }
    }
    for name in gzip {
        let src = dir.join(&name);
        let dst = dir.join(format!("{name}{COMPRESS_SUFFIX}"));
        if let Err(e) = compress_file(&src, &dst) {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// gzips `src` into `dst` (with `src`'s mode) and removes `src`; on failure `dst` goes.
fn compress_file(src: &Path, dst: &Path) -> io::Result<()> {
    let written = (|| {
        let input = File::open(src)?;
        let mode = input.metadata()?.permissions().mode() & 0o7777;
        let output = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .mode(mode)
            .open(dst)?;
        let mut gz = GzEncoder::new(output, Compression::default());
        io::copy(&mut BufReader::new(input), &mut gz)?;
        gz.finish()?.sync_all()
    })();
    match written {
        Ok(()) => fs::remove_file(src),
        Err(e) => {
            let _ = fs::remove_file(dst);
            Err(io::Error::other(format!(
                "failed to compress log file {}: {e}",
                src.display()
            )))
        }
    }
}

#[cfg(test)]
#[path = "mill_tests.rs"]
mod tests;
