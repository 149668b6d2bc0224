//! Conformance cases for range reads: ordering, prefixes, pagination, old revisions.

use std::sync::Arc;

use crd_apiserver::storage::{StorageError, Store};

use super::{after_key, keys, range_req};

pub async fn range_prefix_sorted_and_isolated(store: Arc<dyn Store>) {
    for key in [
        "/a/b/z", "/a/b/x", "/a/bc/y", "/a/b/y", "/a/c", "/a/b", "/a/a/x",
    ] {
        store.create(key, key.as_bytes().to_vec()).await.unwrap();
    }
    let current = store.current_revision().await.unwrap();
    let result = store.range(range_req("/a/b/", None, 0, 0)).await.unwrap();
    assert_eq!(keys(&result), ["/a/b/x", "/a/b/y", "/a/b/z"]);
    assert!(!result.more);
    assert_eq!(result.revision, current);
    assert_eq!(result.kvs[0].value, b"/a/b/x".to_vec());
    let empty = store.range(range_req("/none/", None, 0, 0)).await.unwrap();
    assert!(empty.kvs.is_empty() && !empty.more);
    let all = store
        .range(range_req("/a/", None, 0, current))
        .await
        .unwrap();
    assert_eq!(
        keys(&all),
        [
            "/a/a/x", "/a/b", "/a/b/x", "/a/b/y", "/a/b/z", "/a/bc/y", "/a/c"
        ]
    );
}

pub async fn range_limit_start_key_paginates(store: Arc<dyn Store>) {
    for key in [
        "/p/k3", "/p/k0", "/p/k4", "/p/k1", "/p/k2", "/q/k0", "/o/k9",
    ] {
        store.create(key, b"v".to_vec()).await.unwrap();
    }
    // (start key, limit, keys, more)
    let cases: &[(Option<&str>, usize, &[&str], bool)] = &[
        (None, 2, &["/p/k0", "/p/k1"], true),
        (Some("/p/k1\0"), 2, &["/p/k2", "/p/k3"], true),
        (Some("/p/k3\0"), 2, &["/p/k4"], false),
        (Some("/p/k4"), 1, &["/p/k4"], false),
        (Some("/p/k2"), 0, &["/p/k2", "/p/k3", "/p/k4"], false),
        (Some("/a"), 1, &["/p/k0"], true),
        (
            None,
            5,
            &["/p/k0", "/p/k1", "/p/k2", "/p/k3", "/p/k4"],
            false,
        ),
        (Some("/p/k9"), 3, &[], false),
    ];
    for (start, limit, want, more) in cases {
        let result = store
            .range(range_req("/p/", *start, *limit, 0))
            .await
            .unwrap();
        assert_eq!(keys(&result), *want, "start {start:?} limit {limit}");
        assert_eq!(result.more, *more, "start {start:?} limit {limit}");
    }
}

/// Later creates, updates and deletes are invisible at an older revision, page by page.
pub async fn range_older_revision_returns_snapshot(store: Arc<dyn Store>) {
    let ra = store.create("/s/a", b"a1".to_vec()).await.unwrap();
    let rb = store.create("/s/b", b"b1".to_vec()).await.unwrap();
    let rd = store.create("/s/d", b"d1".to_vec()).await.unwrap();
    let snapshot = store.current_revision().await.unwrap();
    store.update("/s/a", b"a2".to_vec(), ra).await.unwrap();
    store.delete("/s/b", rb).await.unwrap();
    store.create("/s/c", b"c1".to_vec()).await.unwrap();
    store.delete("/s/d", rd).await.unwrap();
    store.create("/s/d", b"d2".to_vec()).await.unwrap();

    let old = store
        .range(range_req("/s/", None, 0, snapshot))
        .await
        .unwrap();
    assert_eq!(old.revision, snapshot);
    let got: Vec<_> = old
        .kvs
        .iter()
        .map(|kv| (&*kv.key, &kv.value[..], kv.mod_revision))
        .collect();
    assert_eq!(
        got,
        [
            ("/s/a", &b"a1"[..], ra),
            ("/s/b", &b"b1"[..], rb),
            ("/s/d", &b"d1"[..], rd)
        ]
    );

    let page1 = store
        .range(range_req("/s/", None, 2, snapshot))
        .await
        .unwrap();
    assert_eq!((keys(&page1), page1.more), (vec!["/s/a", "/s/b"], true));
    let page2 = store
        .range(range_req("/s/", Some(&after_key("/s/b")), 2, snapshot))
        .await
        .unwrap();
    assert_eq!((keys(&page2), page2.more), (vec!["/s/d"], false));
    assert_eq!(page2.kvs[0].value, b"d1".to_vec());

    let between = store.range(range_req("/s/", None, 0, rb)).await.unwrap();
    assert_eq!(keys(&between), ["/s/a", "/s/b"]);
    let now = store.range(range_req("/s/", None, 0, 0)).await.unwrap();
    assert_eq!(keys(&now), ["/s/a", "/s/c", "/s/d"]);
    assert_eq!(now.kvs[2].value, b"d2".to_vec());
}

