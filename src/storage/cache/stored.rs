//! One cached resource's stored-version counts: recounted from every listed object when
//! the cache lists, changed by each put and delete it applies (the replaced or deleted
//! value is the one the cache indexed), and mirrored into `crd_apiserver_stored_objects`.

use std::sync::{Arc, Mutex, PoisonError};

use super::metrics::{StoredLabels, StoredObjects};
use crate::storage::versions::{Counts, VersionCounts, stored_version};

/// The counts and their series.
pub struct StoredCounts {
    /// `plural.group`, the series' resource label.
    resource: Arc<str>,
    group: Arc<str>,
    counts: Mutex<VersionCounts>,
    gauges: StoredObjects,
}

impl StoredCounts {
    pub fn new(resource: Arc<str>, group: Arc<str>, gauges: StoredObjects) -> StoredCounts {
        StoredCounts {
            resource,
            group,
            counts: Mutex::new(VersionCounts::default()),
            gauges,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VersionCounts> {
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn labels(&self, version: &str) -> StoredLabels {
        StoredLabels {
            resource: self.resource.clone(),
            version: version.into(),
        }
    }

    /// The series of `version` at `count` (none at zero).
    fn show(&self, version: &str, count: u64) {
        let labels = self.labels(version);
        match count {
            0 => {
                self.gauges.remove(&labels);
            }
            n => {
                self.gauges
                    .get_or_create(&labels)
                    .set(i64::try_from(n).unwrap_or(i64::MAX));
            }
        }
    }

    /// Counts the listed values afresh.
    pub fn reset<'a>(&self, values: impl IntoIterator<Item = &'a [u8]>) {
        let fresh = VersionCounts::of(values, &self.group);
        let mut counts = self.lock();
        for gone in counts.counts().keys() {
            if !fresh.counts().contains_key(gone) {
                self.show(gone, 0);
            }
        }
        for (version, count) in fresh.counts() {
            self.show(version, *count);
        }
        *counts = fresh;
    }

    /// One applied event: `old` the value it replaced or deleted, `new` the value it put.
    pub fn change(&self, old: Option<&[u8]>, new: Option<&[u8]>) {
        let old = old.map(|bytes| stored_version(bytes, &self.group));
        let new = new.map(|bytes| stored_version(bytes, &self.group));
        if old == new {
            return;
        }
        let mut counts = self.lock();
        if let Some(version) = old {
            let left = counts.remove(&version);
            self.show(&version, left);
        }
        if let Some(version) = new {
            let count = counts.add(version.clone());
            self.show(&version, count);
        }
    }

    /// Forgets the counts and removes their series (the resource is no longer cached).
    pub fn clear(&self) {
        let mut counts = self.lock();
        for version in counts.counts().keys() {
            self.show(version, 0);
        }
        *counts = VersionCounts::default();
    }

    /// The counts now.
    pub fn counts(&self) -> Counts {
        self.lock().counts().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gauge(family: &StoredObjects, version: &str) -> Option<i64> {
        let labels = StoredLabels {
            resource: "crontabs.g".into(),
            version: version.into(),
        };
        // `get` does not create the series it looks for.
        family.get(&labels).map(|g| g.get())
    }

    #[test]
    fn stored_counts_events_move_counts_and_series() {
        let family = StoredObjects::default();
        let stored = StoredCounts::new("crontabs.g".into(), "g".into(), family.clone());
        let (v1, v2): (&[u8], &[u8]) = (br#"{"apiVersion":"g/v1"}"#, br#"{"apiVersion":"g/v2"}"#);
        stored.reset([v1, v1, v2]);
        assert_eq!(
            (gauge(&family, "v1"), gauge(&family, "v2")),
            (Some(2), Some(1))
        );
        // An update that rewrites a v1 object at v2, a create, a delete, a same-version update.
        stored.change(Some(v1), Some(v2));
        stored.change(None, Some(v2));
        stored.change(Some(v2), None);
        stored.change(Some(v2), Some(v2));
        let want: Counts = [("v1".into(), 1), ("v2".into(), 2)].into();
        assert_eq!(stored.counts(), want);
        stored.change(Some(v1), None);
        assert_eq!(
            (gauge(&family, "v1"), gauge(&family, "v2")),
            (None, Some(2))
        );
        stored.reset([v1]);
        assert_eq!(
            (gauge(&family, "v1"), gauge(&family, "v2")),
            (Some(1), None)
        );
    }
}
