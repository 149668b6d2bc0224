//! KMS v2 encryption at rest (issue 33 point 5) against a real plugin over gRPC on a unix
//! socket (tests/common/kms_plugin.rs): one plugin Encrypt for many writes (the DEK seed
//! is cached), one Decrypt to read them all back in a new process, key ID rotation,
//! kube's errors when the plugin is down.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

#[path = "common/kms_plugin.rs"]
mod kms_plugin;

use std::time::Duration;

use crd_apiserver::storage::encryption::kms::{self, api};
use crd_apiserver::storage::encryption::{EncryptionError, KmsConfiguration};
use kms_plugin::KmsPlugin;
use prost::Message;

fn config(endpoint: &str) -> KmsConfiguration {
    KmsConfiguration {
        api_version: "v2".into(),
        name: "kms-test".into(),
        endpoint: endpoint.into(),
        timeout: Duration::from_secs(3),
    }
}

#[tokio::test]
async fn transformer_over_grpc_many_writes_one_encrypt_new_process_one_decrypt() {
    let plugin = KmsPlugin::start("key-1");
    let first = kms::transformer(&config(&plugin.endpoint())).await.unwrap();
    let mut values = Vec::new();
    for i in 0..50 {
        let plain = format!("{{\"spec\":{{\"secret\":\"s3cr3t-{i}\"}}}}");
        let key = format!("/registry/example.com/widgets/default/w{i}");
        let value = first
            .transform_to_storage(plain.as_bytes(), key.as_bytes())
            .await
            .unwrap();
        let object = api::EncryptedObject::decode(value.as_slice()).unwrap();
        assert_eq!(object.key_id, "key-1");
        assert_eq!(
            object.encrypted_dek_source_type, 1,
            "HKDF_SHA256_XNONCE_AES_GCM_SEED"
        );
        assert_eq!(object.annotations["version.kms.example.com"], b"1");
        assert!(
            !value.windows(6).any(|w| w == b"s3cr3t"),
            "no plaintext in the value"
        );
        values.push((plain, key, value));
    }
    assert_eq!(plugin.encrypts(), 1, "one DEK seed encrypted for 50 writes");
    assert_eq!(plugin.decrypts(), 0);
    drop(first);

    // A new process: its own seed, and one Decrypt for every value of the old one.
    let second = kms::transformer(&config(&plugin.endpoint())).await.unwrap();
    for (plain, key, value) in &values {
        let read = second
            .transform_from_storage(value, key.as_bytes())
            .await
            .unwrap();
        assert_eq!(read.data, plain.as_bytes());
        assert!(!read.stale);
    }
    assert_eq!((plugin.encrypts(), plugin.decrypts()), (2, 1));
}

#[tokio::test]
async fn transformer_plugin_absent_at_start_kube_errors() {
    let dir = tempfile::tempdir().unwrap();
    let endpoint = format!("unix://{}/absent.sock", dir.path().display());
    let t = kms::transformer(&config(&endpoint)).await.unwrap();
    assert_eq!(
        t.transform_to_storage(b"{}", b"/k").await,
        Err(EncryptionError::Write(
            "got unexpected nil transformer".into()
        ))
    );
}

#[tokio::test]
async fn transformer_plugin_down_decrypt_fails_with_grpc_text() {
    let plugin = KmsPlugin::start("key-1");
    let first = kms::transformer(&config(&plugin.endpoint())).await.unwrap();
    let value = first.transform_to_storage(b"{}", b"/k").await.unwrap();
    let second = kms::transformer(&config(&plugin.endpoint())).await.unwrap();
    plugin.state.set_down(true);
    assert_eq!(
        second.transform_from_storage(&value, b"/k").await,
        Err(EncryptionError::Read(
            "failed to decrypt DEK, error: rpc error: code = Unavailable desc = the test plugin is down".into()
        ))
    );
    // Writes go on with the cached seed while the plugin is down.
    assert!(second.transform_to_storage(b"{}", b"/k2").await.is_ok());
}

#[tokio::test]
async fn provider_key_id_rotation_old_values_stale_after_check() {
    let plugin = KmsPlugin::start("key-1");
    let provider = kms::provider(&config(&plugin.endpoint())).await.unwrap();
    let old = provider
        .transformer
        .transform_to_storage(b"old", b"/k")
        .await
        .unwrap();
    plugin.state.rotate("key-2");
    // The probe answers from its last result for 20 s: poll it until it asks the plugin.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while plugin.encrypts() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "no rotation within 60 s"
        );
        provider.probe.check().await.unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let new = provider
        .transformer
        .transform_to_storage(b"new", b"/k")
        .await
        .unwrap();
    assert_eq!(
        api::EncryptedObject::decode(new.as_slice()).unwrap().key_id,
        "key-2"
    );
    let read = provider
        .transformer
        .transform_from_storage(&old, b"/k")
        .await
        .unwrap();
    assert_eq!(
        (read.data.as_slice(), read.stale),
        (b"old".as_slice(), true)
    );
    let read = provider
        .transformer
        .transform_from_storage(&new, b"/k")
        .await
        .unwrap();
    assert_eq!(
        (read.data.as_slice(), read.stale),
        (b"new".as_slice(), false)
    );
}
