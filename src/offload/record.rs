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
}
