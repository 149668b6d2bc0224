//! The machinery both policy plugins share (kube's `policy/generic`, `policy/matching`).
//!
//! - [`kind`]: what a policy kind provides ([`kind::PolicyKind`]); [`kinds`]: the two.
//! - [`hooks`]: a policy and its bindings compiled once ([`hooks::PolicyHooks`] snapshot).
//! - [`matching`]: `matchConstraints` and a binding's `matchResources` against a request.
//! - [`params`]: `paramKind` + `paramRef` into params (kube's `CollectParams`).
//! - [`source`]: the 4 kinds followed from the host cluster into the snapshot.
//! - [`dispatch`]: kube's `policyDispatcher.Dispatch` and its final 403.
//! - [`plugin`]: one plugin's state and what every request starts with.
//! - [`versioned`]: the request's objects in the versions policies matched it at.

pub mod conditions;
pub mod dispatch;
pub mod hooks;
pub mod kind;
pub mod kinds;
pub mod matching;
pub mod params;
pub mod plugin;
pub mod source;
#[cfg(test)]
pub mod testing;
pub mod versioned;
