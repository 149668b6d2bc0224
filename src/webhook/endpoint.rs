//! Where a webhook is called: kube's `admissionregistration.k8s.io/v1` `WebhookClientConfig`
//! (`url`, or `service` {namespace, name, path, port}) with its `caBundle`.

/// A webhook's `clientConfig`, as the transport calls it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `clientConfig.url`, called as given.
    Url {
        url: String,
        /// `clientConfig.caBundle` (PEM); `None`: the system roots.
        ca_bundle: Option<Vec<u8>>,
    },
    /// `clientConfig.service`: `https://<name>.<namespace>.svc:<port><path>` (kube's
    /// default service resolver), verified as `<name>.<namespace>.svc`.
    Service {
        namespace: String,
        name: String,
        /// `service.path`; `None` calls the root.
        path: Option<String>,
        /// `service.port` (kube's default 443).
        port: u16,
        /// `clientConfig.caBundle` (PEM); `None`: the system roots.
        ca_bundle: Option<Vec<u8>>,
    },
}

/// A `clientConfig.service` as both kube APIs spell it (admissionregistration and
/// apiextensions have one type each).
pub struct ServiceRef<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub path: Option<&'a str>,
    pub port: Option<i32>,
}

/// kube's default `service.port`.
pub const DEFAULT_SERVICE_PORT: u16 = 443;

impl Endpoint {
    /// kube's `HookClient` config: `service` wins over `url` (an empty url is none);
    /// `missing` is the caller's text when neither is given.
    pub fn from_client_config(
        service: Option<ServiceRef<'_>>,
        url: Option<&str>,
        ca_bundle: Option<Vec<u8>>,
        missing: &str,
    ) -> Result<Endpoint, String> {
        if let Some(service) = service {
            let port = match service.port {
                None => DEFAULT_SERVICE_PORT,
                Some(p) => u16::try_from(p).map_err(|_| format!("invalid service port {p}"))?,
            };
            return Ok(Endpoint::Service {
                namespace: service.namespace.to_string(),
                name: service.name.to_string(),
                path: service.path.map(str::to_string),
                port,
                ca_bundle,
            });
        }
        match url.filter(|u| !u.is_empty()) {
            Some(url) => Ok(Endpoint::Url {
                url: url.to_string(),
                ca_bundle,
            }),
            None => Err(missing.to_string()),
        }
    }

    /// The PEM roots this endpoint pins, if any.
    pub fn ca_bundle(&self) -> Option<&[u8]> {
        match self {
            Endpoint::Url { ca_bundle, .. } | Endpoint::Service { ca_bundle, .. } => {
                ca_bundle.as_deref()
            }
        }
    }
}

impl Endpoint {
    /// The URL called, before `?timeout=` (client-go: scheme and host of `url` with its
    /// path cleaned as `path.Join("/", path)`; a service's `https://<name>.<namespace>.svc:<port>`).
    pub fn base_url(&self) -> String {
        match self {
            Endpoint::Url { url, .. } => {
                let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
                let rest = rest.split(['?', '#']).next().unwrap_or_default();
                let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
                format!("{scheme}://{host}{}", clean_path(path))
            }
            Endpoint::Service {
                namespace,
                name,
                path,
                port,
                ..
            } => format!(
                "https://{name}.{namespace}.svc:{port}{}",
                clean_path(path.as_deref().unwrap_or_default())
            ),
        }
    }
}

/// Go's `path.Join("/", p)`: rooted, `.`/`..`/empty segments resolved, no trailing `/`.
fn clean_path(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_cleaned_as_client_go() {
        let url = |u: &str| {
            Endpoint::Url {
                url: u.into(),
                ca_bundle: None,
            }
            .base_url()
        };
        assert_eq!(url("https://h:8443"), "https://h:8443/");
        assert_eq!(url("https://h/validate/"), "https://h/validate");
        assert_eq!(url("https://h//a/./b/../c"), "https://h/a/c");
        let svc = Endpoint::Service {
            namespace: "ns".into(),
            name: "hook".into(),
            path: Some("/v".into()),
            port: 443,
            ca_bundle: None,
        };
        assert_eq!(svc.base_url(), "https://hook.ns.svc:443/v");
    }
}
