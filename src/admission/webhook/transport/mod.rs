//! The one pooled HTTPS client every admission webhook is called through.
//!
//! - [`endpoint`]: where a webhook is called (`clientConfig`).

pub mod endpoint;

pub use endpoint::Endpoint;
