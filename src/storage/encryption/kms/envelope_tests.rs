#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;

use super::*;
use crate::storage::encryption::kms::api::{EncryptResponse, StatusResponse};
use crate::storage::encryption::kms::probe::POSITIVE_INTERVAL;
use crate::storage::encryption::kms::state::WRITE_DEK_MAX_TTL;

/// A plugin in memory: "encrypts" as `<key id>|<plaintext>`, counts calls, can fail.
#[derive(Default)]
struct Fake {
    key_id: Mutex<String>,
    healthz: Mutex<String>,
    down: std::sync::atomic::AtomicBool,
    statuses: AtomicUsize,
    encrypts: AtomicUsize,
    decrypts: AtomicUsize,
}

impl Fake {
    fn new(key_id: &str) -> Arc<Fake> {
        let fake = Fake::default();
        *fake.key_id.lock().unwrap() = key_id.into();
        *fake.healthz.lock().unwrap() = "ok".into();
        Arc::new(fake)
    }
    fn down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
    }
    fn fail(&self) -> Result<(), String> {
        if self.down.load(Ordering::SeqCst) {
            return Err("rpc error: code = Unavailable desc = plugin down".into());
        }
        Ok(())
    }
}

impl Service for Fake {
    fn status(&self) -> BoxFuture<'_, Result<StatusResponse, String>> {
        Box::pin(async move {
            self.statuses.fetch_add(1, Ordering::SeqCst);
            self.fail()?;
            Ok(StatusResponse {
                version: "v2".into(),
                healthz: self.healthz.lock().unwrap().clone(),
                key_id: self.key_id.lock().unwrap().clone(),
            })
        })
    }
    fn encrypt(
        &self,
        _uid: String,
        plaintext: Vec<u8>,
    ) -> BoxFuture<'_, Result<EncryptResponse, String>> {
        Box::pin(async move {
            self.encrypts.fetch_add(1, Ordering::SeqCst);
            self.fail()?;
            let key_id = self.key_id.lock().unwrap().clone();
            Ok(EncryptResponse {
                ciphertext: [format!("{key_id}|").as_bytes(), &plaintext].concat(),
                key_id,
                annotations: Default::default(),
            })
        })
    }
    fn decrypt(&self, request: DecryptRequest) -> BoxFuture<'_, Result<Vec<u8>, String>> {
        Box::pin(async move {
            self.decrypts.fetch_add(1, Ordering::SeqCst);
            // Lets concurrent reads of the same DEK source meet here.
            tokio::task::yield_now().await;
            self.fail()?;
            let prefix = format!("{}|", request.key_id);
            request
                .ciphertext
                .strip_prefix(prefix.as_bytes())
                .map(<[u8]>::to_vec)
                .ok_or_else(|| "rpc error: code = InvalidArgument desc = wrong key".to_owned())
        })
    }
}

async fn provider(fake: &Arc<Fake>) -> crate::storage::encryption::kms::Provider {
    crate::storage::encryption::kms::start("p1", fake.clone()).await
}

fn count(c: &AtomicUsize) -> usize {
    c.load(Ordering::SeqCst)
}

#[tokio::test(start_paused = true)]
async fn envelope_many_writes_one_plugin_encrypt() {
    let fake = Fake::new("k1");
    let p = provider(&fake).await;
    let mut values = Vec::new();
    for i in 0..100 {
        let plain = format!("{{\"n\":{i}}}");
        values.push((
            plain.clone(),
            p.transformer
                .transform_to_storage(plain.as_bytes(), b"/r/a")
                .await
                .unwrap(),
        ));
    }
    assert_eq!(count(&fake.encrypts), 1, "one DEK seed for every write");
    for (plain, value) in &values {
        let o = EncryptedObject::decode(value.as_slice()).unwrap();
        assert_eq!(o.key_id, "k1");
        assert_eq!(o.encrypted_dek_source_type, 1);
        assert!(o.encrypted_dek_source.starts_with(b"k1|"));
        assert!(
            !value.windows(plain.len()).any(|w| w == plain.as_bytes()),
            "no plaintext"
        );
        let read = p
            .transformer
            .transform_from_storage(value, b"/r/a")
            .await
            .unwrap();
        assert_eq!((read.data, read.stale), (plain.as_bytes().to_vec(), false));
    }
    assert_eq!(
        count(&fake.decrypts),
        0,
        "the write DEK is cached for reads"
    );
}

