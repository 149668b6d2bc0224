//! The CEL standard library: operator and function signatures (`decls`) and their
//! implementations (`impls`), keyed by cel-go's overload ids.

mod decls;
mod impls;

use super::functions::Library;

/// The standard definitions.
pub fn library() -> Library {
    Library {
        decls: decls::decls(),
        impls: impls::impls(),
    }
}
