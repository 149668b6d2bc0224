#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::sync::Arc;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use serde_json::{Value, json};

use super::testing::{PaintConverter, REFUSED, resource, stored};
use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::storage::{Event, KeyValue, Memo};

fn kv(name: &str, version: &str, color: &str, memo: &Memo) -> KeyValue {
    KeyValue {
        key: format!("/registry/example.org/paints/ns/{name}").into(),
        value: Bytes::from(stored(name, version, color)),
        create_revision: 5,
        mod_revision: 5,
        memo: memo.clone(),
        stale: false,
    }
}

fn target(version: &str) -> (Arc<PaintConverter>, Target) {
    let converter = Arc::new(PaintConverter::default());
    let target = Target::for_tests(resource(Some(&converter)), version, "ns");
    (converter, target)
}

fn object(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap()
}

#[tokio::test]
async fn to_served_version_strategy_none_returns_input_untouched() {
    let plain = Target::for_tests(resource(None), "v2", "ns");
    assert!(!plain.needs_conversion());
    let memo = Memo::shared();
    let kvs = vec![kv("a", "v1", "red", &memo)];
    let before = kvs[0].value.clone();
    let got = plain.to_served_version(kvs).await.unwrap();
    assert_eq!(
        got[0].value.as_ptr(),
        before.as_ptr(),
        "the same bytes, not a copy"
    );
    assert!(memo.is_empty(), "nothing memoised");
    // Decoding is today's: only apiVersion changes.
    let decoded = plain.decode(&got[0]).unwrap();
    assert_eq!(decoded["apiVersion"], "example.org/v2");
    assert_eq!(
        decoded["spec"],
        json!({"size": 2}),
        "v1's color pruned by v2's schema"
    );
}

#[tokio::test]
async fn to_served_version_other_versions_converted_in_one_call() {
    let (converter, v2) = target("v2");
    let memos: Vec<Memo> = (0..4).map(|_| Memo::shared()).collect();
    let kvs = vec![
        kv("a", "v1", "red", &memos[0]),
        kv("b", "v2", "blue", &memos[1]),
        kv("c", "v1", "green", &memos[2]),
        kv("d", "v1", "black", &memos[3]),
    ];
    let untouched = kvs[1].value.clone();
    let got = v2.to_served_version(kvs).await.unwrap();
    assert_eq!(
        (converter.calls(), converter.objects()),
        (1, 3),
        "one call, 3 objects"
    );
    let paints: Vec<Value> = got
        .iter()
        .map(|kv| object(&kv.value)["spec"].clone())
        .collect();
    assert_eq!(
        paints,
        [
            json!({"paint": "red"}),
            json!({"paint": "blue"}),
            json!({"paint": "green"}),
            json!({"paint": "black"})
        ]
    );
    assert_eq!(got[1].value, untouched, "already at v2: not sent");
    assert!(got.iter().all(|kv| kv.mod_revision == 5), "revisions kept");
    // Decoded with v2's schema: defaulted at v2.
    let decoded = v2.decode(&got[0]).unwrap();
    assert_eq!(decoded["apiVersion"], "example.org/v2");
    assert_eq!(decoded["spec"], json!({"paint": "red", "size": 2}));
    assert_eq!(decoded["metadata"]["resourceVersion"], "5");
}

#[tokio::test]
async fn to_served_version_cached_values_converted_once_for_all_readers() {
    let (converter, v2) = target("v2");
    let memo = Memo::shared();
    let readers = (0..16).map(|_| v2.to_served_version(vec![kv("a", "v1", "red", &memo)]));
    let got = futures::future::join_all(readers).await;
    assert_eq!(
        converter.calls(),
        1,
        "16 concurrent readers, one conversion"
    );
    for got in got {
        assert_eq!(
            object(&got.unwrap()[0].value)["spec"],
            json!({"paint": "red"})
        );
    }
    v2.to_served_version(vec![kv("a", "v1", "red", &memo)])
        .await
        .unwrap();
    assert_eq!(converter.calls(), 1, "kept in the memo");
    // Values read straight from a backend keep nothing: each read converts.
    let inert = Memo::default();
    for _ in 0..2 {
        v2.to_served_version(vec![kv("a", "v1", "red", &inert)])
            .await
            .unwrap();
    }
    assert_eq!(converter.calls(), 3);
}

#[tokio::test]
async fn to_served_version_failure_is_plain_500_and_not_kept() {
    let (converter, v2) = target("v2");
    converter.fail.store(true, Ordering::SeqCst);
    let memo = Memo::shared();
    let failed = v2
        .to_served_version(vec![kv("a", "v1", "red", &memo)])
        .await;
    let Err(err) = failed else {
        panic!("converted by a failing converter")
    };
    assert!(
        matches!(&err, ApiError::Unknown(m) if m == REFUSED),
        "{err:?}"
    );
    assert_eq!(err.code(), 500);
    assert_eq!(err.to_string(), REFUSED.to_string());
    assert!(memo.is_empty(), "the failure is not kept");
    converter.fail.store(false, Ordering::SeqCst);
    let got = v2
        .to_served_version(vec![kv("a", "v1", "red", &memo)])
        .await
        .unwrap();
    assert_eq!(object(&got[0].value)["spec"], json!({"paint": "red"}));
    assert_eq!(converter.calls(), 2);
}

