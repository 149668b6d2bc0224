//! `--apiservice-ca-file`: the CA bundle of our APIServices when the serving pair comes
//! from `--tls-cert-file`, read at start-up and followed (compared every
//! `authn::cafile::POLL_INTERVAL`, as the other CA files are); a new non-empty content
//! is published, an unreadable or empty file keeps the bundle in use (logged once).

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::watch;

use crate::authn::cafile::POLL_INTERVAL;

/// The file followed and where its content goes.
pub struct CaFile {
    path: PathBuf,
    bundle: watch::Sender<Arc<Vec<u8>>>,
}

impl CaFile {
    /// Reads `path` now (an unreadable or empty file is an error).
    pub fn load(path: PathBuf) -> Result<CaFile, String> {
        let content = std::fs::read(&path)
            .map_err(|e| format!("--apiservice-ca-file: reading {}: {e}", path.display()))?;
        if content.is_empty() {
            return Err(format!("--apiservice-ca-file: {} is empty", path.display()));
        }
        Ok(CaFile {
            path,
            bundle: watch::Sender::new(Arc::new(content)),
        })
    }

    pub fn bundle(&self) -> watch::Receiver<Arc<Vec<u8>>> {
        self.bundle.subscribe()
    }

    /// Runs until the process ends.
    pub async fn run(self) {
        let mut ticker = tokio::time::interval(POLL_INTERVAL);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut reported = false;
        loop {
            ticker.tick().await;
            match tokio::fs::read(&self.path).await {
                Ok(content) if !content.is_empty() => {
                    reported = false;
                    self.bundle.send_if_modified(|held| {
                        let changed = held.as_slice() != content.as_slice();
                        if changed {
                            tracing::info!(path = %self.path.display(), "--apiservice-ca-file: loaded a new CA bundle");
                            *held = Arc::new(content);
                        }
                        changed
                    });
                }
                other => {
                    if !reported {
                        let problem = other.err().map_or("empty".to_string(), |e| e.to_string());
                        tracing::warn!(path = %self.path.display(), %problem, "--apiservice-ca-file: keeping the CA bundle in use");
                        reported = true;
                    }
                }
            }
        }
    }
}
