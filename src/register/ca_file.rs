//! `--apiservice-ca-file`: the CA bundle of our APIServices when the serving pair comes
//! from `--tls-cert-file`, read at start-up and followed (compared every
//! `authn::cafile::POLL_INTERVAL`, as the other CA files are); a new content holding at
//! least one parseable PEM `CERTIFICATE` is published, an unreadable file or one without
//! a certificate keeps the bundle in use (logged once).

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::watch;

use crate::authn::cafile::POLL_INTERVAL;
use crate::config::register::ca_bundle_problem;

/// The file followed and where its content goes.
pub struct CaFile {
    path: PathBuf,
    bundle: watch::Sender<Arc<Vec<u8>>>,
}

impl CaFile {
    /// Reads `path` now (an unreadable file or one without a certificate is an error).
    pub fn load(path: PathBuf) -> Result<CaFile, String> {
        let content = std::fs::read(&path)
            .map_err(|e| format!("--apiservice-ca-file: reading {}: {e}", path.display()))?;
        if let Some(problem) = ca_bundle_problem(&content) {
            return Err(format!(
                "--apiservice-ca-file: {}: {problem}",
                path.display()
            ));
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
            let read = tokio::fs::read(&self.path).await.map_err(|e| e.to_string());
            let checked = read.and_then(|content| match ca_bundle_problem(&content) {
                None => Ok(content),
                Some(problem) => Err(problem),
            });
            match checked {
                Ok(content) => {
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
                Err(problem) => {
                    if !reported {
                        tracing::warn!(path = %self.path.display(), %problem, "--apiservice-ca-file: keeping the CA bundle in use");
                        reported = true;
                    }
                }
            }
        }
    }
}
