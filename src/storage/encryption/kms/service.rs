//! The KMS v2 plugin as the envelope sees it ([`Service`]: Status, Encrypt, Decrypt) and
//! its gRPC client over a unix socket (kube's kmsv2 `gRPCService`): lazy connection (the
//! plugin may start after the server), a deadline of the configured timeout per call,
//! each call's latency recorded by gRPC status code. Errors read as Go's gRPC errors,
//! `rpc error: code = <Code> desc = <message>`.

use std::time::Duration;

use futures::future::BoxFuture;
use http::uri::PathAndQuery;
use hyper_util::rt::TokioIo;
use tokio::time::Instant;
use tonic::transport::{Channel, Endpoint};
use tonic_prost::ProstCodec;

use super::api;
use super::metrics::METRICS;
use crate::gofmt::parse_url;
use crate::gofmt::quote;

/// What the envelope asks of a plugin (a trait so that unit tests can stand in for it).
pub trait Service: Send + Sync {
    fn status(&self) -> BoxFuture<'_, Result<api::StatusResponse, String>>;
    fn encrypt(
        &self,
        uid: String,
        plaintext: Vec<u8>,
    ) -> BoxFuture<'_, Result<api::EncryptResponse, String>>;
    /// The plaintext of `request.ciphertext`.
    fn decrypt(&self, request: api::DecryptRequest) -> BoxFuture<'_, Result<Vec<u8>, String>>;
}

/// Where a `unix://` endpoint points: a path, or (kube's `/@name`) a Linux abstract
/// socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Socket {
    Path(String),
    Abstract(String),
}

/// kube's `util.ParseEndpoint`.
pub fn parse_endpoint(endpoint: &str) -> Result<Socket, String> {
    if endpoint.is_empty() {
        return Err("remote KMS provider can't use empty string as endpoint".to_owned());
    }
    let url = parse_url(endpoint).map_err(|e| {
        format!(
            "invalid endpoint {} for remote KMS provider, error: {e}",
            quote(endpoint)
        )
    })?;
    if url.scheme != "unix" {
        return Err(format!(
            "unsupported scheme {} for remote KMS provider",
            quote(&url.scheme)
        ));
    }
    Ok(match url.path.strip_prefix("/@") {
        Some(name) => Socket::Abstract(name.to_owned()),
        None => Socket::Path(url.path),
    })
}

/// The plugin over gRPC.
pub struct Grpc {
    channel: Channel,
    timeout: Duration,
    provider: String,
}

impl Grpc {
    /// Does not connect yet: the first call does (and each call after a failure).
    pub fn new(endpoint: &str, provider: &str, timeout: Duration) -> Result<Grpc, String> {
        let socket = parse_endpoint(endpoint)?;
        let connector = tower::service_fn(move |_: http::Uri| {
            let socket = socket.clone();
            async move { connect(&socket).await.map(TokioIo::new) }
        });
        // The authority is kube's (`grpc.WithAuthority("localhost")`); the URI is not dialed.
        let channel = Endpoint::from_static("http://localhost")
            .connect_timeout(timeout)
            .connect_with_connector_lazy(connector);
        Ok(Grpc {
            channel,
            timeout,
            provider: provider.to_owned(),
        })
    }

