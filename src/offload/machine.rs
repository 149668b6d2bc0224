//! The move's state machine, pure: from what the host's CRDs of one unit say (selected by
//! `--offload-selector`, the undo annotation, the records on them, whether we serve their
//! current definitions) it decides the wanted direction and the next step.
//!
//! Records are written CRD by CRD, so a crash can leave them apart: the unit's state is
//! the lowest recorded on its CRDs (give-back's phases rank after take-over's, `Failed`
//! lowest), and every step is idempotent, so the lowest phase's next step is always safe.

use super::record::{Direction, Phase, Record};

/// What the machine sees of one host CRD of the unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrdState {
    pub name: String,
    /// Its `metadata.generation` (a `Failed` take-over is retried when it changes).
    pub generation: i64,
    /// Whether `--offload-selector` selects it.
    pub selected: bool,
    /// Whether it carries the undo annotation.
    pub undo: bool,
    pub record: Option<Record>,
    /// Whether we serve its current definition (uid and generation).
    pub served: bool,
}

/// Which way the unit's CRDs ask to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Want {
    /// Every CRD of the group selected, none undone.
    TakeOver,
    /// None selected, or one undone.
    GiveBack { undo: bool },
    /// Some selected, not all: a group moves whole, so this is refused.
    Partial { unselected: Vec<String> },
}

/// A side effect, done through [`super::Steps`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Fence,
    Copy,
    Serve,
    Switch,
    /// Waits for every APIService of the unit to be `Available`.
    AwaitAvailable,
    LiftFence,
    StopServing,
    SwitchBack,
    SyncBack,
}

/// What is recorded once the steps succeeded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Then {
    /// This phase, on every CRD of the unit.
    Phase(Direction, Phase),
    /// `Failed` with the reason; `pin` keeps each CRD's generation (retried on a change).
    Failed { message: String, pin: bool },
    /// Nothing (a definition served again).
    Nothing,
    /// The record removed (given back and no longer selected).
    Clear,
}

/// The next thing to do for a unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Idle,
    /// Nothing moves; a Warning event says why.
    Refuse(String),
    /// Do the steps in order, then record.
    Act {
        steps: Vec<Step>,
        then: Then,
    },
}

/// The unit's state: the lowest record on its CRDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Moving(Direction, Phase),
    Failed,
}

/// Where a (direction, phase) ranks in the whole move; `Failed` ranks lowest.
fn rank(direction: Direction, phase: Phase) -> u8 {
    use Phase::*;
    match (direction, phase) {
        (_, Failed) => 0,
        (Direction::TakeOver, Pending) => 1,
        (Direction::TakeOver, Fenced) => 2,
        (_, Serving) => 3,
        (_, Copied) => 4,
        (_, Switched) => 5,
        (_, Available) => 6,
        (_, Offloaded) => 7,
        (Direction::GiveBack, Fenced) => 8,
        (_, SwitchedBack) => 9,
        (_, Synced) => 10,
        (_, Returned) => 11,
        (Direction::GiveBack, Pending) => 1,
    }
}

/// Which way the CRDs ask to move.
pub fn want(crds: &[CrdState]) -> Want {
    let undo = crds.iter().any(|c| c.undo);
    let unselected: Vec<String> = crds
        .iter()
        .filter(|c| !c.selected)
        .map(|c| c.name.clone())
        .collect();
    if undo || unselected.len() == crds.len() {
        Want::GiveBack { undo }
    } else if unselected.is_empty() {
        Want::TakeOver
    } else {
        Want::Partial { unselected }
    }
}

/// The unit's state, `None` when no move is under way or wanted. A CRD without a record
/// counts as `Pending` when a take-over is wanted (a CRD new in the group joins the move).
fn state(crds: &[CrdState], want: &Want) -> Option<State> {
    let pending = Record {
        direction: Direction::TakeOver,
        phase: Phase::Pending,
        since: String::new(),
        objects: 0,
        message: String::new(),
        generation: None,
    };
    crds.iter()
        .filter_map(|c| match (&c.record, want) {
            (Some(r), _) => Some(r),
            (None, Want::TakeOver) => Some(&pending),
            (None, _) => None,
        })
        .min_by_key(|r| rank(r.direction, r.phase))
        .map(|r| match r.phase {
            Phase::Failed => State::Failed,
            phase => State::Moving(r.direction, phase),
        })
}

