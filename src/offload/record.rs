//! The progress record of a move, kept as the annotation [`ANNOTATION`] on each host CRD
//! of the unit (JSON), written after each phase's step succeeded: a restarted server
//! reads it back and resumes with the next step.

use serde::{Deserialize, Serialize};

/// The annotation holding the record.
pub const ANNOTATION: &str = "crd-apiserver.io/offload";

/// Which way the unit moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    /// From the host cluster to us.
    TakeOver,
    /// From us back to the host cluster.
    GiveBack,
}

/// How far a move got; each phase is recorded after its step succeeded.
///
/// Take-over: `Pending → Fenced → Serving → Copied → Switched → Available → Offloaded`
/// (served before the copy, so the restore writes go through the resource's encryption
/// and watch cache; nothing routes to us before the switch, and the fence, which our
/// admission follows too, refuses writes sent to us directly).
/// Give-back: `Offloaded → Fenced → SwitchedBack → Synced → Returned`.
/// A take-over refused midway rolls back (switch back, stop serving, lift the fence) and
/// records `Failed` with the reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Phase {
    Pending,
    Fenced,
    Serving,
    Copied,
    Switched,
    Available,
    Offloaded,
    SwitchedBack,
    Synced,
    Returned,
    Failed,
}

/// The record on one CRD.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub direction: Direction,
    pub phase: Phase,
    /// When the phase was reached (RFC 3339).
    pub since: String,
    /// Objects copied by the last copy or sync.
    #[serde(default)]
    pub objects: usize,
    /// Why a move failed or is refused.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// On a `Failed` take-over refused by a step: the CRD's `metadata.generation` then; the
    /// take-over is retried once the definition changes. Unset on a take-over rolled back
    /// because it was unselected or undone: retried as soon as it is wanted again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
}

impl Phase {
    /// All phases, in order (the phase gauge sets each).
    pub const ALL: [Phase; 11] = [
        Phase::Pending,
        Phase::Fenced,
        Phase::Copied,
        Phase::Serving,
        Phase::Switched,
        Phase::Available,
        Phase::Offloaded,
        Phase::SwitchedBack,
        Phase::Synced,
        Phase::Returned,
        Phase::Failed,
    ];

    /// Its name, as recorded and as the metrics' `phase` label.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Pending => "Pending",
            Phase::Fenced => "Fenced",
            Phase::Copied => "Copied",
            Phase::Serving => "Serving",
            Phase::Switched => "Switched",
            Phase::Available => "Available",
            Phase::Offloaded => "Offloaded",
            Phase::SwitchedBack => "SwitchedBack",
            Phase::Synced => "Synced",
            Phase::Returned => "Returned",
            Phase::Failed => "Failed",
        }
    }
}

impl Direction {
    /// Its name, as recorded and as events' `action`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::TakeOver => "TakeOver",
            Direction::GiveBack => "GiveBack",
        }
    }
}

impl Record {
    /// The record on `annotations`, if any and readable.
    pub fn read(
        annotations: Option<&std::collections::BTreeMap<String, String>>,
    ) -> Option<Record> {
        let text = annotations?.get(ANNOTATION)?;
        match serde_json::from_str(text) {
            Ok(record) => Some(record),
            Err(e) => {
                tracing::warn!(error = %e, "unreadable {ANNOTATION} annotation; ignored");
                None
            }
        }
    }
}
