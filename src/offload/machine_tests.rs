#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use super::*;
use Direction::{GiveBack, TakeOver};
use Phase::*;

fn rec(direction: Direction, phase: Phase) -> Option<Record> {
    Some(Record {
        direction,
        phase,
        since: "2026-12-07T17:00:00Z".to_string(),
        objects: 0,
        message: String::new(),
        generation: None,
    })
}

fn failed_rec(message: &str, generation: Option<i64>) -> Option<Record> {
    let mut r = rec(TakeOver, Failed);
    if let Some(r) = r.as_mut() {
        r.message = message.to_string();
        r.generation = generation;
    }
    r
}

/// A CRD `name`, generation 1, selected, not undone, served.
fn crd(name: &str, record: Option<Record>) -> CrdState {
    CrdState {
        name: name.to_string(),
        generation: 1,
        selected: true,
        undo: false,
        record,
        served: true,
    }
}

fn unselected(mut c: CrdState) -> CrdState {
    c.selected = false;
    c
}

fn undone(mut c: CrdState) -> CrdState {
    c.undo = true;
    c
}

fn unserved(mut c: CrdState) -> CrdState {
    c.served = false;
    c
}

fn generation(mut c: CrdState, g: i64) -> CrdState {
    c.generation = g;
    c
}

fn act(steps: &[Step], direction: Direction, phase: Phase) -> Decision {
    Decision::Act {
        steps: steps.to_vec(),
        then: Then::Phase(direction, phase),
    }
}

fn failed_after(steps: &[Step], message: &str, pin: bool) -> Decision {
    Decision::Act {
        steps: steps.to_vec(),
        then: Then::Failed {
            message: message.to_string(),
            pin,
        },
    }
}

const UNSELECTED: &str =
    "take-over rolled back: no longer selected by --offload-selector before it completed";
const UNDONE: &str = "take-over rolled back: undo requested before it completed";

#[test]
fn want_selection_and_undo_direction() {
    let cases: Vec<(&str, Vec<CrdState>, Want)> = vec![
        (
            "all selected",
            vec![crd("a", None), crd("b", None)],
            Want::TakeOver,
        ),
        (
            "none selected",
            vec![unselected(crd("a", None)), unselected(crd("b", None))],
            Want::GiveBack { undo: false },
        ),
        (
            "one selected of two",
            vec![crd("a", None), unselected(crd("b", None))],
            Want::Partial {
                unselected: vec!["b".to_string()],
            },
        ),
        (
            "undo on one of a selected group",
            vec![crd("a", None), undone(crd("b", None))],
            Want::GiveBack { undo: true },
        ),
        (
            "undo wins over a partial selection",
            vec![undone(crd("a", None)), unselected(crd("b", None))],
            Want::GiveBack { undo: true },
        ),
    ];
    for (name, crds, expected) in cases {
        assert_eq!(want(&crds), expected, "{name}");
    }
}

