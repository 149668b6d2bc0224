//! CA bundles from files (`--client-ca-file`, `--requestheader-client-ca-file`) kept
//! live, as k8s.io/apiserver's `DynamicFileCAContent`: a changed bundle that parses
//! replaces the one in use ([`LiveCerts`]), so a CA removed from the file is refused from
//! the next request on (chains are checked per request, on new and open connections).
//!
//! Upstream reacts to fsnotify events and re-reads every minute. Here each file's content
//! is compared with the bundle in use every [`POLL_INTERVAL`]: a few small reads a
//! second, no watcher dependency, and every way of replacing a file (in place, renamed
//! over, a mounted Secret's symlink swap) looks the same. A file that cannot be read or
//! does not parse keeps the last good bundle; the problem is logged once per change.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::live::LiveCerts;
use super::x509::CertVerifier;

/// How often certificate files are compared with what is in use.
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// Remembers the last problem with a file so each is logged once, not every tick.
#[derive(Debug, Default)]
pub struct Problems {
    last: Option<(String, [u8; 32])>,
}

impl Problems {
    /// Whether `error` (about a file with `content`, if it could be read) differs from
    /// the last problem; it becomes the last problem.
    pub fn is_new(&mut self, error: &str, content: Option<&[u8]>) -> bool {
        let mut digest = [0u8; 32];
        if let Some(content) = content {
            digest.copy_from_slice(ring::digest::digest(&ring::digest::SHA256, content).as_ref());
        }
        let key = (error.to_string(), digest);
        let new = self.last.as_ref() != Some(&key);
        self.last = Some(key);
        new
    }

    /// The file is fine (again).
    pub fn clear(&mut self) {
        self.last = None;
    }

    /// Logs `error` about `path` unless it was the last problem already.
    pub fn report(&mut self, flag: &str, path: &Path, error: &str, content: Option<&[u8]>) {
        if self.is_new(error, content) {
            tracing::error!(flag, path = %path.display(), error, "keeping the last good content");
        }
    }
}

/// Which bundle a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bundle {
    Client,
    RequestHeader,
}

impl Bundle {
    fn flag(self) -> &'static str {
        match self {
            Bundle::Client => "--client-ca-file",
            Bundle::RequestHeader => "--requestheader-client-ca-file",
        }
    }
}

struct CaFile {
    path: PathBuf,
    bundle: Bundle,
    problems: Problems,
}

/// Follows the CA files the flags name.
pub struct CaFiles {
    live: Arc<LiveCerts>,
    files: Vec<CaFile>,
}

impl CaFiles {
    /// `None` when no CA comes from a file.
    pub fn new(
        live: Arc<LiveCerts>,
        client: Option<&Path>,
        requestheader: Option<&Path>,
    ) -> Option<CaFiles> {
        let file = |path: &Path, bundle| CaFile {
            path: path.to_path_buf(),
            bundle,
            problems: Problems::default(),
        };
        let files: Vec<CaFile> = [
            client.map(|p| file(p, Bundle::Client)),
            requestheader.map(|p| file(p, Bundle::RequestHeader)),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!files.is_empty()).then_some(CaFiles { live, files })
    }

    /// Runs until the process ends.
    pub async fn run(mut self) {
        let mut ticker = tokio::time::interval(POLL_INTERVAL);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            ticker.tick().await;
            for file in &mut self.files {
                file.check(&self.live).await;
            }
        }
    }
}

impl CaFile {
    async fn check(&mut self, live: &LiveCerts) {
        let flag = self.bundle.flag();
        let content = match tokio::fs::read(&self.path).await {
            Ok(content) => content,
            Err(e) => return self.problems.report(flag, &self.path, &e.to_string(), None),
        };
        let current = live.current();
        let in_use = match self.bundle {
            Bundle::Client => current.x509.as_ref().map(|x| x.verifier()),
            Bundle::RequestHeader => current.requestheader.as_ref().map(|r| &r.verifier),
        };
        if in_use.is_some_and(|v| v.built_from(&content)) {
            self.problems.clear();
            return;
        }
        match CertVerifier::from_pem(&content) {
            Ok(verifier) => {
                match self.bundle {
                    Bundle::Client => live.set_client_ca(verifier),
                    Bundle::RequestHeader => live.set_requestheader_ca(verifier),
                }
                self.problems.clear();
                tracing::info!(flag, path = %self.path.display(), "loaded a new CA bundle");
            }
            Err(e) => self
                .problems
                .report(flag, &self.path, &e.to_string(), Some(&content)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_same_problem_reported_once() {
        let mut p = Problems::default();
        let steps: [(&str, Option<&[u8]>, bool); 6] = [
            ("no such file", None, true),
            ("no such file", None, false),
            ("invalid CA bundle", Some(b"x"), true),
            ("invalid CA bundle", Some(b"x"), false),
            ("invalid CA bundle", Some(b"y"), true),
            ("no such file", None, true),
        ];
        for (i, (error, content, want)) in steps.into_iter().enumerate() {
            assert_eq!(p.is_new(error, content), want, "step {i}");
        }
        p.clear();
        assert!(
            p.is_new("no such file", None),
            "logged again after recovering"
        );
    }
}
