//! Server stage: TLS accept loop (client certificate captured per connection), the live
//! serving certificate, the HTTP entry point, start-up, dev mode and the shutdown sequence.

pub mod accept;
pub mod dev;
pub mod pki;
pub mod run;
pub mod serving;
pub mod shutdown;
pub mod tls;
