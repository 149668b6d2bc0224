//! Flags of `crd-apiserver migrate`: which resources, which server (a kubeconfig), how
//! fast, and where the run records how far it got.

use std::path::PathBuf;

use clap::{ArgGroup, Args};

/// `crd-apiserver migrate --resource <plural.group> | --all`.
#[derive(Args, Debug, Clone)]
#[command(group(ArgGroup::new("which").required(true).args(["resources", "all"])))]
pub struct MigrateFlags {
    /// The resource to migrate, as `<plural>.<group>` (repeatable or comma-separated).
    #[arg(long = "resource", value_delimiter = ',')]
    pub resources: Vec<String>,
    /// Every resource the server lists on `/storedversions`.
    #[arg(long = "all")]
    pub all: bool,
    /// The kubeconfig of the server (or of the cluster whose aggregator serves it); else
    /// KUBECONFIG, ~/.kube/config, or the in-cluster service account.
    #[arg(long = "kubeconfig")]
    pub kubeconfig: Option<PathBuf>,
    /// Migration requests per second (0 = unthrottled).
    #[arg(long = "qps", default_value_t = 50.0)]
    pub qps: f64,
    /// Objects listed per page.
    #[arg(long = "page-size", default_value_t = 500)]
    pub page_size: usize,
    /// Where the run records how far it got, so an interrupted run resumes there
    /// (default: `<--data-dir>/migrate-checkpoint.json`); removed once every resource is done.
    #[arg(long = "checkpoint")]
    pub checkpoint: Option<PathBuf>,
    /// The directory of the default checkpoint.
    #[arg(long = "data-dir", default_value = "data")]
    pub data_dir: PathBuf,
    /// Rewrite every object, even of a resource `/storedversions` shows with nothing at
    /// another version: after a new encryption key is put first in
    /// `--encryption-provider-config`, each object read with an older key is written with
    /// the new one (kube's stale values); objects already current cost no write.
    #[arg(long = "rewrite-all")]
    pub rewrite_all: bool,
    /// Stop after this many objects (0 = no limit); the next run resumes after them.
    #[arg(long = "limit", default_value_t = 0)]
    pub limit: u64,
}

impl MigrateFlags {
    /// The checkpoint file this run reads and writes.
    pub fn checkpoint_path(&self) -> PathBuf {
        match &self.checkpoint {
            Some(path) => path.clone(),
            None => self.data_dir.join("migrate-checkpoint.json"),
        }
    }
}
