//! The type conversion functions (`int`, `string`, `duration`, `type`, `dyn`, ...).

use super::A;
use crate::cel::functions::Decl;
use crate::cel::types::Type;

pub(super) fn decls() -> Vec<Decl> {
    use Type::{Bool, Bytes, Double, Duration, Dyn, Int, String, Timestamp, Uint};
    let conv = |id, function, from, to| Decl::global(id, function, vec![from], to);
    vec![
        conv("type", "type", A, Type::type_of(A)),
        conv("bool_to_bool", "bool", Bool, Bool),
        conv("string_to_bool", "bool", String, Bool),
        conv("bytes_to_bytes", "bytes", Bytes, Bytes),
        conv("string_to_bytes", "bytes", String, Bytes),
        conv("double_to_double", "double", Double, Double),
        conv("int64_to_double", "double", Int, Double),
        conv("string_to_double", "double", String, Double),
        conv("uint64_to_double", "double", Uint, Double),
        conv("duration_to_duration", "duration", Duration, Duration),
        conv("string_to_duration", "duration", String, Duration),
        conv("to_dyn", "dyn", A, Dyn),
        conv("int64_to_int64", "int", Int, Int),
        conv("double_to_int64", "int", Double, Int),
        conv("duration_to_int64", "int", Duration, Int),
        conv("string_to_int64", "int", String, Int),
        conv("timestamp_to_int64", "int", Timestamp, Int),
        conv("uint64_to_int64", "int", Uint, Int),
        conv("string_to_string", "string", String, String),
        conv("bool_to_string", "string", Bool, String),
        conv("bytes_to_string", "string", Bytes, String),
        conv("double_to_string", "string", Double, String),
        conv("duration_to_string", "string", Duration, String),
        conv("int64_to_string", "string", Int, String),
        conv("timestamp_to_string", "string", Timestamp, String),
        conv("uint64_to_string", "string", Uint, String),
        conv("timestamp_to_timestamp", "timestamp", Timestamp, Timestamp),
        conv("int64_to_timestamp", "timestamp", Int, Timestamp),
        conv("string_to_timestamp", "timestamp", String, Timestamp),
        conv("uint64_to_uint64", "uint", Uint, Uint),
        conv("double_to_uint64", "uint", Double, Uint),
        conv("int64_to_uint64", "uint", Int, Uint),
        conv("string_to_uint64", "uint", String, Uint),
    ]
}
