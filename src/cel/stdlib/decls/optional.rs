//! The optional types library (cel-go `cel.OptionalTypes()` at its latest version, as
//! kube enables it): constructors, accessors, `or`/`orValue`, optional selection and
//! indexing, `first`/`last` and `optional.unwrap`/`unwrapOpt`.

use super::{list_of, map_of};
use crate::cel::functions::Decl;
use crate::cel::types::Type;

const K: Type = Type::Param("K");
const V: Type = Type::Param("V");

fn opt(t: Type) -> Type {
    Type::optional(t)
}

pub(super) fn decls() -> Vec<Decl> {
    use Type::{Bool, Dyn, Int, String};
    vec![
        Decl::global("optional_of", "optional.of", vec![V], opt(V)),
        Decl::global(
            "optional_ofNonZeroValue",
            "optional.ofNonZeroValue",
            vec![V],
            opt(V),
        ),
        Decl::global("optional_none", "optional.none", vec![], opt(V)),
        Decl::member("optional_value", "value", vec![opt(V)], V),
        Decl::member("optional_hasValue", "hasValue", vec![opt(V)], Bool),
        Decl::member("optional_or_optional", "or", vec![opt(V), opt(V)], opt(V)),
        Decl::member("optional_orValue_value", "orValue", vec![opt(V), V], V),
        Decl::global("select_optional_field", "_?._", vec![Dyn, String], opt(V)),
        Decl::global(
            "list_optindex_optional_int",
            "_[?_]",
            vec![list_of(V), Int],
            opt(V),
        ),
        Decl::global(
            "optional_list_optindex_optional_int",
            "_[?_]",
            vec![opt(list_of(V)), Int],
            opt(V),
        ),
        Decl::global(
            "map_optindex_optional_value",
            "_[?_]",
            vec![map_of(K, V), K],
            opt(V),
        ),
        Decl::global(
            "optional_map_optindex_optional_value",
            "_[?_]",
            vec![opt(map_of(K, V)), K],
            opt(V),
        ),
        Decl::global(
            "optional_list_index_int",
            "_[_]",
            vec![opt(list_of(V)), Int],
            opt(V),
        ),
        Decl::global(
            "optional_map_index_value",
            "_[_]",
            vec![opt(map_of(K, V)), K],
            opt(V),
        ),
        Decl::member("list_last", "last", vec![list_of(V)], opt(V)),
        Decl::member("list_first", "first", vec![list_of(V)], opt(V)),
        Decl::global(
            "optional_unwrap",
            "optional.unwrap",
            vec![list_of(opt(V))],
            list_of(V),
        ),
        Decl::member(
            "optional_unwrapOpt",
            "unwrapOpt",
            vec![list_of(opt(V))],
            list_of(V),
        ),
    ]
}