#[test]
fn decide_take_over_each_phase_next_step() {
    use Step::*;
    let cases: Vec<(&str, Vec<CrdState>, Decision)> = vec![
        (
            "selected, no record",
            vec![unserved(crd("a", None))],
            act(&[], TakeOver, Pending),
        ),
        (
            "pending",
            vec![unserved(crd("a", rec(TakeOver, Pending)))],
            act(&[Fence], TakeOver, Fenced),
        ),
        (
            "fenced: served before the copy",
            vec![unserved(crd("a", rec(TakeOver, Fenced)))],
            act(&[Serve], TakeOver, Serving),
        ),
        (
            "serving",
            vec![crd("a", rec(TakeOver, Serving))],
            act(&[Copy], TakeOver, Copied),
        ),
        (
            "copied",
            vec![crd("a", rec(TakeOver, Copied))],
            act(&[Switch], TakeOver, Switched),
        ),
        (
            "switched",
            vec![crd("a", rec(TakeOver, Switched))],
            act(&[AwaitAvailable], TakeOver, Phase::Available),
        ),
        (
            "available",
            vec![crd("a", rec(TakeOver, Phase::Available))],
            act(&[LiftFence], TakeOver, Offloaded),
        ),
        (
            "offloaded",
            vec![crd("a", rec(TakeOver, Offloaded))],
            Decision::Idle,
        ),
        (
            "records apart after a crash: the lowest rules",
            vec![
                crd("a", rec(TakeOver, Switched)),
                crd("b", rec(TakeOver, Serving)),
            ],
            act(&[Copy], TakeOver, Copied),
        ),
        (
            "a CRD new in an offloaded group: refused (its host objects would overwrite ours)",
            vec![crd("a", rec(TakeOver, Offloaded)), unserved(crd("b", None))],
            Decision::Refuse("b joined a group this server already serves: its objects at the host would be copied over the group's objects here; give the group back first (crd-apiserver offload --undo), then select it with the others".to_string()),
        ),
        (
            "a CRD new in a group being given back: refused too",
            vec![crd("a", rec(GiveBack, SwitchedBack)), unserved(crd("b", None))],
            Decision::Refuse("b joined a group this server already serves: its objects at the host would be copied over the group's objects here; give the group back first (crd-apiserver offload --undo), then select it with the others".to_string()),
        ),
        (
            "a CRD new in a group still moving before Offloaded joins from Pending (the host is still the source)",
            vec![crd("a", rec(TakeOver, Switched)), unserved(crd("b", None))],
            act(&[], TakeOver, Pending),
        ),
        (
            "not served after a restart while serving: serve again, record kept",
            vec![unserved(crd("a", rec(TakeOver, Switched)))],
            act_nothing(&[Serve]),
        ),
        (
            "definition changed while offloaded: served again",
            vec![
                crd("a", rec(TakeOver, Offloaded)),
                unserved(crd("b", rec(TakeOver, Offloaded))),
            ],
            act_nothing(&[Serve]),
        ),
    ];
    for (name, crds, expected) in cases {
        assert_eq!(decide(&crds), expected, "{name}");
    }
}

fn act_nothing(steps: &[Step]) -> Decision {
    Decision::Act {
        steps: steps.to_vec(),
        then: Then::Nothing,
    }
}

#[test]
fn decide_unselected_or_undone_before_offloaded_rolls_back() {
    use Step::*;
    let cases: Vec<(&str, Vec<CrdState>, Decision)> = vec![
        (
            "unselected at Pending: the fence may exist",
            vec![unselected(crd("a", rec(TakeOver, Pending)))],
            failed_after(&[LiftFence], UNSELECTED, false),
        ),
        (
            "undone at Fenced: serve may have run",
            vec![undone(crd("a", rec(TakeOver, Fenced)))],
            failed_after(&[StopServing, LiftFence], UNDONE, false),
        ),
        (
            "unselected at Serving: copy may have run (its objects stay, unserved)",
            vec![unselected(crd("a", rec(TakeOver, Serving)))],
            failed_after(&[StopServing, LiftFence], UNSELECTED, false),
        ),
        (
            "undone at Copied, not served after a restart: no serving first",
            vec![undone(unserved(crd("a", rec(TakeOver, Copied))))],
            failed_after(&[SwitchBack, StopServing, LiftFence], UNDONE, false),
        ),
        (
            "partially unselected at Available",
            vec![
                crd("a", rec(TakeOver, Phase::Available)),
                unselected(crd("b", rec(TakeOver, Phase::Available))),
            ],
            failed_after(&[SwitchBack, StopServing, LiftFence], UNSELECTED, false),
        ),
    ];
    for (name, crds, expected) in cases {
        assert_eq!(decide(&crds), expected, "{name}");
    }
}

#[test]
fn roll_back_refused_step_undoes_up_to_next_step() {
    use Step::*;
    let cases = [
        (Pending, vec![LiftFence]),
        (Fenced, vec![StopServing, LiftFence]),
        (Serving, vec![StopServing, LiftFence]),
        (Copied, vec![SwitchBack, StopServing, LiftFence]),
        (Phase::Available, vec![SwitchBack, StopServing, LiftFence]),
    ];
    for (from, steps) in cases {
        assert_eq!(
            roll_back(from, "uid clash".to_string(), true),
            failed_after(&steps, "uid clash", true),
            "{from:?}"
        );
    }
}

