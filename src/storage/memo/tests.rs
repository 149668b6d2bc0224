#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use tokio::sync::Semaphore;

use super::*;

#[test]
fn get_or_try_insert_shared_makes_once() {
    let memo = Memo::shared();
    let mut made = 0;
    for _ in 0..3 {
        let got = memo.get_or_try_insert::<()>(&"v1".into(), || {
            made += 1;
            Ok(Bytes::from_static(b"x"))
        });
        assert_eq!(got, Ok(Bytes::from_static(b"x")));
    }
    assert_eq!(made, 1);
    assert_eq!(memo.len(), 1);
}

#[test]
fn get_or_try_insert_inert_makes_every_time() {
    let memo = Memo::default();
    let mut made = 0;
    for _ in 0..2 {
        let _ = memo.get_or_try_insert::<()>(&"v1".into(), || {
            made += 1;
            Ok(Bytes::new())
        });
    }
    assert_eq!(made, 2);
    assert!(memo.is_empty());
}

#[test]
fn get_or_try_insert_failure_is_not_kept() {
    let memo = Memo::shared();
    assert_eq!(memo.get_or_try_insert(&"k".into(), || Err("no")), Err("no"));
    assert_eq!(
        memo.get_or_try_insert::<&str>(&"k".into(), || Ok(Bytes::from_static(b"y"))),
        Ok(Bytes::from_static(b"y"))
    );
}

/// A maker that counts its calls and answers once the gate lets it (or fails).
struct Maker {
    calls: AtomicUsize,
    gate: Semaphore,
    fail_first: bool,
}

impl Maker {
    fn new(fail_first: bool) -> Arc<Maker> {
        Arc::new(Maker {
            calls: AtomicUsize::new(0),
            gate: Semaphore::new(0),
            fail_first,
        })
    }

    async fn make(&self) -> Result<Bytes, String> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        self.gate
            .acquire()
            .await
            .map_err(|e| e.to_string())?
            .forget();
        match call == 0 && self.fail_first {
            true => Err("refused".into()),
            false => Ok(Bytes::from(format!("made by call {call}"))),
        }
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

/// Lets the maker answer once the readers had every chance to start (and wait).
async fn open_after_readers_wait(maker: &Maker, answers: usize) {
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
    maker.gate.add_permits(answers);
}

#[tokio::test]
async fn get_or_try_fill_concurrent_readers_make_once() {
    let memo = Memo::shared();
    let key: Arc<str> = "v2\0converted".into();
    let maker = Maker::new(false);
    let readers = (0..16).map(|_| memo.get_or_try_fill(&key, || maker.make()));
    let (got, ()) = tokio::join!(
        futures::future::join_all(readers),
        open_after_readers_wait(&maker, 16)
    );
    assert_eq!(maker.calls(), 1, "one fill for 16 concurrent readers");
    for got in got {
        assert_eq!(got.as_deref(), Ok(&b"made by call 0"[..]));
    }
    assert_eq!(memo.get(&key).as_deref(), Some(&b"made by call 0"[..]));
}

#[tokio::test]
async fn get_or_try_fill_failure_not_kept_waiter_makes_it() {
    let memo = Memo::shared();
    let key: Arc<str> = "v2\0converted".into();
    let maker = Maker::new(true);
    let readers = (0..8).map(|_| memo.get_or_try_fill(&key, || maker.make()));
    let (got, ()) = tokio::join!(
        futures::future::join_all(readers),
        open_after_readers_wait(&maker, 8)
    );
    assert_eq!(got[0], Err("refused".to_string()), "the first fill failed");
    for got in &got[1..] {
        assert_eq!(got.as_deref(), Ok(&b"made by call 1"[..]));
    }
    assert_eq!(
        maker.calls(),
        2,
        "one failure, then one fill for the waiters"
    );
    assert_eq!(memo.len(), 1);
}

#[tokio::test]
async fn get_or_try_fill_inert_keeps_nothing() {
    let memo = Memo::default();
    let key: Arc<str> = "v2\0converted".into();
    let maker = Maker::new(false);
    maker.gate.add_permits(2);
    for _ in 0..2 {
        assert!(memo.get_or_try_fill(&key, || maker.make()).await.is_ok());
    }
    assert_eq!(maker.calls(), 2);
    assert!(memo.is_empty());
}

#[tokio::test]
async fn get_or_try_fill_cancelled_fill_gives_its_place_up() {
    let memo = Memo::shared();
    let key: Arc<str> = "k".into();
    let maker = Maker::new(false);
    {
        let abandoned = memo.get_or_try_fill(&key, || maker.make());
        // Polled once (claimed, waiting at the gate), then dropped.
        assert!(futures::poll!(Box::pin(abandoned)).is_pending());
    }
    maker.gate.add_permits(1);
    let got = memo.get_or_try_fill(&key, || maker.make()).await;
    assert_eq!(got.as_deref(), Ok(&b"made by call 1"[..]));
    assert_eq!(memo.len(), 1);
}

/// A batch maker: records each call's indexes, answers `form i` for each.
fn batch_maker(
    calls: &std::sync::Mutex<Vec<Vec<usize>>>,
) -> impl FnMut(Vec<usize>) -> std::future::Ready<Result<Vec<Bytes>, String>> + '_ {
    move |indexes: Vec<usize>| {
        let forms = indexes
            .iter()
            .map(|i| Bytes::from(format!("form {i}")))
            .collect();
        calls.lock().unwrap().push(indexes);
        std::future::ready(Ok(forms))
    }
}

