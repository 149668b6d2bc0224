//! Flags of offload mode (`--offload-selector`: the host cluster's CRDs we take over) and
//! of `crd-apiserver offload status | --undo`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

/// The offload flag, flattened into the serve flags.
#[derive(Args, Debug, Clone, Default)]
pub struct OffloadFlags {
    /// A label selector (e.g. `crd-apiserver.io/offload=true`): the host cluster's
    /// CustomResourceDefinitions it selects are taken over and served by this server.
    #[arg(long = "offload-selector")]
    pub offload_selector: Option<String>,
}

/// `crd-apiserver offload ...`.
#[derive(Args, Debug, Clone)]
pub struct OffloadCommand {
    #[command(subcommand)]
    pub action: Option<OffloadAction>,
    /// Move this CRD (by name, `<plural>.<group>`) back to the host cluster.
    #[arg(long = "undo")]
    pub undo: Option<String>,
    /// The cluster's kubeconfig; else KUBECONFIG, ~/.kube/config, or in-cluster.
    #[arg(long = "kubeconfig", global = true)]
    pub kubeconfig: Option<PathBuf>,
}

#[derive(Subcommand, Debug, Clone)]
pub enum OffloadAction {
    /// Each offloaded resource's phase.
    Status,
}
