//! The protobuf messages of KMS v2, written by hand with prost's derive (no build
//! script): the plugin's API (k8s.io/kms apis/v2/api.proto, service
//! `v2.KeyManagementService`) and the stored value (k8s.io/apiserver
//! pkg/storage/value/encrypt/envelope/kmsv2/v2/api.proto, `EncryptedObject`).

use std::collections::BTreeMap;

/// The gRPC paths of `v2.KeyManagementService`.
pub const STATUS_PATH: &str = "/v2.KeyManagementService/Status";
pub const DECRYPT_PATH: &str = "/v2.KeyManagementService/Decrypt";
pub const ENCRYPT_PATH: &str = "/v2.KeyManagementService/Encrypt";

#[derive(Clone, PartialEq, prost::Message)]
pub struct StatusRequest {}

#[derive(Clone, PartialEq, prost::Message)]
pub struct StatusResponse {
    /// `v2` (or the equivalent `v2beta1`).
    #[prost(string, tag = "1")]
    pub version: String,
    /// Anything but `ok` fails the health check.
    #[prost(string, tag = "2")]
    pub healthz: String,
    /// The current write key.
    #[prost(string, tag = "3")]
    pub key_id: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct DecryptRequest {
    #[prost(bytes = "vec", tag = "1")]
    pub ciphertext: Vec<u8>,
    #[prost(string, tag = "2")]
    pub uid: String,
    #[prost(string, tag = "3")]
    pub key_id: String,
    #[prost(btree_map = "string, bytes", tag = "4")]
    pub annotations: BTreeMap<String, Vec<u8>>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct DecryptResponse {
    #[prost(bytes = "vec", tag = "1")]
    pub plaintext: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct EncryptRequest {
    #[prost(bytes = "vec", tag = "1")]
    pub plaintext: Vec<u8>,
    #[prost(string, tag = "2")]
    pub uid: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct EncryptResponse {
    #[prost(bytes = "vec", tag = "1")]
    pub ciphertext: Vec<u8>,
    #[prost(string, tag = "2")]
    pub key_id: String,
    #[prost(btree_map = "string, bytes", tag = "3")]
    pub annotations: BTreeMap<String, Vec<u8>>,
}

/// What a `kms` v2 provider stores (after its `k8s:enc:kms:v2:<name>:` prefix).
#[derive(Clone, PartialEq, prost::Message)]
pub struct EncryptedObject {
    #[prost(bytes = "vec", tag = "1")]
    pub encrypted_data: Vec<u8>,
    #[prost(string, tag = "2")]
    pub key_id: String,
    #[prost(bytes = "vec", tag = "3")]
    pub encrypted_dek_source: Vec<u8>,
    #[prost(btree_map = "string, bytes", tag = "4")]
    pub annotations: BTreeMap<String, Vec<u8>>,
    #[prost(enumeration = "EncryptedDekSourceType", tag = "5")]
    pub encrypted_dek_source_type: i32,
}

/// How the plaintext of `encryptedDEKSource` gives the DEK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum EncryptedDekSourceType {
    /// The plaintext is the AES-GCM DEK itself (KMS v2 before the KDF; read only).
    AesGcmKey = 0,
    /// The plaintext is a seed: each value's DEK is HKDF-SHA256-Expand(seed, info), info
    /// being the first 32 bytes of `encryptedData` (what this server writes).
    HkdfSha256XnonceAesGcmSeed = 1,
}
