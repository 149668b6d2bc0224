//! Splicing `metadata.resourceVersion` into stored JSON: when an object's served form is
//! its stored bytes plus its resourceVersion (the usual case: stored in the served version,
//! nothing to prune or default), the cache keeps no second copy, only where the
//! resourceVersion goes, and writes it in as the bytes go out.
//!
//! A splice point is a tag: 0 for bytes served as they are, else `offset * 2 + 1` when
//! `"resourceVersion":"N",` goes at `offset`, `offset * 2` when `,"resourceVersion":"N"`
//! does (the last key of metadata). Offsets are never 0 (an object starts with `{`).

use bytes::{Bytes, BytesMut};

const KEY: &[u8] = b"\"resourceVersion\":\"";

/// The tag that turns `bare` into `full`, where `full` is `bare` with
/// `"resourceVersion":"<rv>"` added; `None` when `full` is not that.
pub fn find(full: &[u8], bare: &[u8], rv: &str) -> Option<u32> {
    let needle = [KEY, rv.as_bytes(), b"\""].concat();
    let added = needle.len() + 1;
    if full.len() != bare.len() + added {
        return None;
    }
    let mut from = 0;
    while let Some(found) = find_from(full, &needle, from) {
        from = found + 1;
        let after = found + needle.len();
        let candidates = [
            (full.get(after) == Some(&b','), found, 1),
            (
                found > 0 && full.get(found - 1) == Some(&b','),
                found.saturating_sub(1),
                0,
            ),
        ];
        for (fits, offset, comma_after) in candidates {
            let rest = offset + added;
            if fits
                && offset > 0
                && full.get(..offset) == bare.get(..offset)
                && full.get(rest..) == bare.get(offset..)
            {
                return u32::try_from(offset * 2 + comma_after).ok();
            }
        }
    }
    None
}

fn find_from(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// The length of `bare` served with `rv` spliced in at `tag`.
pub fn len(bare: &[u8], tag: u32, rv: &str) -> usize {
    match tag {
        0 => bare.len(),
        _ => bare.len() + KEY.len() + rv.len() + 2,
    }
}

/// Writes `bare` with `rv` spliced in at `tag`.
pub fn write(out: &mut BytesMut, bare: &[u8], tag: u32, rv: &str) {
    match split(bare, tag) {
        Some((head, tail, comma_after)) => {
            out.extend_from_slice(head);
            write_member(out, rv, comma_after);
            out.extend_from_slice(tail);
        }
        None => out.extend_from_slice(bare),
    }
}

/// `bare` with `rv` spliced in at `tag`, as three pieces written one after the other:
/// the bytes before the splice point and after it (both `bare`'s own, not copied) around
/// the resourceVersion member; `bare` and two empty pieces when there is nothing to splice.
pub fn parts(bare: &Bytes, tag: u32, rv: &str) -> [Bytes; 3] {
    let Some((head, _, comma_after)) = split(bare, tag) else {
        return [bare.clone(), Bytes::new(), Bytes::new()];
    };
    let offset = head.len();
    let mut member = BytesMut::with_capacity(KEY.len() + rv.len() + 2);
    write_member(&mut member, rv, comma_after);
    [bare.slice(..offset), member.freeze(), bare.slice(offset..)]
}

/// The bytes before and after the splice point of `tag`, and whether the comma follows
/// the member; `None` for tag 0 (or a point past the end).
fn split(bare: &[u8], tag: u32) -> Option<(&[u8], &[u8], bool)> {
    let offset = usize::try_from(tag / 2).ok()?;
    let (head, tail) = bare.split_at_checked(offset).filter(|_| tag != 0)?;
    Some((head, tail, tag & 1 == 1))
}

/// `,"resourceVersion":"N"` or `"resourceVersion":"N",`.
fn write_member(out: &mut BytesMut, rv: &str, comma_after: bool) {
    if !comma_after {
        out.extend_from_slice(b",");
    }
    out.extend_from_slice(KEY);
    out.extend_from_slice(rv.as_bytes());
    out.extend_from_slice(b"\"");
    if comma_after {
        out.extend_from_slice(b",");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `write`'s output, checked against `len` and against `parts` joined.
    fn spliced(bare: &str, tag: u32, rv: &str) -> String {
        let mut out = BytesMut::new();
        write(&mut out, bare.as_bytes(), tag, rv);
        assert_eq!(out.len(), len(bare.as_bytes(), tag, rv));
        let pieces = parts(&Bytes::copy_from_slice(bare.as_bytes()), tag, rv);
        assert_eq!(pieces.concat(), out.to_vec(), "parts of {bare} at {tag}");
        String::from_utf8(out.to_vec()).unwrap()
    }

    #[test]
    fn find_then_write_round_trips() {
        let cases = [
            (
                "key in the middle",
                r#"{"a":1,"metadata":{"name":"x","uid":"u"}}"#,
                r#"{"a":1,"metadata":{"name":"x","resourceVersion":"42","uid":"u"}}"#,
            ),
            (
                "last key of metadata",
                r#"{"metadata":{"name":"x"},"spec":{}}"#,
                r#"{"metadata":{"name":"x","resourceVersion":"42"},"spec":{}}"#,
            ),
            (
                "a spec field of the same name and value comes first",
                r#"{"a":{"resourceVersion":"42","z":1},"metadata":{"name":"x"}}"#,
                r#"{"a":{"resourceVersion":"42","z":1},"metadata":{"name":"x","resourceVersion":"42"}}"#,
            ),
        ];
        for (name, bare, full) in cases {
            let tag = find(full.as_bytes(), bare.as_bytes(), "42");
            let tag = tag.unwrap_or_else(|| panic!("{name}: no splice point"));
            assert_eq!(spliced(bare, tag, "42"), full, "{name}");
            assert_eq!(
                spliced(bare, tag, "7"),
                full.replace(
                    r#"metadata":{"name":"x","resourceVersion":"42""#,
                    r#"metadata":{"name":"x","resourceVersion":"7""#
                ),
                "{name}: another revision"
            );
        }
    }

    #[test]
    fn find_other_differences_none() {
        let bare = r#"{"metadata":{"name":"x"},"spec":{}}"#;
        let defaulted = r#"{"metadata":{"name":"x","resourceVersion":"42"},"spec":{"d":1}}"#;
        assert_eq!(find(defaulted.as_bytes(), bare.as_bytes(), "42"), None);
        assert_eq!(find(bare.as_bytes(), bare.as_bytes(), "42"), None);
    }

    #[test]
    fn write_tag_zero_copies_as_is() {
        assert_eq!(spliced(r#"{"a":1}"#, 0, "42"), r#"{"a":1}"#);
    }
}
