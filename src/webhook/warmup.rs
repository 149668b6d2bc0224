//! A cold pooled client makes its first connection alone. hyper-util's pool cannot know
//! that an endpoint speaks HTTP/2 before ALPN has said so, and dials once per concurrent
//! request until then: 64 writes arriving together would open 64 connections. Until a
//! connection is up, requests take turns; then they share the pool (HTTP/2 multiplexes
//! them on one connection; HTTP/1.1 endpoints get a connection per request in flight).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::client::legacy::connect::capture_connection;

use super::connect::{POOL_IDLE, Pooled};

/// Whether a client's pool is likely to hold a live connection.
pub struct Warmup {
    up: AtomicBool,
    first: tokio::sync::Mutex<()>,
    epoch: Instant,
    /// When the last request started, in milliseconds since `epoch`.
    last: AtomicU64,
}

impl Default for Warmup {
    fn default() -> Self {
        Warmup {
            up: AtomicBool::new(false),
            first: tokio::sync::Mutex::new(()),
            epoch: Instant::now(),
            last: AtomicU64::new(0),
        }
    }
}

type Answer = Result<http::Response<Incoming>, hyper_util::client::legacy::Error>;

impl Warmup {
    /// Sends `request` through `client`, alone while the pool is cold.
    pub async fn send(&self, client: &Pooled, mut request: http::Request<Full<Bytes>>) -> Answer {
        if self.warm() {
            return client.request(request).await;
        }
        let first = self.first.lock().await;
        if self.up.load(Ordering::Acquire) {
            drop(first);
            return client.request(request).await;
        }
        let mut captured = capture_connection(&mut request);
        let response = client.request(request);
        tokio::pin!(response);
        let connected = async { captured.wait_for_connection_metadata().await.is_some() };
        tokio::select! {
            answer = &mut response => {
                self.up.store(answer.is_ok(), Ordering::Release);
                return answer;
            }
            true = connected => self.up.store(true, Ordering::Release),
        }
        drop(first);
        response.await
    }

    /// Up, and a request started within the pool's idle timeout (so its connection is
    /// still pooled); a pool idle for longer is cold again.
    fn warm(&self) -> bool {
        let now = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        let last = self.last.swap(now, Ordering::AcqRel);
        let idle = Duration::from_millis(now.saturating_sub(last));
        if idle >= POOL_IDLE {
            self.up.store(false, Ordering::Release);
        }
        self.up.load(Ordering::Acquire)
    }
}
