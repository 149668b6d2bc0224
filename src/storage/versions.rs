//! Stored versions: the version each stored object was written at (kube's record of it is
//! the `apiVersion` in the stored bytes), read cheaply from those bytes and counted per
//! resource — the watch cache keeps the counts on every event; [`count`] reads them from
//! the store when there is no cache.

use std::collections::BTreeMap;

use super::{RangeRequest, Result, Store};

/// Objects per stored version (`v1` → 3), in version-name order.
pub type Counts = BTreeMap<String, u64>;

/// What our encoder writes first: the members are sorted, and `apiVersion` sorts before
/// every other member an object of ours has.
const LEADING: &[u8] = br#"{"apiVersion":""#;

/// The version `bytes` were stored at, relative to `group` (`stable.example.com/v1` →
/// `v1`); an apiVersion of another group stays whole, and bytes with none read as "".
pub fn stored_version(bytes: &[u8], group: &str) -> String {
    let api_version = api_version(bytes);
    match api_version
        .strip_prefix(group)
        .and_then(|rest| rest.strip_prefix('/'))
    {
        Some(version) => version.to_string(),
        None => api_version,
    }
}

/// The stored apiVersion ("" when there is none): a prefix check for the bytes our
/// encoder writes, else kube's serializer's reading of the top-level members.
pub fn api_version(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(LEADING)
        && let Some(end) = rest.iter().position(|b| *b == b'"')
        && !rest[..end].contains(&b'\\')
        && let Ok(text) = std::str::from_utf8(&rest[..end])
    {
        return text.to_string();
    }
    let top = crate::request::gojson::members(bytes);
    crate::request::gojson::sniff(top).unwrap_or_default()
}

/// Counts of one resource's stored versions, kept as objects come and go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VersionCounts {
    counts: Counts,
}

impl VersionCounts {
    /// The counts of `values`, all stored under one `group`.
    pub fn of<'a>(values: impl IntoIterator<Item = &'a [u8]>, group: &str) -> VersionCounts {
        let mut counts = VersionCounts::default();
        for value in values {
            counts.add(stored_version(value, group));
        }
        counts
    }

    /// One more object at `version`; its new count.
    pub fn add(&mut self, version: String) -> u64 {
        let count = self.counts.entry(version).or_default();
        *count += 1;
        *count
    }

    /// One object fewer at `version`; its new count (a version at zero is forgotten).
    pub fn remove(&mut self, version: &str) -> u64 {
        let Some(count) = self.counts.get_mut(version) else {
            return 0;
        };
        *count = count.saturating_sub(1);
        let left = *count;
        if left == 0 {
            self.counts.remove(version);
        }
        left
    }

    pub fn counts(&self) -> &Counts {
        &self.counts
    }
}

/// Keys read per call by [`count`].
const SCAN_PAGE: usize = 1000;

/// The stored versions under `prefix`, read from the store page by page at one revision
/// (no value is kept past its page).
pub async fn count(store: &dyn Store, prefix: &str, group: &str) -> Result<Counts> {
    let mut counts = VersionCounts::default();
    let mut req = RangeRequest {
        prefix: prefix.to_string(),
        limit: SCAN_PAGE,
        ..RangeRequest::default()
    };
    loop {
        let page = store.range(req.clone()).await?;
        req.revision = page.revision;
        for kv in &page.kvs {
            counts.add(stored_version(&kv.value, group));
        }
        match page.kvs.last() {
            Some(last) if page.more => req.start_key = Some(format!("{}\u{0}", last.key)),
            _ => return Ok(counts.counts),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_version_encoded_and_other_forms_read() {
        const G: &str = "stable.example.com";
        #[rustfmt::skip]
        let cases: [(&[u8], &str); 9] = [
            (br#"{"apiVersion":"stable.example.com/v1","kind":"CronTab"}"#, "v1"),
            (br#"{"apiVersion":"stable.example.com/v2beta1"}"#, "v2beta1"),
            (br#"{"kind":"CronTab","apiVersion":"stable.example.com/v3"}"#, "v3"),
            (br#"{ "apiVersion" : "stable.example.com/v4" }"#, "v4"),
            (br#"{"apiVersion":"stable.example.com\/v5"}"#, "v5"),
            (br#"{"apiVersion":"other.example.com/v1"}"#, "other.example.com/v1"),
            (br#"{"kind":"CronTab"}"#, ""),
            (br#"{"apiVersion":7}"#, ""),
            (b"not json", ""),
        ];
        for (bytes, want) in cases {
            let text = String::from_utf8_lossy(bytes);
            assert_eq!(stored_version(bytes, G), want, "{text}");
        }
    }

    #[test]
    fn version_counts_add_remove_forget_zero() {
        let mut counts = VersionCounts::of(
            [
                br#"{"apiVersion":"g/v1"}"#.as_slice(),
                br#"{"apiVersion":"g/v1"}"#,
                br#"{"apiVersion":"g/v2"}"#,
            ],
            "g",
        );
        let want: Counts = [("v1".into(), 2), ("v2".into(), 1)].into();
        assert_eq!(counts.counts(), &want);
        assert_eq!(counts.remove("v2"), 0);
        assert_eq!(counts.remove("v9"), 0);
        assert_eq!(counts.add("v3".into()), 1);
        assert_eq!(counts.remove("v1"), 1);
        let want: Counts = [("v1".into(), 1), ("v3".into(), 1)].into();
        assert_eq!(counts.counts(), &want);
    }
}
