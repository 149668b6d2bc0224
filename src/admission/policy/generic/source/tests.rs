#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;
use std::sync::atomic::Ordering;

use serde_json::json;

use super::*;
use crate::admission::policy::generic::testing::{COMPILED, Counted, MemoryStore, binding, policy};

/// Param sources that record what was asked and released.
#[derive(Default)]
struct Recording {
    ensured: Mutex<Vec<String>>,
    retained: Mutex<Vec<Vec<Gvk>>>,
}

impl ParamSources for Recording {
    fn ensure(&self, kind: &ParamKindRef) -> Arc<dyn ParamStore> {
        self.ensured.lock().unwrap().push(kind.kind.clone());
        Arc::new(MemoryStore::namespaced(&[]))
    }
    fn retain(&self, used: &[Gvk]) {
        self.retained.lock().unwrap().push(used.to_vec());
    }
}

fn names(hooks: &PolicyHooks<Counted>) -> Vec<(String, Vec<String>)> {
    hooks
        .hooks
        .iter()
        .map(|h| {
            (
                h.name.clone(),
                h.bindings.iter().map(|b| b.name.clone()).collect(),
            )
        })
        .collect()
}

#[test]
fn followed_synced_only_after_both_lists() {
    let followed = Arc::new(Followed::<Counted>::new(Arc::new(Recording::default())));
    PolicySink(followed.clone()).replace(vec![policy("p", json!({}))]);
    assert!(followed.current().is_none());
    BindingSink(followed.clone()).replace(vec![]);
    assert!(followed.current().unwrap().is_empty());
}

#[test]
fn followed_hooks_policies_with_bindings_in_name_order() {
    let followed = Arc::new(Followed::<Counted>::new(Arc::new(Recording::default())));
    let policies = PolicySink(followed.clone());
    let bindings = BindingSink(followed.clone());
    policies.replace(vec![
        policy("z", json!({})),
        policy("a", json!({})),
        policy("lone", json!({})),
    ]);
    bindings.replace(vec![
        binding("b2", "z", json!({})),
        binding("b1", "z", json!({})),
        binding("x", "a", json!({})),
        binding("orphan", "missing", json!({})),
    ]);
    let want = vec![
        ("a".to_string(), vec!["x".to_string()]),
        ("z".to_string(), vec!["b1".to_string(), "b2".to_string()]),
    ];
    assert_eq!(names(&followed.current().unwrap()), want);
    bindings.remove(binding("x", "a", json!({})));
    assert_eq!(names(&followed.current().unwrap()), want[1..].to_vec());
}

#[test]
fn followed_compiles_once_per_generation() {
    let followed = Arc::new(Followed::<Counted>::new(Arc::new(Recording::default())));
    let policies = PolicySink(followed.clone());
    let bindings = BindingSink(followed.clone());
    let compiled = |f: &Followed<Counted>| *f.current().unwrap().hooks[0].compiled;
    bindings.replace(vec![binding("b", "p", json!({}))]);
    let before = COMPILED.load(Ordering::SeqCst);
    policies.replace(vec![policy("p", json!({}))]);
    let first = compiled(&followed);
    // The same spec again (a relist, a status or label change): not compiled again.
    let mut relabeled = policy("p", json!({}));
    relabeled.metadata.labels = Some([("a".to_string(), "b".to_string())].into());
    policies.upsert(relabeled);
    policies.replace(vec![policy("p", json!({}))]);
    bindings.upsert(binding("b2", "p", json!({})));
    assert_eq!(compiled(&followed), first);
    // A new generation: compiled anew.
    policies.upsert(policy("p", json!({"failurePolicy": "Ignore"})));
    assert_ne!(compiled(&followed), first);
    assert!(COMPILED.load(Ordering::SeqCst) >= before + 2);
}

#[test]
fn followed_param_stores_ensured_and_released() {
    let recording = Arc::new(Recording::default());
    let followed = Arc::new(Followed::<Counted>::new(recording.clone()));
    let policies = PolicySink(followed.clone());
    BindingSink(followed.clone()).replace(vec![binding("b", "p", json!({}))]);
    let with = policy(
        "p",
        json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}}),
    );
    policies.replace(vec![with]);
    assert!(followed.current().unwrap().hooks[0].params.is_some());
    assert_eq!(
        *recording.ensured.lock().unwrap(),
        vec!["ConfigMap".to_string()]
    );
    policies.upsert(policy("p", json!({})));
    let retained = recording.retained.lock().unwrap();
    assert_eq!(retained.last().unwrap(), &Vec::<Gvk>::new());
}
