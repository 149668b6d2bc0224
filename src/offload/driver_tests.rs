#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

//! The driver against an in-memory host and steps that record their calls, fail on
//! script, or "crash" (never return, and the driver is dropped) after a step or in the
//! middle of the records; a fresh driver then resumes from the records alone.

#[path = "driver_fakes.rs"]
mod fakes;

use std::sync::Arc;

use super::*;
use fakes::*;

#[tokio::test]
async fn advance_fresh_unit_takes_over_each_step_once() {
    let (host, steps) = (host(), Arc::new(MemSteps::default()));
    let mut d = driver(&host, &steps);
    settle(&mut d, &host, true).await;
    assert_eq!(*steps.calls.lock().unwrap(), TAKE_OVER.to_vec());
    assert_eq!(host.phases(), vec![OFFLOADED, OFFLOADED]);
    assert!(
        host.records()
            .iter()
            .all(|r| r.as_ref().unwrap().objects == 7)
    );
    let reasons: Vec<&str> = [
        "OffloadPending",
        "OffloadFenced",
        "OffloadServing",
        "OffloadCopied",
        "OffloadSwitched",
        "OffloadAvailable",
        "OffloadOffloaded",
    ]
    .to_vec();
    for name in ["crontabs.stable.example.com", "widgets.stable.example.com"] {
        assert_eq!(host.reasons(name), reasons, "{name}");
    }
    // Once offloaded, nothing more happens.
    assert_eq!(d.advance(&host.unit(), true).await, Outcome::Idle);
    assert_eq!(steps.calls.lock().unwrap().len(), 6);
}

/// The take-over's steps done after a crash at `point` (a step's name: after it, before
/// its record; or `write:<n>`: the n-th record write never returns) and a restart:
/// the step in flight twice, and serve again when the crash came once serving.
#[tokio::test(start_paused = true)]
async fn advance_crash_at_each_point_resumes_each_step_right_times() {
    // (crash point, step redone); record writes: 2 per phase, Pending first.
    let mut points: Vec<(Option<&'static str>, Option<usize>, &'static str)> =
        TAKE_OVER.iter().map(|s| (Some(*s), None, *s)).collect();
    let phase_steps = [
        "",
        "fence",
        "serve",
        "copy",
        "switch",
        "available",
        "lift_fence",
    ];
    for write in 0..14 {
        points.push((None, Some(write), phase_steps[write / 2]));
    }
    for (after, write, redone) in points {
        let (host, steps) = (host(), Arc::new(MemSteps::default()));
        *steps.crash_after.lock().unwrap() = after;
        *host.crash_at_write.lock().unwrap() = write;
        crash(&mut driver(&host, &steps), &host).await;
        let mut d = driver(&host, &steps);
        settle(&mut d, &host, true).await;
        assert_eq!(
            host.phases(),
            vec![OFFLOADED, OFFLOADED],
            "{after:?} {write:?}"
        );
        let serving = TAKE_OVER[1..].contains(&redone);
        let expected: Vec<(&str, usize)> = TAKE_OVER
            .iter()
            .map(|s| {
                (
                    *s,
                    1 + usize::from(*s == redone)
                        + usize::from(*s == "serve" && serving && redone != "serve"),
                )
            })
            .collect();
        assert_eq!(
            counts(&steps, &TAKE_OVER),
            expected,
            "crash after {after:?} / at write {write:?}"
        );
    }
}

#[tokio::test]
async fn advance_refused_copy_rolls_back_and_waits_for_a_change() {
    let (host, steps) = (host(), Arc::new(MemSteps::default()));
    steps.fail(
        "copy",
        vec![StepError::Refused("uid clash on default/a".to_string())],
    );
    let mut d = driver(&host, &steps);
    settle(&mut d, &host, true).await;
    assert_eq!(
        *steps.calls.lock().unwrap(),
        vec!["fence", "serve", "copy", "stop_serving", "lift_fence"]
    );
    for record in host.records() {
        let r = record.unwrap();
        assert_eq!(
            (r.phase, r.generation, r.message.as_str()),
            (Phase::Failed, Some(1), "uid clash on default/a")
        );
    }
    assert_eq!(
        host.reasons("crontabs.stable.example.com").last().unwrap(),
        "OffloadFailed"
    );
    // Not retried until the definition changes; then from Pending again.
    assert_eq!(d.advance(&host.unit(), true).await, Outcome::Idle);
    host.edit("widgets.stable.example.com", |c| {
        c.metadata.generation = Some(2)
    });
    settle(&mut d, &host, true).await;
    assert_eq!(host.phases(), vec![OFFLOADED, OFFLOADED]);
    assert_eq!(steps.count("copy"), 2);
}

