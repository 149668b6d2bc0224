//! How far a migration got, per resource, kept in a small JSON file so an interrupted run
//! (killed, failed, or stopped by `--limit`) resumes where it stopped: the continue token
//! of the page being worked on and the last object of it handled. Written after every
//! object (to a temporary file renamed over the old one, so a kill leaves one or the
//! other); removed when every resource of the run is done.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What happened to the objects so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Written again at the storage version.
    pub rewritten: u64,
    /// Already stored at the storage version: nothing was written.
    pub current: u64,
    /// Deleted before their turn.
    pub gone: u64,
    /// Changed by other writers on every try (and so written at the storage version).
    pub contended: u64,
}

impl Tally {
    pub fn total(&self) -> u64 {
        self.rewritten + self.current + self.gone + self.contended
    }
}

/// One resource's position.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    #[serde(default)]
    pub done: bool,
    /// The continue token of the page being worked on; `None` for the first page.
    #[serde(default)]
    pub page: Option<String>,
    /// The last object of that page handled (`namespace/name`).
    #[serde(default)]
    pub after: Option<String>,
    #[serde(default)]
    pub tally: Tally,
}

impl Position {
    /// Whether `key` of the current page was handled before.
    pub fn handled(&self, key: &str) -> bool {
        self.after.as_deref().is_some_and(|after| key <= after)
    }

    /// The next page is the one to work on.
    pub fn turn_page(&mut self, next: Option<String>) {
        match next {
            Some(token) => self.page = Some(token),
            None => self.done = true,
        }
        self.after = None;
    }

    /// Starts the resource over (its continue token expired); the tally stays.
    pub fn restart(&mut self) {
        self.page = None;
        self.after = None;
    }
}

/// The file's content.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub resources: BTreeMap<String, Position>,
}

/// The checkpoint file of one run.
pub struct File {
    path: PathBuf,
}

impl File {
    pub fn at(path: &Path) -> File {
        File {
            path: path.to_path_buf(),
        }
    }

    /// The saved checkpoint, or an empty one when there is no file.
    pub fn load(&self) -> Result<Checkpoint, String> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| format!("reading the checkpoint {}: {e}", self.path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Checkpoint::default()),
            Err(e) => Err(format!(
                "reading the checkpoint {}: {e}",
                self.path.display()
            )),
        }
    }

    pub fn save(&self, checkpoint: &Checkpoint) -> Result<(), String> {
        let fail =
            |e: std::io::Error| format!("writing the checkpoint {}: {e}", self.path.display());
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(".tmp");
        let bytes = serde_json::to_vec_pretty(checkpoint).unwrap_or_default();
        std::fs::write(&tmp, bytes).map_err(fail)?;
        std::fs::rename(&tmp, &self.path).map_err(fail)
    }

    /// Every resource is done: nothing to resume.
    pub fn remove(&self) -> Result<(), String> {
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(format!(
                "removing the checkpoint {}: {e}",
                self.path.display()
            )),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_pages_handled_keys_and_restart() {
        let mut p = Position::default();
        assert!(!p.handled("default/a"));
        p.after = Some("default/b".into());
        let handled: Vec<bool> = ["default/a", "default/b", "default/c", "other/a"]
            .iter()
            .map(|k| p.handled(k))
            .collect();
        assert_eq!(handled, [true, true, false, false]);
        p.turn_page(Some("token2".into()));
        assert_eq!(
            (p.page.as_deref(), p.after.as_deref(), p.done),
            (Some("token2"), None, false)
        );
        p.after = Some("x".into());
        p.tally.rewritten = 3;
        p.restart();
        assert_eq!(
            (p.page.as_deref(), p.after.as_deref(), p.tally.rewritten),
            (None, None, 3)
        );
        p.turn_page(None);
        assert!(p.done);
    }

    #[test]
    fn file_save_load_remove_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let file = File::at(&dir.path().join("sub/checkpoint.json"));
        assert_eq!(file.load().unwrap(), Checkpoint::default());
        let mut checkpoint = Checkpoint::default();
        let position = Position {
            page: Some("t".into()),
            after: Some("ns/a".into()),
            ..Position::default()
        };
        checkpoint.resources.insert("crontabs.g".into(), position);
        file.save(&checkpoint).unwrap();
        assert_eq!(file.load().unwrap(), checkpoint);
        file.remove().unwrap();
        file.remove().unwrap();
        assert_eq!(file.load().unwrap(), Checkpoint::default());
    }
}