/// The next thing to do for a unit whose CRDs are `crds` (sorted by name).
pub fn decide(crds: &[CrdState]) -> Decision {
    let want = want(crds);
    if let Some(message) = joined_settled_group(crds, &want) {
        return Decision::Refuse(message);
    }
    if want == Want::TakeOver && crds.iter().any(|c| c.record.is_none()) {
        // A new move, or a CRD new in the group joining one: recorded first.
        return record(Direction::TakeOver, Phase::Pending);
    }
    match state(crds, &want) {
        None => match want {
            Want::TakeOver => record(Direction::TakeOver, Phase::Pending),
            Want::Partial { unselected } => Decision::Refuse(partial(&unselected)),
            Want::GiveBack { .. } => Decision::Idle,
        },
        Some(State::Failed) => failed(crds, &want),
        Some(State::Moving(Direction::TakeOver, phase)) => taking_over(crds, phase, &want),
        Some(State::Moving(Direction::GiveBack, phase)) => giving_back(crds, phase, &want),
    }
}

/// A CRD without a record in a group already offloaded, or being given back: joining
/// the move would copy the host's old objects over ours (the group's writes land here
/// since the take-over), so it is refused until the group is given back.
fn joined_settled_group(crds: &[CrdState], want: &Want) -> Option<String> {
    if *want != Want::TakeOver {
        return None;
    }
    let settled = crds.iter().filter_map(|c| c.record.as_ref()).any(|r| {
        matches!(
            (r.direction, r.phase),
            (Direction::TakeOver, Phase::Offloaded)
        ) || (r.direction == Direction::GiveBack && r.phase != Phase::Returned)
    });
    let newcomers: Vec<&str> = crds
        .iter()
        .filter(|c| c.record.is_none())
        .map(|c| c.name.as_str())
        .collect();
    (settled && !newcomers.is_empty()).then(|| {
        format!(
            "{} joined a group this server already serves: its objects at the host would be copied over the group's objects here; give the group back first (crd-apiserver offload --undo), then select it with the others",
            newcomers.join(", ")
        )
    })
}

fn record(direction: Direction, phase: Phase) -> Decision {
    Decision::Act {
        steps: Vec::new(),
        then: Then::Phase(direction, phase),
    }
}

fn step(step: Step, direction: Direction, phase: Phase) -> Decision {
    Decision::Act {
        steps: vec![step],
        then: Then::Phase(direction, phase),
    }
}

fn reserve() -> Decision {
    Decision::Act {
        steps: vec![Step::Serve],
        then: Then::Nothing,
    }
}

fn all_served(crds: &[CrdState]) -> bool {
    crds.iter().all(|c| c.served)
}

/// A take-over at `phase` (its step done and recorded).
fn taking_over(crds: &[CrdState], phase: Phase, want: &Want) -> Decision {
    use Phase::*;
    // Rolling back needs nothing served: serving stops.
    let rolling_back = phase < Offloaded && *want != Want::TakeOver;
    if phase >= Serving && !rolling_back && !all_served(crds) {
        return reserve();
    }
    match (phase, want) {
        (Offloaded, Want::TakeOver) => Decision::Idle,
        (Offloaded, Want::Partial { unselected }) => {
            Decision::Refuse(partial_give_back(unselected))
        }
        (Offloaded, Want::GiveBack { .. }) => step(Step::Fence, Direction::GiveBack, Fenced),
        (_, Want::TakeOver) => match phase {
            Pending => step(Step::Fence, Direction::TakeOver, Fenced),
            // Served before the copy: the restore writes go through the resource's
            // encryption and watch cache; nothing routes to us before the switch.
            Fenced => step(Step::Serve, Direction::TakeOver, Serving),
            Serving => step(Step::Copy, Direction::TakeOver, Copied),
            Copied => step(Step::Switch, Direction::TakeOver, Switched),
            Switched => step(Step::AwaitAvailable, Direction::TakeOver, Available),
            _ => step(Step::LiftFence, Direction::TakeOver, Offloaded),
        },
        (_, want) => roll_back(phase, rolled_back(want), false),
    }
}

