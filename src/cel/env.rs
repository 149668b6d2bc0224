//! The environment of stored CRD expressions (kube's `StoredExpressions` at 1.36): the
//! standard library and the libraries k8s.io/apiserver `pkg/cel/environment/base.go`
//! enables, assembled once.

use std::sync::{Arc, OnceLock};

use super::functions::Functions;

/// Everything a rule may call.
pub struct Env {
    pub functions: Functions,
    /// kube's `HasPatchTypes`: the mutation types `Object`, `Object.<path>` and
    /// `JSONPatch` can be constructed ([`super::mutation`]).
    pub patch_types: bool,
}

/// The shared environment, built on first use.
pub fn stored() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    Arc::clone(ENV.get_or_init(|| {
        let mut library = super::stdlib::library();
        library.extend(super::lib::library());
        Arc::new(Env {
            functions: Functions::new(library),
            patch_types: false,
        })
    }))
}

/// The stored environment with kube's `HasPatchTypes` options (the mutation types and
/// the `jsonpatch` library), as a mutation expression compiles in it.
pub fn with_patch_types() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    Arc::clone(ENV.get_or_init(|| {
        Arc::new(Env {
            functions: Functions::new(patch_types_library()),
            patch_types: true,
        })
    }))
}

/// The stored environment's library plus kube's `jsonpatch` library.
pub fn patch_types_library() -> super::functions::Library {
    let mut library = super::stdlib::library();
    library.extend(super::lib::library());
    library.extend(super::lib::jsonpatch::library());
    library
}