#[tokio::test]
async fn fill_many_one_call_for_every_form_not_made() {
    let memos: Vec<Memo> = (0..10).map(|_| Memo::shared()).collect();
    let refs: Vec<&Memo> = memos.iter().collect();
    let key: Arc<str> = "v2\0converted".into();
    for i in [2, 5, 7] {
        let made = Bytes::from(format!("form {i}"));
        memos[i]
            .get_or_try_fill::<String, _>(&key, || async { Ok(made) })
            .await
            .unwrap();
    }
    let calls = std::sync::Mutex::new(Vec::new());
    let got = Memo::fill_many(&refs, &key, batch_maker(&calls))
        .await
        .unwrap();
    let want: Vec<Bytes> = (0..10).map(|i| Bytes::from(format!("form {i}"))).collect();
    assert_eq!(got, want);
    assert_eq!(*calls.lock().unwrap(), vec![vec![0, 1, 3, 4, 6, 8, 9]]);
    // Everything is kept now: no further call.
    let again = Memo::fill_many(&refs, &key, batch_maker(&calls))
        .await
        .unwrap();
    assert_eq!(again, want);
    assert_eq!(calls.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn fill_many_waits_for_a_concurrent_fill_instead_of_making_it() {
    let memos = [Memo::shared(), Memo::shared()];
    let key: Arc<str> = "k".into();
    let maker = Maker::new(false);
    let calls = std::sync::Mutex::new(Vec::new());
    let single = memos[0].get_or_try_fill(&key, || maker.make());
    let batch = async {
        tokio::task::yield_now().await;
        Memo::fill_many(&[&memos[0], &memos[1]], &key, batch_maker(&calls)).await
    };
    let (single, batch, ()) = tokio::join!(single, batch, open_after_readers_wait(&maker, 1));
    assert_eq!(single.as_deref(), Ok(&b"made by call 0"[..]));
    let batch = batch.unwrap();
    assert_eq!(batch[0], Bytes::from_static(b"made by call 0"));
    assert_eq!(batch[1], Bytes::from_static(b"form 1"));
    assert_eq!(
        *calls.lock().unwrap(),
        vec![vec![1]],
        "only the form nobody made"
    );
    assert_eq!(maker.calls(), 1);
}

#[tokio::test]
async fn fill_many_failure_keeps_nothing() {
    let memos = [Memo::shared(), Memo::shared()];
    let refs: Vec<&Memo> = memos.iter().collect();
    let key: Arc<str> = "k".into();
    let failed = Memo::fill_many(&refs, &key, |_| async { Err::<Vec<Bytes>, _>("no") }).await;
    assert_eq!(failed, Err("no"));
    assert!(memos.iter().all(Memo::is_empty));
    let calls = std::sync::Mutex::new(Vec::new());
    let got = Memo::fill_many(&refs, &key, batch_maker(&calls))
        .await
        .unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(*calls.lock().unwrap(), vec![vec![0, 1]]);
}
