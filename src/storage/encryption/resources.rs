//! From a validated [`EncryptionConfiguration`] to each served resource's providers, as
//! kube's `getTransformerOverridesAndKMSPluginProbes` and `transformerFromOverrides` do:
//! an entry's providers are built once and shared by its resources (a resource named by
//! two entries gets both lists, in order); a resource takes its own list, else its
//! group's (`*.group`), else everyone's (`*.*`), else none (stored as is). A resource
//! named after a `*.group` or `*.*` rule that masks it is refused.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;

use super::aes::{Cbc, Gcm};
use super::config::{EncryptionConfiguration, Keys, Kms, ProviderConfiguration};
use super::metrics::TransformationMetrics;
use super::prefix::{Cipher, Key, Kind, Provider, Providers};
use super::secretbox::Secretbox;
use super::validate::parse_group_resource;
use super::{KmsConfiguration, Transformer};

/// A `(group, resource)` as the configuration names it (`*` for any).
pub type GroupResource = (String, String);

/// A provider still to be made: `kms` ones connect to their plugin.
enum Pending {
    Ready(Arc<Provider>),
    Kms(KmsConfiguration),
}

/// The configuration checked and its in-process providers made; [`Plan::connect`] makes
/// the `kms` ones.
pub struct Plan {
    providers: Vec<Pending>,
    /// Each configured resource's provider indices, in order.
    resources: BTreeMap<GroupResource, Vec<usize>>,
}

/// kube's `grYAMLString`.
fn yaml_string((group, resource): &GroupResource) -> String {
    match (group.as_str(), resource.as_str()) {
        ("", "*") => "*.".into(),
        ("", r) => r.into(),
        (g, r) => format!("{r}.{g}"),
    }
}

impl Plan {
    /// kube's transformer overrides; an error is kube's build text.
    pub fn new(config: &EncryptionConfiguration) -> Result<Plan, String> {
        let building = |e: String| format!("error while building transformers: {e}");
        let mut plan = Plan {
            providers: Vec::new(),
            resources: BTreeMap::new(),
        };
        let any: GroupResource = ("*".into(), "*".into());
        for entry in &config.resources {
            let first = plan.providers.len();
            for provider in &entry.providers {
                plan.providers.push(pending(provider).map_err(building)?);
            }
            let indices: Vec<usize> = (first..plan.providers.len()).collect();
            for name in &entry.resources {
                let gr = parse_group_resource(name);
                let group_rule: GroupResource = (gr.0.clone(), "*".into());
                for rule in [group_rule, any.clone()] {
                    if plan.resources.contains_key(&rule) {
                        return Err(building(format!(
                            "resource {} is masked by earlier rule {}",
                            crate::gofmt::quote(&yaml_string(&gr)),
                            crate::gofmt::quote(&yaml_string(&rule))
                        )));
                    }
                }
                plan.resources.entry(gr).or_default().extend(&indices);
            }
        }
        Ok(plan)
    }

    /// Connects the `kms` providers (kube's `kmsPrefixTransformer`).
    pub async fn connect(self, metrics: TransformationMetrics) -> Result<Encryption, String> {
        let mut providers = Vec::with_capacity(self.providers.len());
        for pending in self.providers {
            providers.push(match pending {
                Pending::Ready(provider) => provider,
                Pending::Kms(config) => {
                    let kms = super::kms::transformer(&config)
                        .await
                        .map_err(|e| format!("error while building transformers: {e}"))?;
                    Arc::new(kms_provider(&config.name, kms))
                }
            });
        }
        Ok(Encryption {
            providers,
            resources: self.resources,
            metrics,
        })
    }
}

/// Every configured resource's providers, made.
pub struct Encryption {
    providers: Vec<Arc<Provider>>,
    resources: BTreeMap<GroupResource, Vec<usize>>,
    metrics: TransformationMetrics,
}

impl Encryption {
    /// The providers of `plural` in `group` (kube's `transformerFromOverrides`), `None`
    /// when no rule names it.
    pub fn for_resource(&self, group: &str, plural: &str) -> Option<Providers> {
        let candidates = [
            (group.to_string(), plural.to_string()),
            (group.to_string(), "*".to_string()),
            ("*".to_string(), "*".to_string()),
        ];
        let indices = candidates.iter().find_map(|gr| self.resources.get(gr))?;
        let resource = yaml_string(&(group.to_string(), plural.to_string()));
        Some(Providers {
            providers: indices.iter().map(|i| self.providers[*i].clone()).collect(),
            recorder: self.metrics.recorder(&resource),
        })
    }
}