#[tokio::test(start_paused = true)]
async fn advance_crash_during_roll_back_rolls_back_again() {
    let (host, steps) = (host(), Arc::new(MemSteps::default()));
    // Refused at the switch (recorded Copied); the crash after the fence is lifted.
    steps.fail(
        "switch",
        vec![
            StepError::Refused("no".into()),
            StepError::Refused("no".into()),
        ],
    );
    *steps.crash_after.lock().unwrap() = Some("lift_fence");
    crash(&mut driver(&host, &steps), &host).await;
    let mut d = driver(&host, &steps);
    settle(&mut d, &host, true).await;
    assert!(
        host.phases()
            .iter()
            .all(|p| *p == Some((Direction::TakeOver, Phase::Failed)))
    );
    assert_eq!(
        counts(
            &steps,
            &["switch", "switch_back", "stop_serving", "lift_fence"]
        ),
        vec![
            ("switch", 2),
            ("switch_back", 2),
            ("stop_serving", 2),
            ("lift_fence", 2)
        ]
    );
}

#[tokio::test]
async fn advance_transient_failures_and_unavailable_retried_then_offloaded() {
    let (host, steps) = (host(), Arc::new(MemSteps::default()));
    steps.fail(
        "copy",
        vec![
            StepError::Transient("list: 503".into()),
            StepError::Transient("list: 503".into()),
        ],
    );
    *steps.unavailable.lock().unwrap() = 2;
    let mut d = driver(&host, &steps);
    let outcomes = settle(&mut d, &host, true).await;
    let retries = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Retry(m) if m == "list: 503"))
        .count();
    let waits = outcomes.iter().filter(|o| **o == Outcome::NotYet).count();
    assert_eq!((retries, waits), (2, 2));
    assert_eq!((steps.count("copy"), steps.count("available")), (3, 3));
    assert_eq!(host.phases(), vec![OFFLOADED, OFFLOADED]);
}

const GIVE_BACK: [&str; 5] = [
    "fence",
    "switch_back",
    "sync_back",
    "lift_fence",
    "stop_serving",
];
const RETURNED: Option<(Direction, Phase)> = Some((Direction::GiveBack, Phase::Returned));

#[tokio::test(start_paused = true)]
async fn advance_undo_gives_back_and_resumes_after_a_crash_at_each_step() {
    for crash_after in [None].into_iter().chain(GIVE_BACK.iter().map(|s| Some(*s))) {
        let (host, steps) = (host(), Arc::new(MemSteps::default()));
        let mut d = driver(&host, &steps);
        settle(&mut d, &host, true).await;
        steps.calls.lock().unwrap().clear();
        host.edit("widgets.stable.example.com", |c| {
            c.metadata
                .annotations
                .get_or_insert_default()
                .insert(UNDO_ANNOTATION.into(), "true".into());
        });
        if crash_after.is_some() {
            *steps.crash_after.lock().unwrap() = crash_after;
            crash(&mut d, &host).await;
            d = driver(&host, &steps);
        }
        // A fresh driver after a crash serves the unit again first.
        settle(&mut d, &host, true).await;
        assert_eq!(host.phases(), vec![RETURNED, RETURNED], "{crash_after:?}");
        let expected: Vec<(&str, usize)> = GIVE_BACK
            .iter()
            .map(|s| {
                // The last phase's two steps are redone together.
                let with_last = *s == "lift_fence" && crash_after == Some("stop_serving");
                (*s, 1 + usize::from(Some(*s) == crash_after || with_last))
            })
            .collect();
        assert_eq!(counts(&steps, &GIVE_BACK), expected, "{crash_after:?}");
        assert_eq!(
            steps.count("serve"),
            usize::from(crash_after.is_some()),
            "{crash_after:?}"
        );
        // Still selected, undo kept: it stays given back.
        assert_eq!(d.advance(&host.unit(), true).await, Outcome::Idle);
    }
}

