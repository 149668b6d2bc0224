//! The write strategy, in kube's order: the body decoded into the served schema
//! ([`checks`]), a patch or replacement applied to the stored object ([`change`]), the
//! request's manager recorded in managedFields ([`managed`]), the admission chain and
//! the schema's validation, then the one write loop ([`guaranteed`]).

pub mod admit;
pub mod change;
pub mod checks;
pub mod guaranteed;
pub mod managed;
