//! The credentials an admission webhook is called with (read at start-up; the webhook
//! transport, `webhook::credentials`, uses them): kube's `--admission-control-config-file`
//! (`AdmissionConfiguration`, plugins `ValidatingAdmissionWebhook` /
//! `MutatingAdmissionWebhook`, each a `WebhookAdmissionConfiguration` naming a
//! `kubeConfigFile`), whose users are picked per webhook host as k8s.io/apiserver
//! `pkg/util/webhook/authentication.go` does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine;
use kube::config::{AuthInfo, Kubeconfig};
use serde::Deserialize;
use serde_json::Value;

/// What a call presents (kube's `restConfigFromKubeconfig`), resolved at start-up.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Credentials {
    pub bearer_token: Option<String>,
    pub basic: Option<(String, String)>,
    /// (certificate chain PEM, private key PEM).
    pub client_cert: Option<(Vec<u8>, Vec<u8>)>,
}

/// A kubeconfig's users by name, and its current context's user.
#[derive(Clone, Debug, Default)]
pub struct Users {
    users: BTreeMap<String, Result<Credentials, String>>,
    current: Option<String>,
}

impl Users {
    /// kube's lookup for `target` (`host:port`): exact, `*.`-suffixes, both again without
    /// `:443`, then `*`, then the current context's user, else anonymous.
    pub fn for_target(&self, target: &str) -> Result<Credentials, String> {
        let mut names = candidates(target);
        if let Some(host) = target.strip_suffix(":443") {
            names.extend(candidates(host));
        }
        names.push("*".into());
        names.extend(self.current.clone());
        names
            .iter()
            .find_map(|name| self.users.get(name))
            .cloned()
            .unwrap_or_else(|| Ok(Credentials::default()))
    }

    /// The users of a kubeconfig file (relative certificate paths are the file's).
    pub fn load(path: &Path) -> Result<Users, String> {
        let config = Kubeconfig::read_from(path)
            .map_err(|e| format!("kubeConfigFile {}: {e}", path.display()))?;
        let base = path.parent().unwrap_or(Path::new("/"));
        let current = config.current_context.as_ref().and_then(|name| {
            config
                .contexts
                .iter()
                .find(|c| &c.name == name)
                .and_then(|c| c.context.as_ref())
                .and_then(|c| c.user.clone())
        });
        let users = config
            .auth_infos
            .iter()
            .map(|named| {
                let info = named.auth_info.clone().unwrap_or_default();
                (named.name.clone(), credentials(&info, base))
            })
            .collect();
        Ok(Users { users, current })
    }
}

/// `target`, then `*.` + each of its dot-separated suffixes.
fn candidates(target: &str) -> Vec<String> {
    let steps: Vec<&str> = target.split('.').collect();
    let mut names = vec![target.to_string()];
    names.extend((1..steps.len()).map(|i| format!("*.{}", steps[i..].join("."))));
    names
}

fn credentials(info: &AuthInfo, base: &Path) -> Result<Credentials, String> {
    use secrecy::ExposeSecret;
    if info.auth_provider.is_some() {
        return Err("auth provider not supported".into());
    }
    if info.exec.is_some() {
        return Err("exec credential plugins are not supported by this server".into());
    }
    let bearer_token = match (&info.token, &info.token_file) {
        (Some(token), _) => Some(token.expose_secret().to_string()),
        (None, Some(file)) => Some(read(&resolve(base, file))?.trim_end().to_string()),
        (None, None) => None,
    };
    let basic = match (&info.username, &info.password) {
        (None, None) => None,
        (user, password) => Some((
            user.clone().unwrap_or_default(),
            password
                .as_ref()
                .map(|p| p.expose_secret().to_string())
                .unwrap_or_default(),
        )),
    };
    let cert = pem(
        &info.client_certificate_data,
        &info.client_certificate,
        base,
    )?;
    let key_data = info
        .client_key_data
        .as_ref()
        .map(|k| k.expose_secret().to_string());
    let key = pem(&key_data, &info.client_key, base)?;
    let client_cert = match (cert, key) {
        (Some(cert), Some(key)) => Some((cert, key)),
        (None, None) => None,
        _ => return Err("client certificate and key must both be given".into()),
    };
    Ok(Credentials {
        bearer_token,
        basic,
        client_cert,
    })
}

fn pem(
    data: &Option<String>,
    file: &Option<String>,
    base: &Path,
) -> Result<Option<Vec<u8>>, String> {
    match (data, file) {
        (Some(data), _) => base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map(Some)
            .map_err(|e| format!("illegal base64 data in kubeconfig: {e}")),
        (None, Some(file)) => std::fs::read(resolve(base, file))
            .map(Some)
            .map_err(|e| format!("{file}: {e}")),
        (None, None) => Ok(None),
    }
}

