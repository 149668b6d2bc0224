//! The decision of kube's NamespaceLifecycle admission plugin
//! (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle), as pure steps: what the
//! namespace cache says leads to admit, refuse, look again after a short wait, or ask
//! the cluster; the edge in [`super::Followed`] performs the waits and the lookup.
//!
//! Two parts of the plugin have nothing to act on in an aggregated server and are left
//! out: the immortal namespaces (`default`, `kube-system`, `kube-public`) only guard
//! deletes of Namespace objects, and the "deleted recently" force-live-lookup cache is
//! only filled by Namespace deletes passing through the same admission chain; both
//! happen in the host's kube-apiserver, never here.

use crate::admission::Operation;

/// A namespace's `status.phase`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Active,
    Terminating,
}

impl Phase {
    /// kube's reading: only `Terminating` refuses creates; any other phase is active.
    pub fn of(status_phase: Option<&str>) -> Phase {
        match status_phase {
            Some("Terminating") => Phase::Terminating,
            _ => Phase::Active,
        }
    }
}

/// What the namespace cache knows about one namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// The first list has not arrived.
    Unsynced,
    Absent,
    Present(Phase),
}

/// Why a write is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The cache never synced within kube's wait: 403 `not yet ready to handle request`.
    NotReady,
    /// The namespace does not exist, not even in a live lookup: 404 for `namespaces`.
    NotFound,
    /// A create in a namespace being deleted: 403 with the `NamespaceTerminating` cause.
    Terminating,
    /// The live lookup failed: 500 (kube's `NewInternalError`).
    LookupFailed(String),
}

/// The plugin's next move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Admit,
    Refuse(Refusal),
    /// Give the watch kube's 50 ms to deliver a just-created namespace, then
    /// [`after_recheck`].
    Recheck,
    /// Ask the cluster for the namespace, then [`after_lookup`].
    LookUp,
}

/// The first decision, from the cache (after kube's wait for it to sync).
pub fn first_look(op: Operation, namespace: &str, seen: Seen) -> Step {
    // Deletes are always allowed; cluster-scoped objects have no namespace to check.
    if op == Operation::Delete || namespace.is_empty() {
        return Step::Admit;
    }
    match seen {
        Seen::Unsynced => Step::Refuse(Refusal::NotReady),
        // Only creates wait for the cache; an update goes straight to the cluster.
        Seen::Absent if op == Operation::Create => Step::Recheck,
        Seen::Absent => Step::LookUp,
        Seen::Present(phase) => settle(verdict(op, Some(phase))),
    }
}

/// After the short wait: present now, or ask the cluster.
pub fn after_recheck(op: Operation, seen: Seen) -> Step {
    match seen {
        Seen::Present(phase) => settle(verdict(op, Some(phase))),
        Seen::Unsynced | Seen::Absent => Step::LookUp,
    }
}

/// After the live lookup (`None`: the cluster answered NotFound).
pub fn after_lookup(op: Operation, found: Option<Phase>) -> Result<(), Refusal> {
    verdict(op, found)
}

fn verdict(op: Operation, found: Option<Phase>) -> Result<(), Refusal> {
    match (op, found) {
        (_, None) => Err(Refusal::NotFound),
        (Operation::Create, Some(Phase::Terminating)) => Err(Refusal::Terminating),
        _ => Ok(()),
    }
}

fn settle(result: Result<(), Refusal>) -> Step {
    match result {
        Ok(()) => Step::Admit,
        Err(refusal) => Step::Refuse(refusal),
    }
}

#[cfg(test)]
mod tests {
    use super::Operation::{Create, Delete, Update};
    use super::Phase::{Active, Terminating};
    use super::Seen::{Absent, Present, Unsynced};
    use super::*;

    #[test]
    fn first_look_follows_the_plugin_table() {
        let cases = [
            (Delete, "ns", Unsynced, Step::Admit),
            (Delete, "ns", Present(Terminating), Step::Admit),
            (Create, "", Unsynced, Step::Admit),
            (Update, "", Absent, Step::Admit),
            (Create, "ns", Unsynced, Step::Refuse(Refusal::NotReady)),
            (Update, "ns", Unsynced, Step::Refuse(Refusal::NotReady)),
            (Create, "ns", Absent, Step::Recheck),
            (Update, "ns", Absent, Step::LookUp),
            (Create, "ns", Present(Active), Step::Admit),
            (Update, "ns", Present(Active), Step::Admit),
            (
                Create,
                "ns",
                Present(Terminating),
                Step::Refuse(Refusal::Terminating),
            ),
            (Update, "ns", Present(Terminating), Step::Admit),
        ];
        for (op, ns, seen, want) in cases {
            assert_eq!(first_look(op, ns, seen), want, "{op:?} {ns:?} {seen:?}");
        }
    }

    #[test]
    fn after_recheck_present_decides_absent_looks_up() {
        let cases = [
            (Create, Present(Active), Step::Admit),
            (
                Create,
                Present(Terminating),
                Step::Refuse(Refusal::Terminating),
            ),
            (Create, Absent, Step::LookUp),
            (Update, Absent, Step::LookUp),
        ];
        for (op, seen, want) in cases {
            assert_eq!(after_recheck(op, seen), want, "{op:?} {seen:?}");
        }
    }

    #[test]
    fn after_lookup_missing_is_not_found_terminating_refuses_creates_only() {
        let cases = [
            (Create, None, Err(Refusal::NotFound)),
            (Update, None, Err(Refusal::NotFound)),
            (Create, Some(Active), Ok(())),
            (Create, Some(Terminating), Err(Refusal::Terminating)),
            (Update, Some(Terminating), Ok(())),
        ];
        for (op, found, want) in cases {
            assert_eq!(after_lookup(op, found), want, "{op:?} {found:?}");
        }
    }

    #[test]
    fn phase_of_status_only_terminating_is_terminating() {
        assert_eq!(Phase::of(Some("Terminating")), Terminating);
        assert_eq!(Phase::of(Some("Active")), Active);
        assert_eq!(Phase::of(None), Active);
    }
}
