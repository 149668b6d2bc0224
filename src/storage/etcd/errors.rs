//! etcd backend errors: every etcd client error and every timeout becomes one
//! [`StorageError`] here, with text that names the etcd call.
//!
//! Compaction and future-revision errors carry no revision numbers on the wire, so they are
//! reported as a [`Failure`] and the caller completes them with a second read.

use std::future::Future;
use std::time::Duration;

use etcd_client::Error as EtcdError;

use crate::storage::StorageError;

/// etcd's message for a read or compaction below the compacted revision.
const COMPACTED: &str = "required revision has been compacted";
/// etcd's message for a read or compaction above the current revision.
const FUTURE_REVISION: &str = "required revision is a future revision";

/// Why an etcd call failed, before revisions are filled in.
#[derive(Debug)]
pub(super) enum Failure {
    /// The requested revision was compacted (etcd does not say up to where).
    Compacted,
    /// The requested revision is newer than the current one.
    FutureRevision,
    /// Anything else, already classified.
    Storage(StorageError),
}

impl Failure {
    /// The storage error for calls that never ask for a revision.
    pub(super) fn into_storage(self, what: &str) -> StorageError {
        match self {
            Failure::Storage(err) => err,
            Failure::Compacted => {
                StorageError::Backend(format!("etcd {what}: unexpected compaction error"))
            }
            Failure::FutureRevision => {
                StorageError::Backend(format!("etcd {what}: unexpected future revision error"))
            }
        }
    }
}

/// Runs one etcd call with a deadline; `what` names it in error texts.
pub(super) async fn call<T, F>(timeout: Duration, what: &str, fut: F) -> Result<T, Failure>
where
    F: Future<Output = Result<T, EtcdError>>,
{
    match tokio::time::timeout(timeout, fut).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(classify(what, &err)),
        Err(_) => Err(Failure::Storage(timed_out(what, timeout))),
    }
}

/// Like [`call`], for calls whose revision errors cannot happen.
pub(super) async fn call_plain<T, F>(
    timeout: Duration,
    what: &str,
    fut: F,
) -> Result<T, StorageError>
where
    F: Future<Output = Result<T, EtcdError>>,
{
    call(timeout, what, fut)
        .await
        .map_err(|failure| failure.into_storage(what))
}

pub(super) fn timed_out(what: &str, timeout: Duration) -> StorageError {
    StorageError::Timeout(format!(
        "etcd {what} did not answer within {}ms",
        timeout.as_millis()
    ))
}

pub(super) fn backend(text: impl std::fmt::Display) -> StorageError {
    StorageError::Backend(text.to_string())
}

/// gRPC status codes (stable across implementations; tonic is not a direct dependency).
mod code {
    pub(super) const CANCELLED: i32 = 1;
    pub(super) const UNKNOWN: i32 = 2;
    pub(super) const DEADLINE_EXCEEDED: i32 = 4;
    pub(super) const RESOURCE_EXHAUSTED: i32 = 8;
    pub(super) const ABORTED: i32 = 10;
    pub(super) const UNAVAILABLE: i32 = 14;
}

/// Sorts an etcd client error into a [`Failure`].
pub(super) fn classify(what: &str, err: &EtcdError) -> Failure {
    let text = format!("etcd {what}: {}", describe(err));
    match err {
        EtcdError::GRpcStatus(status) => {
            classify_status(i32::from(status.code()), status.message(), text)
        }
        EtcdError::TransportError(_) | EtcdError::IoError(_) | EtcdError::WatchError(_) => {
            Failure::Storage(StorageError::Unavailable(text))
        }
        _ => Failure::Storage(StorageError::Backend(text)),
    }
}

/// Sorts a gRPC status (code and message) into a [`Failure`] whose text is `text`.
fn classify_status(status_code: i32, message: &str, text: String) -> Failure {
    if message.contains(COMPACTED) {
        return Failure::Compacted;
    }
    if message.contains(FUTURE_REVISION) {
        return Failure::FutureRevision;
    }
    let storage = match status_code {
        code::DEADLINE_EXCEEDED => StorageError::Timeout(text),
        // etcd reports its own raft timeouts as Unavailable "etcdserver: request timed out".
        code::UNAVAILABLE if message.contains("request timed out") => StorageError::Timeout(text),
        code::UNAVAILABLE | code::CANCELLED | code::ABORTED => StorageError::Unavailable(text),
        // "too many requests" is transient; "database space exceeded" is not.
        code::RESOURCE_EXHAUSTED if !message.contains("space exceeded") => {
            StorageError::Unavailable(text)
        }
        // A broken HTTP/2 connection surfaces as Unknown with a transport message.
        code::UNKNOWN if is_transport(message) => StorageError::Unavailable(text),
        _ => StorageError::Backend(text),
    };
    Failure::Storage(storage)
}

fn is_transport(message: &str) -> bool {
    ["transport", "h2 protocol", "connection", "broken pipe"]
        .iter()
        .any(|needle| message.contains(needle))
}

/// The error text with its source chain, each cause once.
fn describe(err: &EtcdError) -> String {
    let (mut text, mut source) = match err {
        // "Unknown error" adds nothing to tonic's own message.
        EtcdError::GRpcStatus(status) if i32::from(status.code()) == code::UNKNOWN => (
            status.message().to_string(),
            std::error::Error::source(status),
        ),
        EtcdError::GRpcStatus(status) => (
            format!(
                "{}: {}",
                status.code().description().to_lowercase(),
                status.message()
            ),
            std::error::Error::source(status),
        ),
        other => (other.to_string(), std::error::Error::source(other)),
    };
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(failure: &Failure) -> &'static str {
        match failure {
            Failure::Compacted => "compacted",
            Failure::FutureRevision => "future",
            Failure::Storage(StorageError::Unavailable(_)) => "unavailable",
            Failure::Storage(StorageError::Timeout(_)) => "timeout",
            Failure::Storage(StorageError::Backend(_)) => "backend",
            Failure::Storage(_) => "other",
        }
    }

    #[test]
    fn classify_status_etcd_messages_sorted() {
        let cases = [
            (
                11,
                "etcdserver: mvcc: required revision has been compacted",
                "compacted",
            ),
            (
                11,
                "etcdserver: mvcc: required revision is a future revision",
                "future",
            ),
            (14, "etcdserver: request timed out", "timeout"),
            (14, "tcp connect error", "unavailable"),
            (14, "etcdserver: no leader", "unavailable"),
            (4, "deadline has elapsed", "timeout"),
            (1, "operation was canceled", "unavailable"),
            (8, "etcdserver: too many requests", "unavailable"),
            (8, "etcdserver: mvcc: database space exceeded", "backend"),
            (2, "transport error", "unavailable"),
            (2, "something odd", "backend"),
            (7, "etcdserver: permission denied", "backend"),
        ];
        for (status_code, message, want) in cases {
            let got = classify_status(status_code, message, message.to_string());
            assert_eq!(kind(&got), want, "{status_code} {message}");
        }
    }

    #[test]
    fn into_storage_revision_failures_backend() {
        let err = Failure::Compacted.into_storage("txn");
        assert_eq!(
            err,
            StorageError::Backend("etcd txn: unexpected compaction error".into())
        );
    }
}
