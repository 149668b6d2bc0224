//! The collector's gRPC target (kube's `endpoint`, as grpc-go reads a target) into where
//! the OTLP exporter connects: `host:port` and `dns:[//authority]/host:port` over
//! plain-text HTTP/2 (kube's exporter is `WithInsecure`), `unix:` paths over a socket.

use std::path::PathBuf;

/// Where spans are sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// `http://host:port`.
    Tcp(String),
    /// A unix socket's path.
    Unix(PathBuf),
}

/// The target of `endpoint` (checked already by [`super::config::validate`]).
pub fn target(endpoint: &str) -> Result<Target, String> {
    if let Some(rest) = endpoint.strip_prefix("unix://") {
        return Ok(Target::Unix(PathBuf::from(rest)));
    }
    if let Some(rest) = endpoint.strip_prefix("unix:") {
        return Ok(Target::Unix(PathBuf::from(rest)));
    }
    if endpoint.starts_with("unix-abstract:") {
        return Err(format!(
            "endpoint {}: abstract unix sockets are not supported here; use unix:///path or host:port",
            crate::gofmt::quote(endpoint)
        ));
    }
    let host_port = match endpoint.strip_prefix("dns:") {
        // `dns:///host:port` or `dns://authority/host:port`: the part after the authority.
        Some(rest) => match rest.strip_prefix("//") {
            Some(with_authority) => with_authority
                .split_once('/')
                .map_or(with_authority, |(_, hp)| hp),
            None => rest,
        },
        None => endpoint,
    };
    if host_port.is_empty() {
        return Err(format!(
            "endpoint {}: no host",
            crate::gofmt::quote(endpoint)
        ));
    }
    Ok(Target::Tcp(format!("http://{host_port}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_grpc_forms_where_connected() {
        let tcp = |s: &str| Ok(Target::Tcp(s.into()));
        let cases = [
            ("localhost:4317", tcp("http://localhost:4317")),
            ("dns:///collector:4317", tcp("http://collector:4317")),
            ("dns://8.8.8.8/collector:4317", tcp("http://collector:4317")),
            ("dns:collector:4317", tcp("http://collector:4317")),
            (
                "unix:///run/otel.sock",
                Ok(Target::Unix("/run/otel.sock".into())),
            ),
            ("unix:otel.sock", Ok(Target::Unix("otel.sock".into()))),
        ];
        for (endpoint, want) in cases {
            assert_eq!(target(endpoint), want, "{endpoint}");
        }
        assert!(target("unix-abstract:otel").is_err());
        assert!(target("dns:///").is_err());
    }
}
