//! The ordering operators, with the cross-type numeric overloads kube enables
//! (`CrossTypeNumericComparisons`, from 1.28).

use crate::cel::functions::Decl;
use crate::cel::types::Type;

/// The overloads of one ordering operator, ids prefixed as cel-go names them.
macro_rules! relation {
    ($function:literal, $prefix:literal) => {{
        use Type::{Bool, Bytes, Double, Duration, Int, String, Timestamp, Uint};
        let rel = |id, lhs, rhs| Decl::global(id, $function, vec![lhs, rhs], Bool);
        vec![
            rel(concat!($prefix, "_bool"), Bool, Bool),
            rel(concat!($prefix, "_int64"), Int, Int),
            rel(concat!($prefix, "_int64_double"), Int, Double),
            rel(concat!($prefix, "_int64_uint64"), Int, Uint),
            rel(concat!($prefix, "_uint64"), Uint, Uint),
            rel(concat!($prefix, "_uint64_double"), Uint, Double),
            rel(concat!($prefix, "_uint64_int64"), Uint, Int),
            rel(concat!($prefix, "_double"), Double, Double),
            rel(concat!($prefix, "_double_int64"), Double, Int),
            rel(concat!($prefix, "_double_uint64"), Double, Uint),
            rel(concat!($prefix, "_string"), String, String),
            rel(concat!($prefix, "_bytes"), Bytes, Bytes),
            rel(concat!($prefix, "_timestamp"), Timestamp, Timestamp),
            rel(concat!($prefix, "_duration"), Duration, Duration),
        ]
    }};
}

pub(super) fn decls() -> Vec<Decl> {
    let mut all = relation!("_<_", "less");
    all.extend(relation!("_<=_", "less_equals"));
    all.extend(relation!("_>_", "greater"));
    all.extend(relation!("_>=_", "greater_equals"));
    all
}