#[tokio::test(start_paused = true)]
async fn envelope_new_process_reads_with_one_decrypt() {
    let fake = Fake::new("k1");
    let before = provider(&fake).await;
    let mut values = Vec::new();
    for i in 0..50 {
        values.push(
            before
                .transformer
                .transform_to_storage(format!("v{i}").as_bytes(), b"k")
                .await
                .unwrap(),
        );
    }
    drop(before);
    let after = provider(&fake).await;
    assert_eq!(
        count(&fake.encrypts),
        2,
        "the new process made its own seed"
    );
    let reads = values
        .iter()
        .map(|v| after.transformer.transform_from_storage(v, b"k"));
    let reads = futures::future::join_all(reads).await;
    for (i, read) in reads.into_iter().enumerate() {
        let read = read.unwrap();
        assert_eq!(read.data, format!("v{i}").as_bytes());
        assert!(!read.stale, "same key ID: not stale");
    }
    assert_eq!(
        count(&fake.decrypts),
        1,
        "concurrent misses share one Decrypt"
    );
}

#[tokio::test(start_paused = true)]
async fn key_id_rotation_new_writes_new_key_old_values_stale() {
    let fake = Fake::new("k1");
    let p = provider(&fake).await;
    let old = p
        .transformer
        .transform_to_storage(b"old", b"k")
        .await
        .unwrap();
    *fake.key_id.lock().unwrap() = "k2".into();
    // Within the healthy result's 20 s the probe does not ask again.
    assert_eq!(p.probe.check().await, Ok(()));
    assert_eq!(count(&fake.encrypts), 1);
    tokio::time::advance(Duration::from_secs(20)).await;
    assert_eq!(p.probe.check().await, Ok(()));
    assert_eq!(count(&fake.encrypts), 2, "a new seed for the new key ID");
    let new = p
        .transformer
        .transform_to_storage(b"new", b"k")
        .await
        .unwrap();
    assert_eq!(
        EncryptedObject::decode(new.as_slice()).unwrap().key_id,
        "k2"
    );
    let read_old = p
        .transformer
        .transform_from_storage(&old, b"k")
        .await
        .unwrap();
    assert_eq!(
        (read_old.data.as_slice(), read_old.stale),
        (b"old".as_slice(), true)
    );
    let read_new = p
        .transformer
        .transform_from_storage(&new, b"k")
        .await
        .unwrap();
    assert_eq!(
        (read_new.data.as_slice(), read_new.stale),
        (b"new".as_slice(), false)
    );
}

#[tokio::test(start_paused = true)]
async fn plugin_down_at_start_reads_writes_fail_until_it_answers() {
    let fake = Fake::new("k1");
    fake.down(true);
    let p = provider(&fake).await;
    let err = p
        .transformer
        .transform_to_storage(b"x", b"k")
        .await
        .unwrap_err();
    assert_eq!(
        err,
        EncryptionError::Write("got unexpected nil transformer".into())
    );
    assert_eq!(
        p.probe.check().await.unwrap_err(),
        "rpc error: code = Unavailable desc = plugin down",
        "within the 3 s of a failure the cached error (unwrapped, as kube caches it)"
    );
    fake.down(false);
    // The background poll retries every 10 s.
    tokio::time::sleep(Duration::from_secs(11)).await;
    assert!(p.transformer.transform_to_storage(b"x", b"k").await.is_ok());
}

