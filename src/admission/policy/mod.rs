//! kube's admission policies (`admission/plugin/policy`): MutatingAdmissionPolicy and
//! ValidatingAdmissionPolicy, followed from the host cluster and evaluated with CEL.
//!
//! - [`generic`]: what both plugins share (kube's `policy/generic` and `policy/matching`):
//!   the followed policies and bindings, the snapshot compiled once per generation,
//!   matching, params and the dispatcher with its final 403.
//! - [`validating`]: a ValidatingAdmissionPolicy compiled into a validator, its decisions
//!   and the actions of its bindings (kube's `policy/validating`).

pub mod generic;
pub mod validating;