/// The provider of one configuration element (validated: exactly one member is set).
fn pending(config: &ProviderConfiguration) -> Result<Pending, String> {
    let ready = |prefix: &str, kind| {
        Ok(Pending::Ready(Arc::new(Provider {
            prefix: prefix.as_bytes().to_vec(),
            label: prefix.into(),
            kind,
        })))
    };
    match config {
        ProviderConfiguration { aesgcm: Some(k), .. } => ready(
            "k8s:enc:aesgcm:v1:",
            aes_keys(k, "aes", |key| Gcm::new(key).map(Cipher::Gcm))?,
        ),
        ProviderConfiguration { aescbc: Some(k), .. } => ready(
            "k8s:enc:aescbc:v1:",
            aes_keys(k, "aes", |key| Cbc::new(key).map(|c| Cipher::Cbc(Box::new(c))))?,
        ),
        ProviderConfiguration {
            secretbox: Some(k), ..
        } => ready("k8s:enc:secretbox:v1:", secretbox_keys(k)?),
        ProviderConfiguration { kms: Some(kms), .. } => kms_pending(kms).map(Pending::Kms),
        ProviderConfiguration {
            identity: Some(_), ..
        } => Ok(Pending::Ready(Arc::new(Provider {
            prefix: Vec::new(),
            label: "identity".into(),
            kind: Kind::Identity,
        }))),
        _ => Err("provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity".into()),
    }
}

/// The decoded secrets of `keys`, kube's `aesPrefixTransformer` checks first.
fn decoded(keys: &Keys, provider: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    if keys.keys.is_empty() {
        return Err(format!("{provider} provider has no valid keys"));
    }
    for key in &keys.keys {
        if key.name.is_empty() {
            return Err("key with invalid name provided".into());
        }
        if key.secret.is_empty() {
            return Err(format!("key {} has no provided secret", key.name));
        }
    }
    keys.keys
        .iter()
        .map(|key| {
            let secret = base64::engine::general_purpose::STANDARD
                .decode(&key.secret)
                .map_err(|e| format!("could not obtain secret for named key {}: {e}", key.name))?;
            Ok((key.name.clone(), secret))
        })
        .collect()
}

fn aes_keys(
    keys: &Keys,
    provider: &str,
    cipher: impl Fn(&[u8]) -> Result<Cipher, String>,
) -> Result<Kind, String> {
    let keys = decoded(keys, provider)?
        .into_iter()
        .map(|(name, secret)| {
            let cipher = cipher(&secret)
                .map_err(|e| format!("error while creating cipher for named key {name}: {e}"))?;
            Ok(Key {
                prefix: format!("{name}:").into_bytes(),
                cipher,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Kind::Keys {
        keys,
        no_match: "no matching key was found for the provided AES transformer",
    })
}

fn secretbox_keys(keys: &Keys) -> Result<Kind, String> {
    let keys = decoded(keys, "secretbox")?
        .into_iter()
        .map(|(name, secret)| {
            let key: [u8; 32] = secret.as_slice().try_into().map_err(|_| {
                format!(
                    "expected key size 32 for secretbox provider, got {}",
                    secret.len()
                )
            })?;
            Ok(Key {
                prefix: format!("{name}:").into_bytes(),
                cipher: Cipher::Secretbox(Secretbox::new(&key)),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Kind::Keys {
        keys,
        no_match: "no matching key was found for the provided Secretbox transformer",
    })
}

/// A `kms` provider's settings; kube 1.36 refuses v1 (its `KMSv1` gate is off).
fn kms_pending(kms: &Kms) -> Result<KmsConfiguration, String> {
    if kms.api_version != "v2" {
        return Err("KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.".into());
    }
    let timeout = kms
        .timeout
        .as_deref()
        .unwrap_or(super::config::DEFAULT_KMS_TIMEOUT);
    let nanos = crate::gofmt::parse_duration_nanos(timeout).unwrap_or_default();
    Ok(KmsConfiguration {
        api_version: kms.api_version.clone(),
        name: kms.name.clone(),
        endpoint: kms.endpoint.clone(),
        timeout: Duration::from_nanos(nanos.max(0).unsigned_abs()),
    })
}

/// kube's `envelopePrefixTransformer` for v2: `k8s:enc:kms:v2:<name>:`.
fn kms_provider(name: &str, kms: Arc<dyn Transformer>) -> Provider {
    let prefix = format!("k8s:enc:kms:v2:{name}:");
    Provider {
        label: prefix.as_str().into(),
        prefix: prefix.into_bytes(),
        kind: Kind::Kms(kms),
    }
}
