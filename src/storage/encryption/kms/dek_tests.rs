#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use super::*;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn expand_rfc5869_case1_first_32_bytes() {
    // RFC 5869 A.1: the PRK is given, so Expand alone must give the OKM's first 32 bytes
    // (kube uses the seed as the PRK: hkdf.Expand, no Extract).
    let prk = Prk::new_less_safe(
        HKDF_SHA256,
        &hex("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"),
    );
    let okm = expand(&prk, &hex("f0f1f2f3f4f5f6f7f8f9")).unwrap();
    assert_eq!(
        okm.to_vec(),
        hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf")
    );
}

#[test]
fn seed_value_layout_info_nonce_ciphertext() {
    // A value assembled by hand as kube lays it out: info || nonce || AES-GCM(HKDF(seed, info)).
    let seed = [7u8; 32];
    let info = [9u8; 32];
    let nonce = [3u8; 12];
    let prk = Prk::new_less_safe(HKDF_SHA256, &seed);
    let key = gcm(&expand(&prk, &info).unwrap()).unwrap();
    let mut sealed = b"secret".to_vec();
    key.seal_in_place_append_tag(
        Nonce::assume_unique_for_key(nonce),
        Aad::from(b"/registry/a/b".as_slice()),
        &mut sealed,
    )
    .unwrap();
    let value = [info.as_slice(), nonce.as_slice(), sealed.as_slice()].concat();
    let dek = Dek::seed(&seed).unwrap();
    assert_eq!(dek.open(&value, b"/registry/a/b").unwrap(), b"secret");
    assert_eq!(
        dek.open(&value, b"/registry/a/c").unwrap_err(),
        "cipher: message authentication failed",
        "the storage key is the authenticated data"
    );
}

#[test]
fn seal_then_open_round_trips_with_fresh_info() {
    let dek = Dek::seed(&random(SEED_LEN).unwrap()).unwrap();
    let a = dek.seal(b"{\"spec\":1}", b"k").unwrap();
    let b = dek.seal(b"{\"spec\":1}", b"k").unwrap();
    assert_eq!(a.len(), 32 + 12 + 10 + 16);
    assert_ne!(a[..32], b[..32], "a new info (so a new key) per write");
    assert_eq!(dek.open(&a, b"k").unwrap(), b"{\"spec\":1}");
    assert_eq!(dek.open(&b, b"k").unwrap(), b"{\"spec\":1}");
}

#[test]
fn bare_key_round_trips_nonce_first() {
    let dek = Dek::key(&[5u8; 32]).unwrap();
    let value = dek.seal(b"x", b"k").unwrap();
    assert_eq!(value.len(), 12 + 1 + 16);
    assert_eq!(dek.open(&value, b"k").unwrap(), b"x");
}

#[test]
fn bad_inputs_errors() {
    type Case<'a> = (&'a str, Result<Dek, String>, &'a [u8], &'a str);
    let cases: &[Case] = &[
        (
            "short seed",
            Dek::seed(&[1; 31]),
            b"",
            "invalid seed length 31 used for key generation",
        ),
        (
            "bad key",
            Dek::key(&[1; 24]),
            b"",
            "crypto/aes: invalid key size 24",
        ),
        ("short value", Dek::seed(&[1; 32]), &[0; 31], SHORT),
        ("no nonce", Dek::seed(&[1; 32]), &[0; 40], SHORT),
        (
            "garbage",
            Dek::seed(&[1; 32]),
            &[0; 80],
            "cipher: message authentication failed",
        ),
        ("short bare", Dek::key(&[1; 16]), &[0; 5], SHORT),
    ];
    for (name, dek, value, want) in cases {
        let got = match dek {
            Err(e) => e.clone(),
            Ok(dek) => dek.open(value, b"k").unwrap_err(),
        };
        assert_eq!(&got, want, "{name}");
    }
}
