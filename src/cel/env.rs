//! The environment of stored CRD expressions (kube's `StoredExpressions` at 1.36): the
//! standard library and the libraries k8s.io/apiserver `pkg/cel/environment/base.go`
//! enables, assembled once.

use std::sync::{Arc, OnceLock};

use super::functions::Functions;

/// Everything a rule may call.
pub struct Env {
    pub functions: Functions,
}

/// The shared environment, built on first use.
pub fn stored() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    Arc::clone(ENV.get_or_init(|| {
        let mut library = super::stdlib::library();
        library.extend(super::lib::library());
        Arc::new(Env {
            functions: Functions::new(library),
        })
    }))
}