    async fn call<Q, R>(&self, path: &'static str, request: Q) -> Result<R, String>
    where
        Q: prost::Message + Send + Sync + 'static,
        R: prost::Message + Default + Send + Sync + 'static,
    {
        let start = Instant::now();
        let result = tokio::time::timeout(self.timeout, self.unary(path, request))
            .await
            .unwrap_or_else(|_| {
                Err(tonic::Status::deadline_exceeded(
                    "context deadline exceeded",
                ))
            });
        let code = match &result {
            Ok(_) => "OK",
            Err(status) => code_name(status.code()),
        };
        METRICS.operation(&self.provider, path, code, start.elapsed());
        result.map_err(|status| go_error(&status))
    }

    async fn unary<Q, R>(&self, path: &'static str, request: Q) -> Result<R, tonic::Status>
    where
        Q: prost::Message + Send + Sync + 'static,
        R: prost::Message + Default + Send + Sync + 'static,
    {
        let mut client = tonic::client::Grpc::new(self.channel.clone());
        client
            .ready()
            .await
            .map_err(|e| tonic::Status::unavailable(format!("connection error: {e}")))?;
        let mut request = tonic::Request::new(request);
        request.set_timeout(self.timeout);
        client
            .unary(
                request,
                PathAndQuery::from_static(path),
                ProstCodec::<Q, R>::default(),
            )
            .await
            .map(tonic::Response::into_inner)
    }
}

async fn connect(socket: &Socket) -> std::io::Result<tokio::net::UnixStream> {
    match socket {
        Socket::Path(path) => tokio::net::UnixStream::connect(path).await,
        Socket::Abstract(name) => {
            use std::os::linux::net::SocketAddrExt;
            let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
            let stream = std::os::unix::net::UnixStream::connect_addr(&addr)?;
            stream.set_nonblocking(true)?;
            tokio::net::UnixStream::from_std(stream)
        }
    }
}

impl Service for Grpc {
    fn status(&self) -> BoxFuture<'_, Result<api::StatusResponse, String>> {
        Box::pin(self.call(api::STATUS_PATH, api::StatusRequest {}))
    }

    fn encrypt(
        &self,
        uid: String,
        plaintext: Vec<u8>,
    ) -> BoxFuture<'_, Result<api::EncryptResponse, String>> {
        Box::pin(self.call(api::ENCRYPT_PATH, api::EncryptRequest { plaintext, uid }))
    }

    fn decrypt(&self, request: api::DecryptRequest) -> BoxFuture<'_, Result<Vec<u8>, String>> {
        Box::pin(async move {
            let response: api::DecryptResponse = self.call(api::DECRYPT_PATH, request).await?;
            Ok(response.plaintext)
        })
    }
}

/// Go's gRPC error text.
pub fn go_error(status: &tonic::Status) -> String {
    format!(
        "rpc error: code = {} desc = {}",
        code_name(status.code()),
        status.message()
    )
}

/// Go's `codes.Code.String()`.
pub fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code::*;
    match code {
        Ok => "OK",
        Cancelled => "Canceled",
        Unknown => "Unknown",
        InvalidArgument => "InvalidArgument",
        DeadlineExceeded => "DeadlineExceeded",
        NotFound => "NotFound",
        AlreadyExists => "AlreadyExists",
        PermissionDenied => "PermissionDenied",
        ResourceExhausted => "ResourceExhausted",
        FailedPrecondition => "FailedPrecondition",
        Aborted => "Aborted",
        OutOfRange => "OutOfRange",
        Unimplemented => "Unimplemented",
        Internal => "Internal",
        Unavailable => "Unavailable",
        DataLoss => "DataLoss",
        Unauthenticated => "Unauthenticated",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

    use super::*;

    #[test]
    fn parse_endpoint_table_kube_texts() {
        let cases = [
            (
                "unix:///tmp/kms.sock",
                Ok(Socket::Path("/tmp/kms.sock".into())),
            ),
            (
                "unix:///@kms-provider",
                Ok(Socket::Abstract("kms-provider".into())),
            ),
            (
                "",
                Err("remote KMS provider can't use empty string as endpoint".to_owned()),
            ),
            (
                "tcp://127.0.0.1:80",
                Err("unsupported scheme \"tcp\" for remote KMS provider".to_owned()),
            ),
            (
                "/tmp/kms.sock",
                Err("unsupported scheme \"\" for remote KMS provider".to_owned()),
            ),
        ];
        for (endpoint, want) in cases {
            assert_eq!(parse_endpoint(endpoint), want, "{endpoint}");
        }
    }

    #[test]
    fn go_error_reads_as_go_grpc() {
        assert_eq!(
            go_error(&tonic::Status::unavailable("plugin down")),
            "rpc error: code = Unavailable desc = plugin down"
        );
        assert_eq!(code_name(tonic::Code::Cancelled), "Canceled");
    }
}
