#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use base64::Engine;

use super::aes::{Cbc, Gcm};
use super::config::EncryptionConfiguration;
use super::metrics::TransformationMetrics;
use super::prefix::Providers;
use super::resources::Plan;
use super::secretbox::Secretbox;

const PLAIN: &[u8] = br#"{"apiVersion":"stable.example.com/v1","kind":"CronTab"}"#;
const KEY: &[u8] = b"/registry/stable.example.com/crontabs/default/x";
const OTHER_KEY: &[u8] = b"/registry/stable.example.com/crontabs/default/y";

fn b64(text: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

fn secret(byte: u8, len: usize) -> String {
    base64::engine::general_purpose::STANDARD.encode(vec![byte; len])
}

/// Values sealed by Python's `cryptography` (OpenSSL) with a fixed nonce/IV, in kube's
/// layouts: GCM `nonce + ciphertext + tag` with the storage key as additional data, CBC
/// `iv + ciphertext` of the PKCS#7-padded plaintext.
#[test]
fn aes_values_sealed_elsewhere_decrypt() {
    #[rustfmt::skip]
    let gcm = [
        ("EBAQEBAQEBAQEBAQEBAQEA==", "AAECAwQFBgcICQoLWVANjK25FeIcitOgoe1i1nFTNm5rJfvoDMPR/PmsTR5SThQuvzF093LqZm1eMlR4ZIGDuJtbC3NzG2+EOyR+VG4cmmyCCcg="),
        ("GBgYGBgYGBgYGBgYGBgYGBgYGBgYGBgY", "AAECAwQFBgcICQoLK+RKptO3/ww0AC6qV2ezJQ8c0XrsfXrcH2tieX6hRqY82RMkoGUpsRAgF0OSGBQ43eD2LYAS6kIIS9WLfOFqOUZdT3qvwEU="),
        ("ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA=", "AAECAwQFBgcICQoLhvSk3H5jA4lZHBVneQsr8qSpywxHQ2JQZQV1k2hDvnO4QVwXDXLnfdxW9+1gtQphnzuPomHjKZAfF6saju9wiN0RRniu2sE="),
    ];
    for (key, sealed) in gcm {
        let got = Gcm::new(&b64(key)).unwrap().decrypt(&b64(sealed), KEY);
        assert_eq!(got.unwrap().data, PLAIN, "gcm {key}");
    }
    #[rustfmt::skip]
    let cbc = [
        ("EREREREREREREREREREREQ==", "AAECAwQFBgcICQoLDA0ODz5aEwszIbhfVQgiZmMIpw2rPNbNRBsId0HBHvVHwFAASxHsmvmINsuC8bigRf0MgUUZiPDunFrW6cIFNeZH5zM="),
        ("GRkZGRkZGRkZGRkZGRkZGRkZGRkZGRkZ", "AAECAwQFBgcICQoLDA0ODx8OJHIpOdRmuODMCigkkF2kupxgIOPwjmmpgvq95utO8Dz81vYAXnj/xIv81ofSB1K5YiNljnXSk8rgcy5XN7A="),
        ("ISEhISEhISEhISEhISEhISEhISEhISEhISEhISEhISE=", "AAECAwQFBgcICQoLDA0ODwaUcggSF85oYSz5Pr7rdGKVN8e/++VfAjupBmDSBwBmQx4l+RKYiNjF8PvMAj3ELvTrZiUQDLQkwbaCsCOnpko="),
    ];
    for (key, sealed) in cbc {
        let got = Cbc::new(&b64(key)).unwrap().decrypt(&b64(sealed));
        assert_eq!(got.unwrap().data, PLAIN, "cbc {key}");
    }
}

/// Each cipher's round trip, its layout's size, and whether the storage key is bound
/// (kube binds it for AES-GCM only: a value moved to another key fails to decrypt).
#[test]
fn ciphers_round_trip_layout_and_key_binding() {
    type Seal = Box<dyn Fn(&[u8], &[u8]) -> Vec<u8>>;
    type Open = Box<dyn Fn(&[u8], &[u8]) -> Result<Vec<u8>, String>>;
    let cases: Vec<(&str, Seal, Open, usize, bool)> = [16usize, 24, 32]
        .iter()
        .flat_map(|n| {
            let gcm = std::sync::Arc::new(Gcm::new(&vec![7; *n]).unwrap());
            let cbc = std::sync::Arc::new(Cbc::new(&vec![8; *n]).unwrap());
            let (g1, g2, c1, c2) = (gcm.clone(), gcm, cbc.clone(), cbc);
            let padded = (PLAIN.len() / 16 + 1) * 16;
            vec![
                (
                    "gcm",
                    Box::new(move |d: &[u8], k: &[u8]| g1.encrypt(d, k).unwrap()) as Seal,
                    Box::new(move |d: &[u8], k: &[u8]| {
                        g2.decrypt(d, k).map(|d| d.data).map_err(|e| e.to_string())
                    }) as Open,
                    12 + PLAIN.len() + 16,
                    true,
                ),
                (
                    "cbc",
                    Box::new(move |d: &[u8], _: &[u8]| c1.encrypt(d).unwrap()) as Seal,
                    Box::new(move |d: &[u8], _: &[u8]| {
                        c2.decrypt(d).map(|d| d.data).map_err(|e| e.to_string())
                    }) as Open,
                    16 + padded,
                    false,
                ),
            ]
        })
        .collect();
    let sb = std::sync::Arc::new(Secretbox::new(&[9; 32]));
    let (s1, s2) = (sb.clone(), sb);
    let mut cases = cases;
    cases.push((
        "secretbox",
        Box::new(move |d: &[u8], _: &[u8]| s1.encrypt(d).unwrap()),
        Box::new(move |d: &[u8], _: &[u8]| {
            s2.decrypt(d).map(|d| d.data).map_err(|e| e.to_string())
        }),
        24 + 16 + PLAIN.len(),
        false,
    ));
    for (name, seal, open, size, binds_key) in cases {
        let sealed = seal(PLAIN, KEY);
        assert_eq!(sealed.len(), size, "{name}");
        assert!(
            !sealed.windows(9).any(|w| w == b"CronTab\"}"),
            "{name}: no plaintext"
        );
        assert_ne!(seal(PLAIN, KEY), sealed, "{name}: a fresh nonce per write");
        assert_eq!(open(&sealed, KEY).unwrap(), PLAIN, "{name}");
        assert_eq!(open(&sealed, OTHER_KEY).is_err(), binds_key, "{name}");
        assert!(seal(b"", KEY).len() >= 16, "{name}: empty value");
        assert_eq!(
            open(&seal(b"", KEY), KEY).unwrap(),
            b"",
            "{name}: empty value"
        );
    }
}

/// Damaged values are refused with kube's texts (AES-CBC is not authenticated: only its
/// structure is checked).
#[test]
fn ciphers_damaged_values_refused_with_kube_texts() {
    let gcm = Gcm::new(&[1; 32]).unwrap();
    let mut sealed = gcm.encrypt(PLAIN, KEY).unwrap();
    sealed[20] ^= 1;
    let err = |r: Result<super::Decrypted, super::EncryptionError>| r.unwrap_err().to_string();
    assert_eq!(
        err(gcm.decrypt(&sealed, KEY)),
        "cipher: message authentication failed"
    );
    assert_eq!(
        err(gcm.decrypt(&sealed[..11], KEY)),
        "the stored data was shorter than the required size"
    );
    let sb = Secretbox::new(&[2; 32]);
    let mut sealed = sb.encrypt(PLAIN).unwrap();
    sealed[30] ^= 1;
    assert_eq!(
        err(sb.decrypt(&sealed)),
        "output array was not large enough for encryption"
    );
    assert_eq!(
        err(sb.decrypt(&sealed[..39])),
        "the stored data was shorter than the required size"
    );
    let cbc = Cbc::new(&[3; 16]).unwrap();
    let sealed = cbc.encrypt(PLAIN).unwrap();
    #[rustfmt::skip]
    let cases: [(&[u8], &str); 4] = [
        (&sealed[..15], "the stored data was shorter than the required size"),
        (&sealed[..sealed.len() - 1], "the stored data is not a multiple of the block size"),
        (&sealed[..16], "invalid PKCS7 data (empty or not padded)"),
        (&[0u8; 32], "invalid PKCS7 data (empty or not padded)"),
    ];
    for (value, want) in cases {
        let got = cbc.decrypt(value).unwrap_err().to_string();
        // A block of zeros decrypts to noise: its last byte decides the padding text.
        assert!(
            got == want || got == "invalid padding on input",
            "{} bytes: {got}",
            value.len()
        );
    }
}

/// The providers of `crontabs.stable.example.com` under a configuration's providers.
async fn providers(providers: &str) -> Providers {
    let text = format!(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [crontabs.stable.example.com]\n  providers:\n{providers}"
    );
    let config = EncryptionConfiguration::decode(text.as_bytes()).unwrap();
    assert_eq!(super::validate::validate(&config), vec![], "{text}");
    let made = Plan::new(&config)
        .unwrap()
        .connect(TransformationMetrics::default())
        .await
        .unwrap();
    made.for_resource("stable.example.com", "crontabs").unwrap()
}

fn aes(kind: &str, names: &[(&str, u8)]) -> String {
    let keys: Vec<String> = names
        .iter()
        .map(|(name, byte)| format!("{{name: {name}, secret: {}}}", secret(*byte, 32)))
        .collect();
    format!("  - {kind}: {{keys: [{}]}}\n", keys.join(", "))
}

/// A name, the providers, the stored value, and the staleness or error text wanted.
type Case<'a> = (&'a str, String, &'a [u8], Result<bool, &'a str>);

