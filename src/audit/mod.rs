//! Auditing, as k8s.io/apiserver audits every request: the policy (which level and stages
//! a request is recorded at), the per-request context the chain, authorization, admission
//! and the handlers record into, the `audit.k8s.io/v1` events, and the backends (log file,
//! webhook) they are sent to.

pub mod auditor;
pub mod backend;
pub mod context;
pub mod event;
pub mod policy;
pub mod request;
#[cfg(test)]
pub mod testing;

pub use auditor::Auditor;
pub use context::Context;
pub use event::{Event, Level, Stage};