#[tokio::test(start_paused = true)]
async fn plugin_down_write_dek_expires_after_three_minutes() {
    let fake = Fake::new("k1");
    let p = provider(&fake).await;
    let value = p
        .transformer
        .transform_to_storage(b"x", b"k")
        .await
        .unwrap();
    fake.down(true);
    tokio::time::sleep(WRITE_DEK_MAX_TTL - Duration::from_secs(1)).await;
    assert!(
        p.transformer.transform_to_storage(b"y", b"k").await.is_ok(),
        "coasting on the seed"
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let Err(EncryptionError::Write(err)) = p.transformer.transform_to_storage(b"y", b"k").await
    else {
        panic!("writes past the deadline fail")
    };
    assert!(
        err.starts_with("encryptedDEKSource with keyID hash \"sha256:")
            && err.contains("\" expired at ")
            && err.contains(" (current time is "),
        "{err}"
    );
    assert!(
        fake.statuses.load(Ordering::SeqCst) > 3,
        "polled, fast while failing"
    );
    let read = p
        .transformer
        .transform_from_storage(&value, b"k")
        .await
        .unwrap();
    assert_eq!(read.data, b"x", "reads go on from the cache");
    fake.down(false);
    tokio::time::sleep(POSITIVE_INTERVAL).await;
    assert!(
        p.transformer.transform_to_storage(b"z", b"k").await.is_ok(),
        "healthy again: writable"
    );
}

#[tokio::test(start_paused = true)]
async fn read_bad_values_errors() {
    let fake = Fake::new("k1");
    let p = provider(&fake).await;
    let good = p
        .transformer
        .transform_to_storage(b"x", b"/a")
        .await
        .unwrap();
    let mut empty = EncryptedObject::decode(good.as_slice()).unwrap();
    empty.encrypted_data.clear();
    let mut unknown = EncryptedObject::decode(good.as_slice()).unwrap();
    unknown.key_id = "k9".into();
    let cases: Vec<(&str, Vec<u8>, &[u8], &str)> = vec![
        (
            "other storage key",
            good.clone(),
            b"/b",
            "cipher: message authentication failed",
        ),
        (
            "no data",
            empty.encode_to_vec(),
            b"/a",
            "encrypted data is empty",
        ),
        (
            "unknown key",
            unknown.encode_to_vec(),
            b"/a",
            "failed to decrypt DEK, error: rpc error: code = InvalidArgument desc = wrong key",
        ),
    ];
    for (name, value, context, want) in cases {
        let got = p.transformer.transform_from_storage(&value, context).await;
        assert_eq!(got, Err(EncryptionError::Read(want.into())), "{name}");
    }
    let garbage = p
        .transformer
        .transform_from_storage(b"\xff\xff\xff", b"/a")
        .await;
    assert!(
        matches!(garbage, Err(EncryptionError::Read(_))),
        "{garbage:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn status_problems_table_kube_texts() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "unhealthy",
            "v2",
            "k1",
            "kmsv2 Provider p1 is not healthy, error: got unexpected healthz status: sick",
        ),
        (
            "version",
            "v1",
            "k1",
            "kmsv2 Provider p1 is not healthy, error: expected KMSv2 API version v2, got v1",
        ),
        (
            "no key id",
            "v2",
            "",
            "kmsv2 Provider p1 is not healthy, error: got invalid KMSv2 KeyID hash \"\": keyID is empty",
        ),
    ];
    for (name, version, key_id, want) in cases {
        let fake = Fake::new(key_id);
        let state = Arc::new(StateCell::default());
        let probe = Probe::new("p1", fake.clone(), state);
        let mut v = String::new();
        let healthz = if *name == "unhealthy" { "sick" } else { "ok" };
        let response = StatusResponse {
            version: (*version).into(),
            healthz: healthz.into(),
            key_id: (*key_id).into(),
        };
        let got = probe.healthy_and_maybe_rotate(&mut v, response).await;
        assert_eq!(got, Err((*want).to_owned()), "{name}");
    }
}