#[tokio::test]
async fn to_served_version_at_stored_version_calls_nothing() {
    let (converter, v1) = target("v1");
    let got = v1
        .to_served_version(vec![kv("a", "v1", "red", &Memo::shared())])
        .await
        .unwrap();
    assert_eq!(object(&got[0].value)["spec"], json!({"color": "red"}));
    assert_eq!(converter.calls(), 0);
}

#[tokio::test]
async fn to_storage_version_converts_and_prunes_by_storage_schema() {
    let (converter, v2) = target("v2");
    let written = json!({"apiVersion": "example.org/v2", "kind": "Paint",
        "metadata": {"name": "a", "namespace": "ns", "resourceVersion": "7"},
        "spec": {"paint": "red", "size": 2, "unknown": true}});
    let stored = v2.to_storage_version(written.clone()).await.unwrap();
    assert_eq!(stored["apiVersion"], "example.org/v1");
    assert_eq!(
        stored["spec"],
        json!({"color": "red", "size": 2}),
        "pruned by v1's schema"
    );
    assert_eq!(converter.calls(), 1);
    let (bytes, kept) = v2.stored_form(&written).await.unwrap();
    assert_eq!(object(&bytes)["apiVersion"], "example.org/v1");
    assert!(object(&bytes)["metadata"].get("resourceVersion").is_none());
    // The answer is the stored form converted back and decoded as a read is.
    let answer = v2.answer(written.clone(), kept, 9).await.unwrap();
    assert_eq!(answer["apiVersion"], "example.org/v2");
    assert_eq!(answer["spec"], json!({"paint": "red", "size": 2}));
    assert_eq!(answer["metadata"]["resourceVersion"], "9");
    assert_eq!(converter.calls(), 3, "to storage twice, back once");
    // At the storage version: nothing to convert, the object itself answers.
    let (v1_converter, v1) = target("v1");
    let at_v1 = json!({"apiVersion": "example.org/v1", "kind": "Paint",
        "metadata": {"name": "a"}, "spec": {"color": "red"}});
    let (_, kept) = v1.stored_form(&at_v1).await.unwrap();
    assert!(kept.is_none());
    assert_eq!(
        v1.answer(at_v1, kept, 3).await.unwrap()["metadata"]["resourceVersion"],
        "3"
    );
    assert_eq!(v1_converter.calls(), 0);
}

#[tokio::test]
async fn to_storage_version_failure_is_plain_500() {
    let (converter, v2) = target("v2");
    converter.fail.store(true, Ordering::SeqCst);
    let written =
        json!({"apiVersion": "example.org/v2", "kind": "Paint", "metadata": {"name": "a"}});
    let err = v2.stored_form(&written).await.unwrap_err();
    assert_eq!(err.to_string(), REFUSED);
    assert_eq!((err.code(), err.reason()), (500, ""));
}

#[tokio::test]
async fn to_served_event_object_and_previous_converted_once_per_event() {
    let (converter, v2) = target("v2");
    let memo = Memo::shared();
    let event = Event::Put {
        kv: kv("a", "v1", "red", &memo),
        prev_value: Some(Bytes::from(stored("a", "v1", "blue"))),
    };
    for _ in 0..3 {
        let served = v2.to_served_event(&event).await.unwrap();
        let Event::Put { kv, prev_value } = served.as_ref() else {
            panic!("a put")
        };
        assert_eq!(object(&kv.value)["spec"], json!({"paint": "red"}));
        assert_eq!(
            object(prev_value.as_ref().unwrap())["spec"],
            json!({"paint": "blue"})
        );
    }
    assert_eq!(
        converter.calls(),
        2,
        "the object and the previous one, once each"
    );
    let plain = Target::for_tests(resource(None), "v2", "ns");
    assert!(matches!(
        plain.to_served_event(&event).await.unwrap(),
        std::borrow::Cow::Borrowed(_)
    ));
}

#[tokio::test]
async fn to_served_version_undecodable_stored_value_is_internal_error() {
    let (converter, v2) = target("v2");
    let mut bad = kv("a", "v1", "red", &Memo::shared());
    bad.value = Bytes::from_static(b"not json");
    let err = v2.to_served_version(vec![bad]).await.unwrap_err();
    assert_eq!(err.code(), 500, "{err}");
    assert_eq!(converter.calls(), 0);
}
