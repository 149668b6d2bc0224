//! Offload mode (`--offload-selector`): the host cluster's CustomResourceDefinitions that
//! the selector picks are taken over — their objects copied here and their APIServices
//! switched to us — without losing or duplicating a write, and given back on request.
//!
//! The unit moved is a **group** ([`Unit`]): an APIService routes a whole group/version,
//! and a CRD's versions share its objects, so every host CRD of a group moves together
//! (a group whose CRDs are not all selected is refused, with an event).
//!
//! - [`record`]: the progress record kept on each CRD of the unit (an annotation), its
//!   phases, pure.
//! - [`machine`]: what a unit wants and its next step, pure; [`driver`] takes one
//!   decision (a step, its records, events, metrics); [`controller`] follows the host's
//!   CRDs and runs one task per unit under the [`lease`].
//! - [`Steps`]: the side effects of each phase (fence, copy, serve, switch, ...), done
//!   against the host cluster and our own store ([`steps`]); each is idempotent, so a
//!   crash between a step and its record is resumed by doing the step again.
//! - [`cli`]: `crd-apiserver offload status | --undo NAME`.

pub mod cli;
pub mod controller;
pub mod driver;
pub mod events;
pub mod host;
pub mod lease;
pub mod machine;
pub mod metrics;
pub mod record;
pub mod steps;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

pub use record::{Direction, Phase, Record};

/// Label on every object offload creates in the host cluster (fence policies and
/// bindings, events); APIServices we own carry [`crate::register`]'s ownership label.
pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";
pub const MANAGED_BY: &str = "crd-apiserver";
/// Annotation on a host CRD asking for it to be moved back (`crd-apiserver offload --undo`).
pub const UNDO_ANNOTATION: &str = "crd-apiserver.io/offload-undo";
/// The field manager (and events' reportingController) of offload's writes to the host.
pub const FIELD_MANAGER: &str = "crd-apiserver-offload";

/// What moves together: the host's CRDs of one API group, sorted by name.
#[derive(Debug, Clone)]
pub struct Unit {
    pub group: String,
    pub crds: Vec<CustomResourceDefinition>,
}

impl Unit {
    /// The group's versions, as APIService names (`<version>.<group>`), sorted, unique.
    pub fn apiservice_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .crds
            .iter()
            .flat_map(|crd| crd.spec.versions.iter().filter(|v| v.served))
            .map(|v| format!("{}.{}", v.name, self.group))
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// Why a step failed: retried later ([`StepError::Transient`]) or the move must roll back
/// ([`StepError::Refused`], e.g. an object here with the same name and another uid).
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    #[error("{0}")]
    Transient(String),
    #[error("{0}")]
    Refused(String),
}

/// What a copy did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Copied {
    /// Objects listed at the host.
    pub listed: usize,
    /// Objects written here (new or changed since an earlier pass).
    pub written: usize,
    /// Objects here that the host no longer has, deleted here (give-back: the host's
    /// objects we do not have, deleted there).
    pub deleted: usize,
    /// Give-back: objects only here, created at the host, which gave them a new uid.
    pub recreated: usize,
}

/// The side effects of the phases, each idempotent.
#[async_trait::async_trait]
pub trait Steps: Send + Sync {
    /// Take-over and give-back: a ValidatingAdmissionPolicy + binding of ours denying
    /// CREATE/UPDATE/DELETE of the unit's resources (everyone but us), in effect at the
    /// host (and, as we follow the host's policies, here) when this returns.
    async fn fence(&self, unit: &Unit) -> Result<(), StepError>;
    /// Removes the fence's policy and binding.
    async fn lift_fence(&self, unit: &Unit) -> Result<(), StepError>;
    /// Copies every object of the unit from the host (a consistent, paged LIST at each
    /// CRD's storage version) into our store through the restore path, preserving
    /// metadata (uid, creationTimestamp, generation, managedFields, ...) and status;
    /// repeats until a pass changes nothing.
    async fn copy(&self, unit: &Unit) -> Result<Copied, StepError>;
    /// Serves the unit's CRDs here (hot-added to the catalog; a changed definition replaces
    /// the old one).
    async fn serve(&self, unit: &Unit) -> Result<(), StepError>;
    /// Stops serving the unit's CRDs here (objects stay in our store).
    async fn stop_serving(&self, unit: &Unit) -> Result<(), StepError>;
    /// Points the unit's APIServices at our Service (dropping kube-aggregator's
    /// `automanaged` label so kube's autoregister controller leaves them alone).
    async fn switch(&self, unit: &Unit) -> Result<(), StepError>;
    /// Whether every APIService of the unit is `Available=True`.
    async fn available(&self, unit: &Unit) -> Result<bool, StepError>;
    /// Points the unit's APIServices back at the host (local, `automanaged` again).
    async fn switch_back(&self, unit: &Unit) -> Result<(), StepError>;
    /// Writes our objects back to the host (same-uid objects updated, ours created,
    /// the host's extra ones deleted); how many were written.
    async fn sync_back(&self, unit: &Unit) -> Result<Copied, StepError>;
    /// Objects of the unit in our store.
    async fn count_here(&self, unit: &Unit) -> Result<usize, StepError>;
}
