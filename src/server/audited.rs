//! The chain's audit stages, as kube's `WithAudit` and `WithFailedAuthenticationAudit`
//! run them: the reply recorded into the request's event (its status, and at
//! RequestResponse level the object served), ResponseStarted for a watch when its
//! answer starts, ResponseComplete when the answer is done (a watch's when its stream
//! ends), Panic when a handler panicked; and the one event of a failed authentication.

use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use bytes::Bytes;
use futures::{FutureExt, Stream, StreamExt};
use serde_json::json;

use crate::audit::{Context, Level, Stage};
use crate::error::ApiError;
use crate::handlers::Reply;
use crate::handlers::wire::reply::ByteStream;

/// The text kube's panic recovery answers with (`http.Error`, a 500).
const PANICKED: &str = "This request caused apiserver to panic. Look in the logs for details.\n";

/// Runs `handler`; `Err` with the panic's message when it panicked.
pub async fn guarded(handler: impl std::future::Future<Output = Reply>) -> Result<Reply, String> {
    AssertUnwindSafe(handler)
        .catch_unwind()
        .await
        .map_err(|panic| panic_message(panic.as_ref()))
}

/// kube's answer to a handler's panic (a 500), the event recorded at the Panic stage.
pub async fn panicked(audit: &Context, message: &str) -> Reply {
    tracing::error!(panic = %message, "apiserver panic'd");
    audit.set_response_status(json!({
        "metadata": {},
        "status": "Failure",
        "message": format!("APIServer panic'd: {message}"),
        "reason": "InternalError",
        "code": 500,
    }));
    audit.process_stage(Stage::Panic).await;
    Reply::Text {
        code: http::StatusCode::INTERNAL_SERVER_ERROR,
        body: PANICKED.to_owned(),
    }
}

/// A panic's value as Go's `%v` would show a string panic.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(s), _) => (*s).to_owned(),
        (_, Some(s)) => s.clone(),
        _ => "unknown panic".to_owned(),
    }
}

/// The reply recorded into `audit`, then the stages that follow an answer: for a
/// long-running request (a watch) ResponseStarted now and ResponseComplete when its
/// stream ends; for any other, ResponseComplete now.
pub async fn complete(audit: Context, reply: Reply, long_running: bool) -> Reply {
    if !audit.enabled() {
        return reply;
    }
    let reply = record(&audit, reply).await;
    if long_running {
        audit.process_stage(Stage::ResponseStarted).await;
    }
    match reply {
        Reply::Stream {
            content_type,
            stream,
            warnings,
        } if long_running => Reply::Stream {
            content_type,
            stream: Box::pin(Completing {
                stream,
                audit: Some(audit),
            }),
            warnings,
        },
        reply => {
            audit.process_stage(Stage::ResponseComplete).await;
            reply
        }
    }
}

/// The reply's status (and object, at RequestResponse level) into the event, as kube's
/// response writers log what they write.
async fn record(audit: &Context, reply: Reply) -> Reply {
    match reply {
        Reply::Object {
            code,
            body,
            representation,
            warnings,
        } => {
            audit.log_response_object(&body);
            audit.set_response_code(code.as_u16());
            Reply::Object {
                code,
                body,
                representation,
                warnings,
            }
        }
        Reply::Error(ref e) | Reply::Failed { error: ref e, .. } => {
            audit.log_response_object(&e.to_status());
            audit.set_response_code(e.code());
            reply
        }
        Reply::Encoded {
            body,
            len,
            warnings,
        } if audit.level() == Level::RequestResponse => {
            let served = collect(body, len).await;
            audit.set_response_code(200);
            match served {
                Ok(bytes) => {
                    audit.log_response_bytes(&bytes);
                    Reply::Encoded {
                        body: Box::pin(futures::stream::once(async move { Ok(bytes) })),
                        len,
                        warnings,
                    }
                }
                Err(e) => Reply::Encoded {
                    body: Box::pin(futures::stream::once(async move { Err(e) })),
                    len,
                    warnings,
                },
            }
        }
        reply => {
            audit.set_response_code(reply.code());
            reply
        }
    }
}

/// An encoded answer's bytes, read whole (it is logged at RequestResponse level).
async fn collect(mut body: ByteStream, len: usize) -> Result<Bytes, std::io::Error> {
    let mut buf = bytes::BytesMut::with_capacity(len);
    while let Some(chunk) = body.next().await {
        buf.extend_from_slice(&chunk?);
    }
    Ok(buf.freeze())
}

/// A watch's stream; its ResponseComplete is processed when the stream is done or
/// dropped (the client went away).
struct Completing {
    stream: ByteStream,
    audit: Option<Context>,
}

impl Stream for Completing {
    type Item = Result<Bytes, std::io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        self.stream.as_mut().poll_next(cx)
    }
}

impl Drop for Completing {
    fn drop(&mut self) {
        let Some(audit) = self.audit.take() else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                audit.process_stage(Stage::ResponseComplete).await;
            });
        }
    }
}

/// The one event of a request refused before it is audited (kube's
/// `WithFailedAuthenticationAudit` for a 401, `withFailedRequestAudit` for a bad
/// `timeout`): at ResponseStarted, with the Status answered (kube's response writer logs
/// it over the message these filters set first), and at RequestResponse level that
/// Status as the response object.
pub async fn failed_early(audit: Context, error: &ApiError) {
    if !audit.enabled() {
        return;
    }
    audit.log_response_object(&error.to_status());
    audit.set_response_code(error.code());
    audit.process_stage(Stage::ResponseStarted).await;
}

#[cfg(test)]
#[path = "audited_tests.rs"]
mod tests;