/// kube's prefix transformers: the first provider and key write (with kube's prefixes);
/// every listed one reads, and a value read by anything but the first is stale; texts
/// of values nothing reads are kube's.
#[tokio::test]
async fn providers_prefixes_stale_and_unreadable_values() {
    let gcm1 = aes("aesgcm", &[("k1", 1)]);
    let gcm21 = aes("aesgcm", &[("k2", 2), ("k1", 1)]);
    let cbc = aes("aescbc", &[("c1", 3)]);
    let sb = aes("secretbox", &[("s1", 4)]);
    let identity = "  - identity: {}\n";
    let written = |p: Providers| async move { p.write(PLAIN, KEY).await.unwrap() };
    let by_gcm1 = written(providers(&gcm1).await).await;
    let by_cbc = written(providers(&cbc).await).await;
    let by_sb = written(providers(&sb).await).await;
    let by_identity = written(providers(identity).await).await;
    assert!(by_gcm1.starts_with(b"k8s:enc:aesgcm:v1:k1:"));
    assert!(by_cbc.starts_with(b"k8s:enc:aescbc:v1:c1:"));
    assert!(by_sb.starts_with(b"k8s:enc:secretbox:v1:s1:"));
    assert_eq!(by_identity, PLAIN);
    #[rustfmt::skip]
    let cases: Vec<Case> = vec![
        ("first key", gcm1.clone(), &by_gcm1, Ok(false)),
        ("second key", gcm21.clone(), &by_gcm1, Ok(true)),
        ("second provider", format!("{cbc}{gcm1}"), &by_gcm1, Ok(true)),
        ("identity first reads encrypted", format!("{identity}{gcm1}"), &by_gcm1, Ok(true)),
        ("identity second reads plain", format!("{gcm1}{identity}"), PLAIN, Ok(true)),
        ("identity first reads plain", format!("{identity}{gcm1}"), PLAIN, Ok(false)),
        ("secretbox", sb.clone(), &by_sb, Ok(false)),
        ("cbc after secretbox", format!("{sb}{cbc}"), &by_cbc, Ok(true)),
        ("unknown key name", aes("aesgcm", &[("k2", 1)]), &by_gcm1,
            Err("no matching key was found for the provided AES transformer")),
        ("same name, other secret", aes("aesgcm", &[("k1", 9)]), &by_gcm1,
            Err("cipher: message authentication failed")),
        ("unknown secretbox key", aes("secretbox", &[("s2", 4)]), &by_sb,
            Err("no matching key was found for the provided Secretbox transformer")),
        ("plain without identity", gcm1.clone(), PLAIN, Err("no matching prefix found")),
        ("encrypted with identity only", identity.to_string(), &by_gcm1, Err("no matching prefix found")),
        ("two failing providers", format!("{}{}", aes("aesgcm", &[("k1", 9)]), aes("aesgcm", &[("k1", 8)])), &by_gcm1,
            Err("cipher: message authentication failed")),
    ];
    for (name, config, value, want) in cases {
        let got = providers(&config).await.read(value, KEY).await;
        match (got, want) {
            (Ok(got), Ok(stale)) => {
                assert_eq!(got.data, PLAIN, "{name}");
                assert_eq!(got.stale, stale, "{name}");
            }
            (Err(got), Err(text)) => assert_eq!(got.to_string(), text, "{name}"),
            (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
        }
    }
}

fn config(resources: &str) -> String {
    format!(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n{resources}"
    )
}

/// kube's validation texts, every problem at once.
#[test]
fn validate_bad_configurations_kube_texts() {
    let good = secret(1, 32);
    #[rustfmt::skip]
    let cases: Vec<(&str, String, Vec<String>)> = vec![
        ("no resources", config("  []"), vec!["resources: Required value: at least one resources is required".into()]),
        ("empty entry", config("- {}"), vec![
            "resources[0].resources: Required value: at least one resources[0].resources is required".into(),
            "resources[0].providers: Required value: at least one resources[0].providers is required".into(),
        ]),
        ("bad keys", config(&format!("- resources: [a.b]\n  providers:\n  - aesgcm: {{keys: [{{name: k, secret: {}}}, {{secret: '!!'}}, {{name: n}}]}}\n  - secretbox: {{keys: []}}", secret(1, 8))), vec![
            "resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: \"REDACTED\": secret is not of the expected length, got 8, expected one of [16 24 32]".into(),
            "resources[0].providers[0].aesgcm.keys[1].name: Required value: name is a mandatory field for a key".into(),
            "resources[0].providers[0].aesgcm.keys[1].secret: Invalid value: \"REDACTED\": secrets must be base64 encoded".into(),
            "resources[0].providers[0].aesgcm.keys[2].secret: Required value: secret is a mandatory field for a key".into(),
            "resources[0].providers[1].secretbox.keys: Required value: at least one keys is required".into(),
        ]),
        ("secretbox wants 32", config(&format!("- resources: [a.b]\n  providers:\n  - secretbox: {{keys: [{{name: k, secret: {}}}]}}", secret(1, 16))), vec![
            "resources[0].providers[0].secretbox.keys[0].secret: Invalid value: \"REDACTED\": secret is not of the expected length, got 16, expected one of [32]".into(),
        ]),
        ("providers", config(&format!("- resources: [a.b]\n  providers:\n  - {{}}\n  - {{identity: {{}}, aescbc: {{keys: [{{name: k, secret: {good}}}]}}}}")), vec![
            "resources[0].providers[0]: Invalid value: apiserver.ProviderConfiguration{}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity".into(),
            "resources[0].providers[1]: Invalid value: apiserver.ProviderConfiguration{AESCBC, Identity}: more than one provider specified in a single element, should split into different list elements".into(),
        ]),
        ("resource names", config("- resources: [Foo, '*', serviceipallocations, e.events.k8s.io, d.extensions, 'x.*', '*.*', a.b, a.b]\n  providers: [{identity: {}}]"), vec![
            "resources[0].resources: Invalid value: []string{\"Foo\", \"*\", \"serviceipallocations\", \"e.events.k8s.io\", \"d.extensions\", \"x.*\", \"*.*\", \"a.b\", \"a.b\"}: the same resource cannot be specified multiple times".into(),
            "resources[0].resources: Invalid value: []string{\"Foo\", \"*\", \"serviceipallocations\", \"e.events.k8s.io\", \"d.extensions\", \"x.*\", \"*.*\", \"a.b\", \"a.b\"}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked".into(),
            "resources[0].resources[0]: Invalid value: \"Foo\": resource name should not contain capital letters".into(),
            "resources[0].resources[1]: Invalid value: \"*\": use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources".into(),
            "resources[0].resources[2]: Invalid value: \"serviceipallocations\": resources which do not have REST API/s cannot be encrypted".into(),
            "resources[0].resources[3]: Invalid value: \"e.events.k8s.io\": '*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file".into(),
            "resources[0].resources[4]: Invalid value: \"d.extensions\": 'extensions' group has been removed and cannot be used for encryption".into(),
            "resources[0].resources[5]: Invalid value: \"x.*\": encrypting the same resource across groups is not supported".into(),
        ]),
        ("kms", config("- resources: [a.b]\n  providers:\n  - kms: {apiVersion: v2, name: 'a:b', endpoint: 'tcp://x', timeout: 0s, cachesize: 5}\n  - kms: {apiVersion: v3, endpoint: ''}"), vec![
            "resources[0].providers[0].kms.name: Invalid value: \"a:b\": invalid KMS provider name a:b, must not contain ':'".into(),
            "resources[0].providers[0].kms.timeout: Invalid value: 0s: timeout should be a positive value".into(),
            "resources[0].providers[0].kms.endpoint: Invalid value: \"tcp://x\": unsupported scheme \"tcp\" for KMS provider, only unix is supported".into(),
            "resources[0].providers[0].kms.cachesize: Invalid value: 5: cachesize is not supported in v2".into(),
            "resources[0].providers[1].kms.name: Required value: name is a mandatory field for a provider".into(),
            "resources[0].providers[1].kms.endpoint: Invalid value: \"\": endpoint is a mandatory field for a kms".into(),
            "resources[0].providers[1].kms.apiVersion: Invalid value: \"v3\": unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported".into(),
        ]),
    ];
    for (name, text, want) in cases {
        let config = EncryptionConfiguration::decode(text.as_bytes()).unwrap();
        let got: Vec<String> = super::validate::validate(&config)
            .into_iter()
            .map(|e| e.0)
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

/// The file as `--encryption-provider-config` reads it: kube's wrapping texts, the
/// aggregate of several problems, and the build step's masking and KMS v1 refusals.
#[test]
fn load_files_kube_texts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("enc.yaml");
    let quoted = crate::gofmt::quote(&path.display().to_string());
    let good = secret(1, 32);
    #[rustfmt::skip]
    let cases: Vec<(&str, String, Result<(), String>)> = vec![
        ("empty", String::new(), Err(format!("error while parsing file: error while loading file: encryption provider configuration file {quoted} is empty"))),
        ("wrong kind", "apiVersion: v1\nkind: Pod\n".into(), Err(format!("error while parsing file: error decoding encryption provider configuration file {quoted}: no kind \"Pod\" is registered for version \"v1\" in scheme \"k8s.io/apiserver/pkg/server/options/encryptionconfig/config.go\""))),
        ("unknown fields", config(&format!("- resources: [a.b]\n  providers:\n  - rot13: {{}}\n    aesgcm: {{keys: [{{name: k, secret: {good}, size: 3}}]}}\n  extra: 1")),
            Err(format!("error while parsing file: error decoding encryption provider configuration file {quoted}: strict decoding error: unknown field \"resources[0].extra\", unknown field \"resources[0].providers[0].aesgcm.keys[0].size\", unknown field \"resources[0].providers[0].rot13\""))),
        ("two problems", config("- {}"), Err("error while parsing file: [resources[0].resources: Required value: at least one resources[0].resources is required, resources[0].providers: Required value: at least one resources[0].providers is required]".into())),
        ("masked by group", config(&format!("- resources: ['*.stable.example.com']\n  providers: [{{aesgcm: {{keys: [{{name: k, secret: {good}}}]}}}}]\n- resources: [crontabs.stable.example.com]\n  providers: [{{identity: {{}}}}]")),
            Err("error while building transformers: resource \"crontabs.stable.example.com\" is masked by earlier rule \"*.stable.example.com\"".into())),
        ("masked by everything", config("- resources: ['*.*']\n  providers: [{identity: {}}]\n- resources: ['*.']\n  providers: [{identity: {}}]"),
            Err("error while building transformers: resource \"*.\" is masked by earlier rule \"*.*\"".into())),
        ("kms v1", config("- resources: [a.b]\n  providers: [{kms: {name: k, endpoint: 'unix:///k.sock'}}]"),
            Err("error while building transformers: KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.".into())),
        ("good", config(&format!("- resources: [crontabs.stable.example.com]\n  providers: [{{aesgcm: {{keys: [{{name: k, secret: {good}}}]}}}}, {{identity: {{}}}}]")), Ok(())),
    ];
    for (name, text, want) in cases {
        std::fs::write(&path, &text).unwrap();
        let got = EncryptionConfiguration::load(&path).and_then(|c| Plan::new(&c).map(|_| ()));
        assert_eq!(got, want, "{name}");
    }
    let missing = EncryptionConfiguration::load(&dir.path().join("none")).unwrap_err();
    assert!(missing.starts_with("error while parsing file: error while loading file: error reading encryption provider configuration file "), "{missing}");
}

/// kube's `transformerFromOverrides`: the resource's own rule, else its group's, else
/// everyone's, else none.
#[tokio::test]
async fn for_resource_own_group_any_none() {
    let key = |n: u8| {
        format!(
            "{{aesgcm: {{keys: [{{name: k{n}, secret: {}}}]}}}}",
            secret(n, 32)
        )
    };
    let text = config(&format!(
        "- resources: [crontabs.stable.example.com]\n  providers: [{}]\n- resources: ['*.other.io']\n  providers: [{}]\n- resources: ['*.*']\n  providers: [{}]",
        key(1),
        key(2),
        key(3)
    ));
    let config = EncryptionConfiguration::decode(text.as_bytes()).unwrap();
    let made = Plan::new(&config)
        .unwrap()
        .connect(TransformationMetrics::default())
        .await
        .unwrap();
    for (group, plural, want) in [
        ("stable.example.com", "crontabs", "k1"),
        ("other.io", "things", "k2"),
        ("stable.example.com", "others", "k3"),
    ] {
        let written = made
            .for_resource(group, plural)
            .unwrap()
            .write(PLAIN, KEY)
            .await
            .unwrap();
        let prefix = format!("k8s:enc:aesgcm:v1:{want}:");
        assert!(written.starts_with(prefix.as_bytes()), "{group}/{plural}");
    }
    let only = EncryptionConfiguration::decode(config_one().as_bytes()).unwrap();
    let made = Plan::new(&only)
        .unwrap()
        .connect(TransformationMetrics::default())
        .await
        .unwrap();
    assert!(made.for_resource("stable.example.com", "others").is_none());
}

fn config_one() -> String {
    config("- resources: [crontabs.stable.example.com]\n  providers: [{identity: {}}]")
}
