//! kube's `EncryptionConfiguration` (`apiserver.config.k8s.io/v1`) as
//! `--encryption-provider-config` names it: the file read, decoded, defaulted (a `kms`
//! provider's `apiVersion` v1 and `timeout` 3s) and validated with kube's texts
//! (k8s.io/apiserver `pkg/server/options/encryptionconfig/config.go`, `loadConfig`).

use std::path::Path;

use serde::Deserialize;

/// The file's contents.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct EncryptionConfiguration {
    #[serde(rename = "apiVersion", default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub resources: Vec<ResourceConfiguration>,
}

/// One entry of `resources`: which resources, and their providers in order.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct ResourceConfiguration {
    #[serde(default)]
    pub resources: Vec<String>,
    #[serde(default)]
    pub providers: Vec<ProviderConfiguration>,
}

/// One provider: exactly one member is set.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct ProviderConfiguration {
    pub aesgcm: Option<Keys>,
    pub aescbc: Option<Keys>,
    pub secretbox: Option<Keys>,
    pub identity: Option<Identity>,
    pub kms: Option<Kms>,
}

/// `identity: {}`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Identity {}

/// The keys of an AES or secretbox provider; the first encrypts.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Keys {
    #[serde(default)]
    pub keys: Vec<Key>,
}

/// A named key; `secret` is base64.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Key {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub secret: String,
}

/// A `kms` provider as written (before defaulting).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Kms {
    #[serde(rename = "apiVersion", default)]
    pub api_version: String,
    #[serde(default)]
    pub name: String,
    pub cachesize: Option<i32>,
    #[serde(default)]
    pub endpoint: String,
    /// A Go duration (`3s`); kube's default when absent.
    pub timeout: Option<String>,
}

pub const API_VERSION: &str = "apiserver.config.k8s.io/v1";
pub const KIND: &str = "EncryptionConfiguration";
/// kube's `defaultTimeout` of a `kms` provider.
pub const DEFAULT_KMS_TIMEOUT: &str = "3s";

impl Kms {
    /// kube's `SetDefaults_KMSConfiguration`.
    fn defaulted(mut self) -> Kms {
        if self.timeout.is_none() {
            self.timeout = Some(DEFAULT_KMS_TIMEOUT.into());
        }
        if self.api_version.is_empty() {
            self.api_version = "v1".into();
        }
        if self.cachesize.is_none() && self.api_version == "v1" {
            self.cachesize = Some(1000);
        }
        self
    }
}

impl EncryptionConfiguration {
    /// Reads, decodes, defaults and validates the file, as kube's `LoadEncryptionConfig`
    /// does; the error is kube's text (every validation problem at once).
    pub fn load(path: &Path) -> Result<EncryptionConfiguration, String> {
        let parsing = |e: String| format!("error while parsing file: {e}");
        let quoted = crate::gofmt::quote(&path.display().to_string());
        let data = std::fs::read(path).map_err(|e| {
            parsing(format!(
                "error while loading file: error reading encryption provider configuration file {quoted}: {e}"
            ))
        })?;
        if data.is_empty() {
            return Err(parsing(format!(
                "error while loading file: encryption provider configuration file {quoted} is empty"
            )));
        }
        let config = Self::decode(&data).map_err(|e| {
            parsing(format!(
                "error decoding encryption provider configuration file {quoted}: {e}"
            ))
        })?;
        let errors = super::validate::validate(&config);
        match super::validate::aggregate(&errors) {
            Some(text) => Err(parsing(text)),
            None => Ok(config),
        }
    }

    /// The decoded and defaulted configuration (YAML or JSON).
    pub fn decode(data: &[u8]) -> Result<EncryptionConfiguration, String> {
        let text = std::str::from_utf8(data).map_err(|e| e.to_string())?;
        let value: serde_json::Value = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
        let mut unknown = Vec::new();
        unknown_fields(&value, &TOP, "", &mut unknown);
        if !unknown.is_empty() {
            let fields: Vec<String> = unknown
                .iter()
                .map(|f| format!("unknown field {}", crate::gofmt::quote(f)))
                .collect();
            return Err(format!("strict decoding error: {}", fields.join(", ")));
        }
        // Typed from the text, as kube's YAML decoding is typed by its target (a key
        // named `n` is a string, not YAML 1.1's false).
        let mut config: EncryptionConfiguration =
            serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
        if config.kind.is_empty() {
            return Err(format!("Object 'Kind' is missing in '{}'", text.trim()));
        }
        if config.kind != KIND || config.api_version != API_VERSION {
            return Err(format!(
                "no kind {} is registered for version {} in scheme \"k8s.io/apiserver/pkg/server/options/encryptionconfig/config.go\"",
                crate::gofmt::quote(&config.kind),
                crate::gofmt::quote(&config.api_version)
            ));
        }
        for resource in &mut config.resources {
            for provider in &mut resource.providers {
                provider.kms = provider.kms.take().map(Kms::defaulted);
            }
        }
        Ok(config)
    }
}

/// The members one level of the file may have, and the levels under them.
struct Shape {
    fields: &'static [(&'static str, Option<&'static Shape>)],
}

const KEY: Shape = Shape {
    fields: &[("name", None), ("secret", None)],
};
const KEYS: Shape = Shape {
    fields: &[("keys", Some(&KEY))],
};
const NONE: Shape = Shape { fields: &[] };
const KMS: Shape = Shape {
    fields: &[
        ("apiVersion", None),
        ("name", None),
        ("cachesize", None),
        ("endpoint", None),
        ("timeout", None),
    ],
};
const PROVIDER: Shape = Shape {
    fields: &[
        ("aesgcm", Some(&KEYS)),
        ("aescbc", Some(&KEYS)),
        ("secretbox", Some(&KEYS)),
        ("identity", Some(&NONE)),
        ("kms", Some(&KMS)),
    ],
};
const RESOURCE: Shape = Shape {
    fields: &[("resources", None), ("providers", Some(&PROVIDER))],
};
const TOP: Shape = Shape {
    fields: &[
        ("apiVersion", None),
        ("kind", None),
        ("resources", Some(&RESOURCE)),
    ],
};

/// kube's strict decoding: the paths of members its types do not have
/// (`resources[0].providers[0].rot13`); several are listed in member-name order within
/// each object, where kube lists them in the file's order.
fn unknown_fields(value: &serde_json::Value, shape: &Shape, path: &str, out: &mut Vec<String>) {
    use serde_json::Value;
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                unknown_fields(item, shape, &format!("{path}[{i}]"), out);
            }
        }
        Value::Object(members) => {
            for (name, member) in members {
                let at = match path {
                    "" => name.clone(),
                    _ => format!("{path}.{name}"),
                };
                match shape.fields.iter().find(|(known, _)| known == name) {
                    Some((_, Some(inner))) => unknown_fields(member, inner, &at, out),
                    Some((_, None)) => {}
                    None => out.push(at),
                }
            }
        }
        _ => {}
    }
}