fn unlabel(host: &MemHost, name: &str) {
    host.edit(name, |c| c.metadata.labels = None);
}

#[tokio::test]
async fn advance_partial_selection_refused_once_with_warning() {
    let (host, steps) = (host(), Arc::new(MemSteps::default()));
    unlabel(&host, "widgets.stable.example.com");
    let mut d = driver(&host, &steps);
    assert_eq!(d.advance(&host.unit(), true).await, Outcome::Idle);
    assert_eq!(d.advance(&host.unit(), true).await, Outcome::Idle);
    assert!(steps.calls.lock().unwrap().is_empty());
    assert_eq!(
        host.reasons("crontabs.stable.example.com"),
        vec!["OffloadRefused"]
    );
    let events = host.events.lock().unwrap();
    assert!(
        events[0]
            .note
            .ends_with("not selected by --offload-selector: widgets.stable.example.com"),
        "{}",
        events[0].note
    );
}

#[tokio::test]
async fn advance_unselecting_part_of_offloaded_group_refused_still_served() {
    let (host, steps) = (host(), Arc::new(MemSteps::default()));
    let mut d = driver(&host, &steps);
    settle(&mut d, &host, true).await;
    unlabel(&host, "widgets.stable.example.com");
    assert_eq!(d.advance(&host.unit(), true).await, Outcome::Idle);
    assert_eq!(steps.calls.lock().unwrap().len(), 6, "no step");
    assert_eq!(host.phases(), vec![OFFLOADED, OFFLOADED]);
    assert_eq!(
        host.reasons("widgets.stable.example.com").last().unwrap(),
        "OffloadRefused"
    );
    // Unselecting the rest gives the group back; once returned the records go.
    unlabel(&host, "crontabs.stable.example.com");
    settle(&mut d, &host, true).await;
    assert_eq!(host.phases(), vec![None, None]);
    assert_eq!(steps.count("sync_back"), 1);
}

#[tokio::test]
async fn advance_crd_deleted_while_offloaded_kept_while_objects_remain() {
    let (host, steps) = (host(), Arc::new(MemSteps::default()));
    let mut d = driver(&host, &steps);
    settle(&mut d, &host, true).await;
    host.crds
        .lock()
        .unwrap()
        .remove("widgets.stable.example.com");
    *steps.here.lock().unwrap() = 3;
    assert_eq!(d.advance(&host.unit(), true).await, Outcome::Idle);
    assert_eq!(d.advance(&host.unit(), true).await, Outcome::Idle);
    assert_eq!(steps.count("stop_serving"), 0);
    let warnings: Vec<String> = host
        .events
        .lock()
        .unwrap()
        .iter()
        .filter(|n| n.reason == "OffloadRefused")
        .map(|n| n.note.clone())
        .collect();
    assert_eq!(warnings.len(), 1, "said once: {warnings:?}");
    assert!(
        warnings[0].starts_with("3 objects would be lost: widgets.stable.example.com"),
        "{}",
        warnings[0]
    );
    assert!(d.keeps_deleted(&host.unit()));
    *steps.here.lock().unwrap() = 0;
    assert_eq!(d.advance(&host.unit(), true).await, Outcome::Idle);
    assert_eq!(steps.count("stop_serving"), 1);
    assert!(!d.keeps_deleted(&host.unit()));
}

#[tokio::test]
async fn advance_not_leader_only_follows_records_serving() {
    let (host, steps) = (host(), Arc::new(MemSteps::default()));
    let mut leader = driver(&host, &steps);
    settle(&mut leader, &host, true).await;
    steps.calls.lock().unwrap().clear();
    let mut follower = driver(&host, &steps);
    settle(&mut follower, &host, false).await;
    assert_eq!(*steps.calls.lock().unwrap(), vec!["serve"]);
    host.edit("widgets.stable.example.com", |c| {
        c.metadata
            .annotations
            .get_or_insert_default()
            .insert(UNDO_ANNOTATION.into(), "true".into());
    });
    settle(&mut leader, &host, true).await;
    steps.calls.lock().unwrap().clear();
    settle(&mut follower, &host, false).await;
    assert_eq!(*steps.calls.lock().unwrap(), vec!["stop_serving"]);
}
