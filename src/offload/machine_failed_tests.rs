//! The machine's `Failed` rows (split from machine_tests.rs).

use super::*;

#[test]
fn decide_failed_retried_only_after_change() {
    let cases: Vec<(&str, Vec<CrdState>, Decision)> = vec![
        (
            "refused at generation 1, unchanged: idle",
            vec![unserved(crd("a", failed_rec("clash", Some(1))))],
            Decision::Idle,
        ),
        (
            "refused at generation 1, now 2: retried",
            vec![generation(
                unserved(crd("a", failed_rec("clash", Some(1)))),
                2,
            )],
            act(&[], TakeOver, Pending),
        ),
        (
            "rolled back for undo, undo removed: retried",
            vec![unserved(crd("a", failed_rec(UNDONE, None)))],
            act(&[], TakeOver, Pending),
        ),
        (
            "rolled back for undo, undo still set: idle",
            vec![undone(unserved(crd("a", failed_rec(UNDONE, None))))],
            Decision::Idle,
        ),
        (
            "failed written on one CRD of two before a crash: finished first",
            vec![
                unserved(crd("a", failed_rec("clash", Some(1)))),
                unserved(crd("b", rec(TakeOver, Copied))),
            ],
            failed_after(&[], "clash", true),
        ),
        (
            "a CRD joining a failed group: retried",
            vec![
                unserved(crd("a", failed_rec("clash", Some(1)))),
                unserved(crd("b", None)),
            ],
            act(&[], TakeOver, Pending),
        ),
    ];
    for (name, crds, expected) in cases {
        assert_eq!(decide(&crds), expected, "{name}");
    }
}
