#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use super::{unversioned, versioned};
use crate::admission::attributes::{Kind, Recorder};
use crate::admission::webhook::dispatch::conversion_error;
use crate::admission::webhook::hook::HookKind;
use crate::admission::{Attributes, Operation, Options};
use crate::crd::catalog::ServedResource;
use crate::handlers::convert::testing::{PaintConverter, REFUSED, resource};
use crate::request::user::UserInfo;

/// What the attributes of an update of a Paint at v1 borrow (the stored object blue).
struct Fixture {
    user: UserInfo,
    recorder: Recorder,
    old: Value,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            user: UserInfo::anonymous(),
            recorder: Recorder::default(),
            old: paint("v1", "color", "blue"),
        }
    }

    fn attributes<'a>(&'a self, served: &'a ServedResource) -> Attributes<'a> {
        Attributes {
            operation: Operation::Update,
            namespace: "ns",
            name: "a",
            group: "example.org",
            resource: "paints",
            version: "v1",
            kind: Kind {
                group: "example.org",
                version: "v1",
                kind: "Paint",
            },
            subresource: "",
            dry_run: false,
            user: &self.user,
            options: Options::None,
            old_object: Some(&self.old),
            served: Some(served),
            recorder: &self.recorder,
            deadline: None,
        }
    }
}

fn paint(version: &str, field: &str, color: &str) -> Value {
    json!({"apiVersion": format!("example.org/{version}"), "kind": "Paint",
        "metadata": {"name": "a", "namespace": "ns"}, "spec": {field: color}})
}

#[tokio::test]
async fn versioned_object_and_old_converted_in_one_call() {
    let converter = Arc::new(PaintConverter::default());
    let served = resource(Some(&converter));
    let object = paint("v1", "color", "red");
    let fixture = Fixture::new();
    let attributes = fixture.attributes(&served);
    let objects = [Some(&object), attributes.old_object];
    let [object, old] = versioned(&attributes, objects, "example.org/v2")
        .await
        .unwrap();
    assert_eq!(object.unwrap()["spec"], json!({"paint": "red"}));
    assert_eq!(old.unwrap()["spec"], json!({"paint": "blue"}));
    assert_eq!((converter.calls(), converter.objects()), (1, 2));
}

#[tokio::test]
async fn versioned_same_version_or_strategy_none_calls_nothing() {
    let converter = Arc::new(PaintConverter::default());
    let served = resource(Some(&converter));
    let object = paint("v1", "color", "red");
    let fixture = Fixture::new();
    let attributes = fixture.attributes(&served);
    let [same, _] = versioned(&attributes, [Some(&object), None], "example.org/v1")
        .await
        .unwrap();
    assert_eq!(*same.unwrap(), object);
    assert_eq!(converter.calls(), 0);
    // Strategy None: only apiVersion changes.
    let plain = resource(None);
    let attributes = fixture.attributes(&plain);
    let [swapped, _] = versioned(&attributes, [Some(&object), None], "example.org/v2")
        .await
        .unwrap();
    assert_eq!(*swapped.unwrap(), paint("v2", "color", "red"));
}

#[tokio::test]
async fn unversioned_mutated_object_converted_back_and_pruned() {
    let converter = Arc::new(PaintConverter::default());
    let served = resource(Some(&converter));
    let mut mutated = paint("v2", "paint", "green");
    mutated["spec"]["unknown"] = json!(1);
    let fixture = Fixture::new();
    let back = unversioned(&fixture.attributes(&served), mutated, "example.org/v1")
        .await
        .unwrap();
    assert_eq!(back["apiVersion"], "example.org/v1");
    assert_eq!(
        back["spec"],
        json!({"color": "green"}),
        "pruned by v1's schema"
    );
    assert_eq!(converter.calls(), 1);
}

#[tokio::test]
async fn versioned_failure_is_kubes_internal_error_per_plugin() {
    let converter = Arc::new(PaintConverter::default());
    converter.fail.store(true, Ordering::SeqCst);
    let served = resource(Some(&converter));
    let object = paint("v1", "color", "red");
    let fixture = Fixture::new();
    let attributes = fixture.attributes(&served);
    let failed = versioned(&attributes, [Some(&object), None], "example.org/v2").await;
    let message = failed.map(|_| ()).unwrap_err();
    assert_eq!(message, REFUSED);
    let validating = conversion_error(HookKind::Validating, message.clone());
    assert_eq!(
        validating.to_string(),
        format!("Internal error occurred: {REFUSED}")
    );
    assert_eq!(validating.code(), 500);
    let mutating = conversion_error(HookKind::Mutating, message);
    assert_eq!(
        mutating.to_string(),
        format!("Internal error occurred: Internal error occurred: {REFUSED}")
    );
}
