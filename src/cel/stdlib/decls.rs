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

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    #[test]
    fn decls_overload_ids_unique_and_cel_go_counts() {
        let all = super::decls();
        let ids: HashSet<&str> = all.iter().map(|d| d.id).collect();
        assert_eq!(ids.len(), all.len());
        let count = |f: &str| all.iter().filter(|d| d.function == f).count();
        let cases = [
            ("_<_", 14),
            ("_>=_", 14),
            ("_+_", 9),
            ("size", 8),
            ("int", 6),
        ];
        for (function, want) in cases {
            assert_eq!(count(function), want, "{function}");
        }
        assert_eq!(
            count("_[_]"),
            4,
            "index_list, index_map and the optional ones"
        );
    }
}
