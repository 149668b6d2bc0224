//! Signatures of the standard operators and functions (cel-go `common/stdlib/standard.go`)
//! and of the optional-types library (cel-go `cel/library.go`, which kube enables from
//! 1.28), in cel-go's declaration order and with its overload ids.

mod conversions;
mod operators;
mod optional;
mod relations;
mod strings_time;

use crate::cel::functions::Decl;
use crate::cel::types::Type;

pub(super) fn decls() -> Vec<Decl> {
    let mut all = operators::decls();
    all.extend(relations::decls());
    all.extend(conversions::decls());
    all.extend(strings_time::decls());
    all.extend(optional::decls());
    all
}

/// Type parameter `A` of the standard declarations.
const A: Type = Type::Param("A");
/// Type parameter `B` of the standard declarations.
const B: Type = Type::Param("B");

fn list_of(t: Type) -> Type {
    Type::list(t)
}

fn map_of(k: Type, v: Type) -> Type {
    Type::map(k, v)
}
