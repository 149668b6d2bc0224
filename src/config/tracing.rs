//! `--tracing-config-file` (k8s.io/apiserver's `TracingOptions`): the file is read and
//! checked at start-up, problems reported in kube's words.

use std::path::{Path, PathBuf};

use clap::Args;

use super::validate::Problems;
use crate::telemetry::TracingConfiguration;

const FLAG: &str = "tracing-config-file";

/// The tracing flag, flattened into the serve flags.
#[derive(Args, Debug, Clone, Default)]
pub struct TracingFlags {
    /// File with apiserver tracing configuration (kube's `TracingConfiguration`:
    /// endpoint, samplingRatePerMillion); unset, nothing is traced.
    #[arg(long = "tracing-config-file")]
    pub tracing_config_file: Option<PathBuf>,
}

impl Problems {
    /// The tracing configuration (`Some(None)` without the flag), or `None` with the
    /// problem recorded.
    pub(super) fn tracing(&mut self, flags: &TracingFlags) -> Option<Option<TracingConfiguration>> {
        let Some(path) = &flags.tracing_config_file else {
            return Some(None);
        };
        match read(path) {
            Ok(config) => Some(Some(config)),
            Err(problem) => {
                self.add(FLAG, problem);
                None
            }
        }
    }
}

/// kube's `TracingOptions.Validate` then `ReadTracingConfiguration` and validation.
fn read(path: &Path) -> Result<TracingConfiguration, String> {
    let shown = path.display();
    if !path.exists() {
        return Err(format!("{FLAG} {shown} does not exist"));
    }
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "failed to read tracing config: unable to read tracing configuration from {}: {e}",
            crate::gofmt::quote(&shown.to_string())
        )
    })?;
    crate::telemetry::config::load(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracing_flag_absent_unset_file_problems() {
        let mut problems = Problems::default();
        assert_eq!(problems.tracing(&TracingFlags::default()), Some(None));
        let dir = tempfile::tempdir().expect("tempdir");
        let good = dir.path().join("good.yaml");
        std::fs::write(
            &good,
            "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: 10\n",
        )
        .expect("write");
        let flags = |path: &Path| TracingFlags {
            tracing_config_file: Some(path.to_path_buf()),
        };
        let config = problems
            .tracing(&flags(&good))
            .expect("valid")
            .expect("set");
        assert_eq!(config.sampling_rate_per_million, Some(10));
        assert_eq!(problems.count(), 0);
        let missing = dir.path().join("missing.yaml");
        assert_eq!(problems.tracing(&flags(&missing)), None);
        assert_eq!(problems.tracing(&flags(dir.path())), None);
        let lines = problems.into_lines();
        assert_eq!(
            lines[0],
            format!(
                "--tracing-config-file: tracing-config-file {} does not exist",
                missing.display()
            )
        );
        assert!(
            lines[1].starts_with("--tracing-config-file: failed to read tracing config: unable to read tracing configuration from "),
            "{lines:?}"
        );
    }
}
