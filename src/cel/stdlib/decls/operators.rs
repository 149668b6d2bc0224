//! Logical, equality, arithmetic, index, membership and size operators.

use super::{A, B, list_of, map_of};
use crate::cel::functions::Decl;
use crate::cel::types::Type;

pub(super) fn decls() -> Vec<Decl> {
    let mut all = logical();
    all.extend(arithmetic());
    all.extend(collections());
    all
}

fn logical() -> Vec<Decl> {
    use Type::Bool;
    vec![
        Decl::global("conditional", "_?_:_", vec![Bool, A, A], A),
        Decl::global("logical_and", "_&&_", vec![Bool, Bool], Bool),
        Decl::global("logical_or", "_||_", vec![Bool, Bool], Bool),
        Decl::global("logical_not", "!_", vec![Bool], Bool),
        Decl::global(
            "not_strictly_false",
            "@not_strictly_false",
            vec![Bool],
            Bool,
        ),
        Decl::global("equals", "_==_", vec![A, A], Bool),
        Decl::global("not_equals", "_!=_", vec![A, A], Bool),
    ]
}

fn arithmetic() -> Vec<Decl> {
    use Type::{Bytes, Double, Duration, Int, String, Timestamp, Uint};
    vec![
        Decl::global("add_bytes", "_+_", vec![Bytes, Bytes], Bytes),
        Decl::global("add_double", "_+_", vec![Double, Double], Double),
        Decl::global(
            "add_duration_duration",
            "_+_",
            vec![Duration, Duration],
            Duration,
        ),
        Decl::global(
            "add_duration_timestamp",
            "_+_",
            vec![Duration, Timestamp],
            Timestamp,
        ),
        Decl::global(
            "add_timestamp_duration",
            "_+_",
            vec![Timestamp, Duration],
            Timestamp,
        ),
        Decl::global("add_int64", "_+_", vec![Int, Int], Int),
        Decl::global("add_list", "_+_", vec![list_of(A), list_of(A)], list_of(A)),
        Decl::global("add_string", "_+_", vec![String, String], String),
        Decl::global("add_uint64", "_+_", vec![Uint, Uint], Uint),
        Decl::global("divide_double", "_/_", vec![Double, Double], Double),
        Decl::global("divide_int64", "_/_", vec![Int, Int], Int),
        Decl::global("divide_uint64", "_/_", vec![Uint, Uint], Uint),
        Decl::global("modulo_int64", "_%_", vec![Int, Int], Int),
        Decl::global("modulo_uint64", "_%_", vec![Uint, Uint], Uint),
        Decl::global("multiply_double", "_*_", vec![Double, Double], Double),
        Decl::global("multiply_int64", "_*_", vec![Int, Int], Int),
        Decl::global("multiply_uint64", "_*_", vec![Uint, Uint], Uint),
        Decl::global("negate_double", "-_", vec![Double], Double),
        Decl::global("negate_int64", "-_", vec![Int], Int),
        Decl::global("subtract_double", "_-_", vec![Double, Double], Double),
        Decl::global(
            "subtract_duration_duration",
            "_-_",
            vec![Duration, Duration],
            Duration,
        ),
        Decl::global("subtract_int64", "_-_", vec![Int, Int], Int),
        Decl::global(
            "subtract_timestamp_duration",
            "_-_",
            vec![Timestamp, Duration],
            Timestamp,
        ),
        Decl::global(
            "subtract_timestamp_timestamp",
            "_-_",
            vec![Timestamp, Timestamp],
            Duration,
        ),
        Decl::global("subtract_uint64", "_-_", vec![Uint, Uint], Uint),
    ]
}

fn collections() -> Vec<Decl> {
    use Type::{Bool, Bytes, Int, String};
    vec![
        Decl::global("index_list", "_[_]", vec![list_of(A), Int], A),
        Decl::global("index_map", "_[_]", vec![map_of(A, B), A], B),
        Decl::global("in_list", "@in", vec![A, list_of(A)], Bool),
        Decl::global("in_map", "@in", vec![A, map_of(A, B)], Bool),
        Decl::global("size_bytes", "size", vec![Bytes], Int),
        Decl::member("bytes_size", "size", vec![Bytes], Int),
        Decl::global("size_list", "size", vec![list_of(A)], Int),
        Decl::member("list_size", "size", vec![list_of(A)], Int),
        Decl::global("size_map", "size", vec![map_of(A, B)], Int),
        Decl::member("map_size", "size", vec![map_of(A, B)], Int),
        Decl::global("size_string", "size", vec![String], Int),
        Decl::member("string_size", "size", vec![String], Int),
    ]
}
