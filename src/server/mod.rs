//! Server stage: TLS accept loop with connection and handshake slots, each connection's
//! HTTP serving (client certificate captured per connection) and what its streams are
//! doing (for eviction), each request's body and
//! hand-off to the handlers, the live serving certificate, the in-flight request limit,
//! HEAD answers, start-up (with its check of stored versions), dev mode and the shutdown
//! sequence.

pub mod accept;
pub mod admission_chain;
pub mod audited;
pub mod chain;
pub mod connection;
pub mod definitions;
pub mod dev;
pub mod exchange;
pub mod head;
pub mod observed;
pub mod offloading;
pub mod open_files;
pub mod pki;
pub mod registration;
pub mod run;
pub mod serving;
pub mod shutdown;
pub mod slots;
pub mod sni;
pub mod stored;
pub mod stores;
pub mod streams;
pub mod tls;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

static PROCESS_START: OnceLock<Instant> = OnceLock::new();

/// Notes the process's start, for the start-to-ready time in the logs.
pub fn mark_process_start() {
    PROCESS_START.get_or_init(Instant::now);
}

/// Time since [`mark_process_start`] (or since the first call, without it).
pub fn process_uptime() -> Duration {
    PROCESS_START.get_or_init(Instant::now).elapsed()
}