#[test]
fn decide_give_back_each_phase_next_step() {
    use Step::*;
    let cases: Vec<(&str, Vec<CrdState>, Decision)> = vec![
        (
            "undo on an offloaded group",
            vec![
                crd("a", rec(TakeOver, Offloaded)),
                undone(crd("b", rec(TakeOver, Offloaded))),
            ],
            act(&[Fence], GiveBack, Fenced),
        ),
        (
            "unselected offloaded group",
            vec![unselected(crd("a", rec(TakeOver, Offloaded)))],
            act(&[Fence], GiveBack, Fenced),
        ),
        (
            "offloaded, not served after a restart, undone: serve first",
            vec![undone(unserved(crd("a", rec(TakeOver, Offloaded))))],
            act_nothing(&[Serve]),
        ),
        (
            "fenced",
            vec![unselected(crd("a", rec(GiveBack, Fenced)))],
            act(&[SwitchBack], GiveBack, SwitchedBack),
        ),
        (
            "switched back, not served after a restart",
            vec![unselected(unserved(crd("a", rec(GiveBack, SwitchedBack))))],
            act_nothing(&[Serve]),
        ),
        (
            "switched back",
            vec![unselected(crd("a", rec(GiveBack, SwitchedBack)))],
            act(&[SyncBack], GiveBack, Synced),
        ),
        (
            "synced",
            vec![unselected(crd("a", rec(GiveBack, Synced)))],
            act(&[LiftFence, StopServing], GiveBack, Returned),
        ),
        (
            "give-back completes even when selected again midway",
            vec![crd("a", rec(GiveBack, SwitchedBack))],
            act(&[SyncBack], GiveBack, Synced),
        ),
        (
            "records apart: offloaded and give-back fenced",
            vec![
                undone(crd("a", rec(GiveBack, Fenced))),
                crd("b", rec(TakeOver, Offloaded)),
            ],
            act(&[Fence], GiveBack, Fenced),
        ),
        (
            "returned and unselected: the record is removed",
            vec![unselected(unserved(crd("a", rec(GiveBack, Returned))))],
            Decision::Act {
                steps: vec![],
                then: Then::Clear,
            },
        ),
        (
            "returned, still selected, undo kept: idle",
            vec![undone(unserved(crd("a", rec(GiveBack, Returned))))],
            Decision::Idle,
        ),
        (
            "returned, undo removed: taken over again",
            vec![unserved(crd("a", rec(GiveBack, Returned)))],
            act(&[], TakeOver, Pending),
        ),
    ];
    for (name, crds, expected) in cases {
        assert_eq!(decide(&crds), expected, "{name}");
    }
}

#[test]
fn decide_partial_selection_refused() {
    let cases: Vec<(&str, Vec<CrdState>, Decision)> = vec![
        (
            "partial selection, nothing moved",
            vec![unserved(crd("a", None)), unselected(unserved(crd("b", None)))],
            Decision::Refuse(
                "an API group moves as a whole: not selected by --offload-selector: b".to_string(),
            ),
        ),
        (
            "one CRD of an offloaded group unselected: refused, still served",
            vec![crd("a", rec(TakeOver, Offloaded)), unselected(crd("b", rec(TakeOver, Offloaded)))],
            Decision::Refuse("an API group is given back as a whole: unselect all its CustomResourceDefinitions or use `crd-apiserver offload --undo`; unselected: b".to_string()),
        ),
        (
            "nothing selected, no record: idle",
            vec![unselected(unserved(crd("a", None)))],
            Decision::Idle,
        ),
    ];
    for (name, crds, expected) in cases {
        assert_eq!(decide(&crds), expected, "{name}");
    }
}

#[path = "machine_failed_tests.rs"]
mod failed;