pub async fn range_future_revision_fails(store: Arc<dyn Store>) {
    store.create("/f/a", b"1".to_vec()).await.unwrap();
    let current = store.current_revision().await.unwrap();
    let err = store
        .range(range_req("/f/", None, 0, current + 1))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        StorageError::FutureRevision {
            requested: current + 1,
            current
        }
    );
}

/// After compaction, reads and watches below the compacted revision fail; at or above it
/// they see exactly what they saw before.
pub async fn compact_old_revisions_compacted(store: Arc<dyn Store>) {
    let ra = store.create("/c/a", b"a1".to_vec()).await.unwrap();
    let ra2 = store.update("/c/a", b"a2".to_vec(), ra).await.unwrap();
    let rb = store.create("/c/b", b"b1".to_vec()).await.unwrap();
    store.delete("/c/b", rb).await.unwrap();
    let rc = store.create("/c/c", b"c1".to_vec()).await.unwrap();
    let before = store.range(range_req("/c/", None, 0, rc)).await.unwrap();
    let rc2 = store.update("/c/c", b"c2".to_vec(), rc).await.unwrap();

    store.compact(rc).await.unwrap();
    assert_eq!(store.compacted_revision().await.unwrap(), rc);
    let err = store
        .range(range_req("/c/", None, 0, rc - 1))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        StorageError::Compacted {
            requested: rc - 1,
            compacted: rc
        }
    );
    let at = store.range(range_req("/c/", None, 0, rc)).await.unwrap();
    assert_eq!(at, before);
    assert_eq!(
        at.kvs[0].mod_revision, ra2,
        "an untouched old version survives"
    );
    let now = store.range(range_req("/c/", None, 0, 0)).await.unwrap();
    assert_eq!(now.kvs[1].mod_revision, rc2);

    let too_old = store.watch("/c/", rc - 2, super::NO_PROGRESS).await;
    assert!(matches!(too_old, Err(StorageError::Compacted { compacted, .. }) if compacted == rc));
    let mut w = store
        .watch("/c/", rc - 1, super::NO_PROGRESS)
        .await
        .unwrap();
    let got: Vec<_> = super::next_changes(&mut w, 2)
        .await
        .iter()
        .map(super::summary)
        .collect();
    assert_eq!(got, [super::put("/c/c", rc), super::put("/c/c", rc2)]);

    for (rev, compacted) in [(rc, true), (rc - 1, true), (rc2 + 1, false)] {
        let err = store.compact(rev).await.unwrap_err();
        match err {
            StorageError::Compacted { .. } => assert!(compacted, "compact({rev})"),
            StorageError::FutureRevision { .. } => assert!(!compacted, "compact({rev})"),
            other => panic!("compact({rev}): unexpected {other:?}"),
        }
    }
    store.compact(rc2).await.unwrap();
    let at = store.range(range_req("/c/", None, 0, rc2)).await.unwrap();
    assert_eq!(keys(&at), ["/c/a", "/c/c"]);
}
