//! The live definitions: serving, replacing and stopping host definitions swaps the
//! catalog; a refusal (kube's checks, a name from `--crd-dir`) leaves it as it was; hooks
//! see each change before it is served.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;

use serde_json::json;

use super::*;
use crate::crd::conversion::NoConverters;

/// `<plural>.<group>` with one version whose spec has the string field `field`.
fn crd(group: &str, plural: &str, kind: &str, field: &str) -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": plural.trim_end_matches('s'), "kind": kind},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {
                "openAPIV3Schema": {"type": "object", "properties": {"spec": {
                    "type": "object", "properties": {field: {"type": "string"}}}}}}}],
        },
    }))
    .unwrap()
}

/// Serving `files` from `--crd-dir`.
fn definitions(files: Vec<CustomResourceDefinition>) -> Definitions {
    let catalog = Catalog::build(&files).unwrap();
    Definitions::new(files, Arc::new(catalog), Arc::new(NoConverters))
}

fn served(definitions: &Definitions) -> Vec<String> {
    let catalog = definitions.current();
    let mut names: Vec<_> = (catalog.resources().iter())
        .map(|r| r.crd_name.clone())
        .collect();
    names.sort();
    names
}

/// The storage schema's spec properties of the resource named `name`.
fn spec_fields(definitions: &Definitions, name: &str) -> Vec<String> {
    let catalog = definitions.current();
    let resource = catalog
        .resources()
        .iter()
        .find(|r| r.crd_name == name)
        .unwrap();
    let mut object = json!({"spec": {"a": "x", "b": "y"}});
    crate::schema::prune::prune_silently(&mut object, resource.storage_schema());
    object["spec"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

#[test]
fn serve_host_definition_added_to_files() {
    let live = definitions(vec![crd("files.io", "things", "Thing", "a")]);
    let changes = live.subscribe();
    live.serve(&[crd("host.io", "widgets", "Widget", "a")])
        .unwrap();
    assert!(changes.has_changed().unwrap());
    assert_eq!(served(&live), ["things.files.io", "widgets.host.io"]);
    assert_eq!(live.offloaded(), ["widgets.host.io"]);
}

#[test]
fn serve_same_name_replaced_schema_recompiled() {
    let live = definitions(Vec::new());
    live.serve(&[crd("host.io", "widgets", "Widget", "a")])
        .unwrap();
    assert_eq!(spec_fields(&live, "widgets.host.io"), ["a"]);
    live.serve(&[crd("host.io", "widgets", "Widget", "b")])
        .unwrap();
    assert_eq!(spec_fields(&live, "widgets.host.io"), ["b"]);
    assert_eq!(live.offloaded(), ["widgets.host.io"]);
}

#[test]
fn stop_serving_host_definition_removed_files_kept() {
    let live = definitions(vec![crd("files.io", "things", "Thing", "a")]);
    live.serve(&[crd("host.io", "widgets", "Widget", "a")])
        .unwrap();
    live.stop_serving(&["widgets.host.io".to_string()]).unwrap();
    assert_eq!(served(&live), ["things.files.io"]);
    assert!(live.offloaded().is_empty());
}

#[test]
fn serve_refused_catalog_unchanged() {
    let live = definitions(vec![crd("files.io", "things", "Thing", "a")]);
    live.serve(&[crd("host.io", "widgets", "Widget", "a")])
        .unwrap();
    let before = live.current();
    let changes = live.subscribe();
    // One valid and one invalid (no kind): nothing is served.
    let mut invalid = crd("host.io", "gadgets", "Gadget", "a");
    invalid.spec.names.kind = String::new();
    let err = live
        .serve(&[crd("other.io", "valid", "Valid", "a"), invalid])
        .unwrap_err();
    assert!(matches!(err, DefinitionError::Invalid(_)), "{err}");
    assert!(err.to_string().contains("gadgets.host.io"), "{err}");
    // A host definition of the name of one from --crd-dir.
    let err = live
        .serve(&[crd("files.io", "things", "Other", "a")])
        .unwrap_err();
    assert!(
        matches!(err, DefinitionError::FromFiles(ref n) if n == "things.files.io"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "things.files.io: already served from --crd-dir"
    );
    assert!(Arc::ptr_eq(&before, &live.current()));
    assert!(!changes.has_changed().unwrap());
    assert_eq!(live.offloaded(), ["widgets.host.io"]);
}

#[test]
fn on_change_hook_sees_next_and_previous_before_served() {
    let live = Arc::new(definitions(vec![crd("files.io", "things", "Thing", "a")]));
    let seen: Arc<Mutex<Vec<(usize, usize, usize)>>> = Arc::default();
    let (record, watched) = (seen.clone(), live.clone());
    live.on_change(Arc::new(move |next: &Catalog, previous: &Catalog| {
        // Not yet served: the catalog in use is still the previous one.
        let now = watched.current().resources().len();
        record
            .lock()
            .unwrap()
            .push((next.resources().len(), previous.resources().len(), now));
    }));
    live.serve(&[crd("host.io", "widgets", "Widget", "a")])
        .unwrap();
    live.stop_serving(&["widgets.host.io".to_string()]).unwrap();
    let _ = live.serve(&[crd("files.io", "things", "Thing", "b")]);
    assert_eq!(*seen.lock().unwrap(), [(2, 1, 1), (1, 2, 2)]);
}
