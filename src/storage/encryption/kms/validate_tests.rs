#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use super::*;

fn object(edit: impl FnOnce(&mut EncryptedObject)) -> EncryptedObject {
    let mut o = EncryptedObject {
        encrypted_data: vec![1],
        key_id: "k1".into(),
        encrypted_dek_source: vec![2],
        annotations: BTreeMap::new(),
        encrypted_dek_source_type: 1,
    };
    edit(&mut o);
    o
}

#[test]
fn encrypted_object_table_kube_texts() {
    let big = "x".repeat(1025);
    let cases: Vec<(&str, EncryptedObject, Result<EncryptedDekSourceType, String>)> = vec![
        ("valid seed", object(|_| {}), Ok(EncryptedDekSourceType::HkdfSha256XnonceAesGcmSeed)),
        ("valid key", object(|o| o.encrypted_dek_source_type = 0), Ok(EncryptedDekSourceType::AesGcmKey)),
        ("unknown type", object(|o| o.encrypted_dek_source_type = 7), Err("unknown encryptedDEKSourceType: 7".into())),
        ("no data", object(|o| o.encrypted_data.clear()), Err("encrypted data is empty".into())),
        ("no source", object(|o| o.encrypted_dek_source.clear()),
            Err("failed to validate encrypted DEK source: encrypted DEK source is empty".into())),
        ("big source", object(|o| o.encrypted_dek_source = vec![0; 1025]),
            Err("failed to validate encrypted DEK source: encrypted DEK source is 1025 bytes, which exceeds the max size of 1024".into())),
        ("no key id", object(|o| o.key_id.clear()), Err("failed to validate key id: keyID is empty".into())),
        ("long key id", object(|o| o.key_id = big.clone()),
            Err("failed to validate key id: keyID is 1025 bytes, which exceeds the max size of 1024".into())),
        ("annotation not a domain", object(|o| { o.annotations.insert("local".into(), vec![]); }),
            Err("failed to validate annotations: annotations: Invalid value: \"local\": should be a domain with at least two segments separated by dots".into())),
        ("annotation fqdn with dot", object(|o| { o.annotations.insert("a.example.com.".into(), vec![1]); }),
            Ok(EncryptedDekSourceType::HkdfSha256XnonceAesGcmSeed)),
        ("annotations too big", object(|o| { o.annotations.insert("a.example.com".into(), vec![0; 32 * 1024]); }),
            Err("failed to validate annotations: total size of annotations is 32781, which exceeds the max size of 32768".into())),
        ("two annotation problems", object(|o| {
                o.annotations.insert("Bad.example.com".into(), vec![]);
                o.annotations.insert("".into(), vec![]);
            }),
            Err("failed to validate annotations: [annotations: Required value, annotations: Invalid value: \"Bad.example.com\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]".into())),
    ];
    for (name, o, want) in cases {
        assert_eq!(encrypted_object(&o), want, "{name}");
    }
}

#[test]
fn cache_key_differs_by_each_part() {
    let none = BTreeMap::new();
    let mut one = BTreeMap::new();
    one.insert("a.example.com".to_owned(), b"v".to_vec());
    let seed = EncryptedDekSourceType::HkdfSha256XnonceAesGcmSeed;
    let base = cache_key(seed, b"src", "k1", &none);
    assert_eq!(base, cache_key(seed, b"src", "k1", &none));
    for other in [
        cache_key(EncryptedDekSourceType::AesGcmKey, b"src", "k1", &none),
        cache_key(seed, b"srd", "k1", &none),
        cache_key(seed, b"src", "k2", &none),
        cache_key(seed, b"src", "k1", &one),
        // the length prefixes keep a split between source and key ID apart
        cache_key(seed, b"srck", "1", &none),
    ] {
        assert_ne!(base, other);
    }
}

#[test]
fn hash_if_not_empty_sha256_hex() {
    assert_eq!(hash_if_not_empty(""), "");
    assert_eq!(
        hash_if_not_empty("abc"),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn aggregate_dedups_and_brackets() {
    assert_eq!(aggregate(vec![]), None);
    assert_eq!(aggregate(vec!["a".into()]), Some("a".into()));
    assert_eq!(aggregate(vec!["a".into(), "a".into()]), Some("a".into()));
    assert_eq!(
        aggregate(vec!["a".into(), "b".into()]),
        Some("[a, b]".into())
    );
}
