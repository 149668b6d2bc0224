//! Server stage: TLS accept loop with connection and handshake slots, each connection's
//! HTTP serving (client certificate captured per connection), the live serving
//! certificate, the in-flight request limit, HEAD answers, start-up, dev mode and the
//! shutdown sequence.

pub mod accept;
pub mod connection;
pub mod dev;
pub mod head;
pub mod inflight;
pub mod pki;
pub mod run;
pub mod serving;
pub mod shutdown;
pub mod slots;
pub mod tls;
