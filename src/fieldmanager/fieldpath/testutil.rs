//! Test helpers: paths written as space-separated tokens, each a `fieldsV1` key
//! (`f:a`, `k:{"name":"x"}`, `v:1`, `i:0`), a bare integer (index) or a bare word (field),
//! mirroring upstream's `MakePathOrDie("foo", 0, KeyByFields(...))`.

use super::{Path, PathElement, Set, deserialize_path_element};

pub(crate) fn pe(token: &str) -> PathElement {
    if let Ok(i) = token.parse::<i64>() {
        return PathElement::Index(i);
    }
    match token.as_bytes() {
        [b'f' | b'k' | b'v' | b'i', b':', ..] => {
            deserialize_path_element(token).unwrap_or_else(|e| panic!("{token}: {e}"))
        }
        _ => PathElement::field(token),
    }
}

/// A path from space-separated tokens; "" is the empty path.
pub(crate) fn p(text: &str) -> Path {
    Path(text.split(' ').filter(|s| !s.is_empty()).map(pe).collect())
}

/// A set of such paths (`NewSet(...)`).
pub(crate) fn set(paths: &[&str]) -> Set {
    let paths: Vec<Path> = paths.iter().map(|t| p(t)).collect();
    Set::from_paths(&paths)
}