/// A give-back at `phase`: once started it completes, whatever is wanted meanwhile.
fn giving_back(crds: &[CrdState], phase: Phase, want: &Want) -> Decision {
    use Phase::*;
    if phase != Returned && !all_served(crds) {
        return reserve();
    }
    match phase {
        Fenced => step(Step::SwitchBack, Direction::GiveBack, SwitchedBack),
        SwitchedBack => step(Step::SyncBack, Direction::GiveBack, Synced),
        Synced => Decision::Act {
            steps: vec![Step::LiftFence, Step::StopServing],
            then: Then::Phase(Direction::GiveBack, Returned),
        },
        _ => match want {
            Want::TakeOver => record(Direction::TakeOver, Pending),
            Want::GiveBack { .. } if crds.iter().all(|c| !c.selected) => Decision::Act {
                steps: Vec::new(),
                then: Then::Clear,
            },
            _ => Decision::Idle,
        },
    }
}

/// A failed take-over: its record completed on every CRD, then retried when wanted and
/// changed (a CRD's generation moved, a CRD joined, or it failed for being unwanted).
fn failed(crds: &[CrdState], want: &Want) -> Decision {
    let failures: Vec<&Record> = crds
        .iter()
        .filter_map(|c| c.record.as_ref())
        .filter(|r| r.phase == Phase::Failed)
        .collect();
    let Some(first) = failures.first() else {
        return Decision::Idle;
    };
    let unfinished = crds
        .iter()
        .any(|c| c.record.as_ref().is_some_and(|r| r.phase != Phase::Failed));
    if unfinished {
        return Decision::Act {
            steps: Vec::new(),
            then: Then::Failed {
                message: first.message.clone(),
                pin: first.generation.is_some(),
            },
        };
    }
    let changed = crds.iter().any(|c| match &c.record {
        Some(r) => r.generation.is_none_or(|g| g != c.generation),
        None => true,
    });
    match want {
        Want::TakeOver if changed => record(Direction::TakeOver, Phase::Pending),
        _ => Decision::Idle,
    }
}

/// What to do when a step of [`decide`]'s answer was refused: a take-over not yet
/// `Offloaded` rolls back (pinned to the definitions' generations); anything else stays
/// as it is, with a Warning.
pub fn refused(crds: &[CrdState], message: String) -> Decision {
    match state(crds, &want(crds)) {
        Some(State::Moving(Direction::TakeOver, phase)) if phase < Phase::Offloaded => {
            roll_back(phase, message, true)
        }
        _ => Decision::Refuse(message),
    }
}

/// Whether the unit's records say it is served here (from `Serving` to `Offloaded`, and
/// during a give-back until `Returned`): what a replica that is not the leader follows.
pub fn serves(crds: &[CrdState]) -> bool {
    let recorded: Vec<CrdState> = crds
        .iter()
        .filter(|c| c.record.is_some())
        .cloned()
        .collect();
    match state(&recorded, &want(crds)) {
        Some(State::Moving(direction, phase)) => (rank(Direction::TakeOver, Phase::Serving)
            ..=rank(Direction::GiveBack, Phase::Synced))
            .contains(&rank(direction, phase)),
        _ => false,
    }
}

/// Undoes a take-over recorded at `from`: each step up to the one after `from` may have
/// been done (a crash before its record), so each is undone; then `Failed`.
pub fn roll_back(from: Phase, message: String, pin: bool) -> Decision {
    let mut steps = Vec::new();
    if from >= Phase::Copied {
        steps.push(Step::SwitchBack);
    }
    if from >= Phase::Fenced {
        steps.push(Step::StopServing);
    }
    steps.push(Step::LiftFence);
    Decision::Act {
        steps,
        then: Then::Failed { message, pin },
    }
}

fn rolled_back(want: &Want) -> String {
    match want {
        Want::GiveBack { undo: true } => {
            "take-over rolled back: undo requested before it completed".to_string()
        }
        _ => "take-over rolled back: no longer selected by --offload-selector before it completed"
            .to_string(),
    }
}

fn partial(unselected: &[String]) -> String {
    format!(
        "an API group moves as a whole: not selected by --offload-selector: {}",
        unselected.join(", ")
    )
}

fn partial_give_back(unselected: &[String]) -> String {
    format!(
        "an API group is given back as a whole: unselect all its CustomResourceDefinitions or use `crd-apiserver offload --undo`; unselected: {}",
        unselected.join(", ")
    )
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