fn resolve(base: &Path, file: &str) -> PathBuf {
    base.join(file)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The users of each webhook plugin from `--admission-control-config-file`.
#[derive(Clone, Debug, Default)]
pub struct AdmissionUsers {
    pub mutating: Users,
    pub validating: Users,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AdmissionConfiguration {
    #[serde(rename = "apiVersion")]
    api_version: String,
    kind: String,
    #[serde(default)]
    plugins: Option<Vec<PluginConfiguration>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PluginConfiguration {
    name: String,
    #[serde(default)]
    path: String,
    #[serde(default)]
    configuration: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WebhookAdmission {
    #[serde(rename = "apiVersion")]
    api_version: String,
    kind: String,
    #[serde(rename = "kubeConfigFile", default)]
    kube_config_file: String,
    #[serde(rename = "staticManifestsDir", default)]
    _static_manifests_dir: String,
}

impl AdmissionUsers {
    /// Reads `--admission-control-config-file`; an error names the file and the fault.
    pub fn load(path: &Path) -> Result<AdmissionUsers, String> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "unable to read admission control configuration from {} [{e}]",
                crate::gofmt::quote(&path.display().to_string())
            )
        })?;
        let config: AdmissionConfiguration = yaml(&text)
            .map_err(|e| format!("admission control configuration {}: {e}", path.display()))?;
        let known = [
            "apiserver.config.k8s.io/v1",
            "apiserver.config.k8s.io/v1alpha1",
        ];
        if config.kind != "AdmissionConfiguration" || !known.contains(&config.api_version.as_str())
        {
            return Err(format!(
                "admission control configuration {}: expected kind AdmissionConfiguration of apiserver.config.k8s.io/v1, got {} {}",
                path.display(),
                config.api_version,
                config.kind
            ));
        }
        let base = path.parent().unwrap_or(Path::new("/"));
        let mut users = AdmissionUsers::default();
        for plugin in config.plugins.unwrap_or_default() {
            let slot = match plugin.name.as_str() {
                "MutatingAdmissionWebhook" => &mut users.mutating,
                "ValidatingAdmissionWebhook" => &mut users.validating,
                _ => continue,
            };
            *slot = plugin_users(&plugin, base)
                .map_err(|e| format!("admission plugin {}: {e}", plugin.name))?;
        }
        Ok(users)
    }
}

fn plugin_users(plugin: &PluginConfiguration, base: &Path) -> Result<Users, String> {
    let text = match (&plugin.configuration, plugin.path.as_str()) {
        (Some(inline), _) => serde_json::to_string(inline).map_err(|e| e.to_string())?,
        (None, "") => return Ok(Users::default()),
        (None, file) => read(&resolve(base, file))?,
    };
    let config: WebhookAdmission = yaml(&text)?;
    if config.kind != "WebhookAdmissionConfiguration"
        || config.api_version != "apiserver.config.k8s.io/v1"
    {
        return Err(format!(
            "expected kind WebhookAdmissionConfiguration of apiserver.config.k8s.io/v1, got {} {}",
            config.api_version, config.kind
        ));
    }
    match config.kube_config_file.as_str() {
        "" => Ok(Users::default()),
        file if !Path::new(file).is_absolute() => Err(format!(
            "kubeConfigFile: Invalid value: {}: must be an absolute file path",
            crate::gofmt::quote(file)
        )),
        file => Users::load(Path::new(file)),
    }
}

fn yaml<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, String> {
    serde_saphyr::from_str(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn users(names: &[&str], current: Option<&str>) -> Users {
        Users {
            users: names
                .iter()
                .map(|n| {
                    let c = Credentials {
                        bearer_token: Some(n.to_string()),
                        ..Default::default()
                    };
                    (n.to_string(), Ok(c))
                })
                .collect(),
            current: current.map(str::to_string),
        }
    }

    #[test]
    fn for_target_kube_precedence() {
        let token = |u: &Users, t: &str| u.for_target(t).ok().and_then(|c| c.bearer_token);
        let all = users(
            &[
                "hook.ns.svc:8443",
                "*.ns.svc:8443",
                "*.svc",
                "hook.ns.svc",
                "*",
                "me",
            ],
            Some("me"),
        );
        assert_eq!(
            token(&all, "hook.ns.svc:8443").as_deref(),
            Some("hook.ns.svc:8443")
        );
        assert_eq!(
            token(&all, "other.ns.svc:8443").as_deref(),
            Some("*.ns.svc:8443")
        );
        assert_eq!(
            token(&all, "hook.ns.svc:443").as_deref(),
            Some("hook.ns.svc")
        );
        assert_eq!(token(&all, "x.other.svc:443").as_deref(), Some("*.svc"));
        assert_eq!(token(&all, "example.com:443").as_deref(), Some("*"));
        assert_eq!(
            token(&users(&["me"], Some("me")), "example.com:443").as_deref(),
            Some("me")
        );
        assert_eq!(token(&users(&[], None), "example.com:443"), None);
    }
}
