//! The managedFields of `/scale` writes (apimachinery's `managedfields.ScaleHandler`): the
//! parent's entries that own its replicas path, seen as the Scale's `.spec.replicas`
//! (`to_subresource`), and the Scale's entries written back over the parent's
//! (`to_parent`).

use std::collections::BTreeMap;

use crate::fieldmanager::fieldpath::{Path, PathElement, Set, VersionedSet};
use crate::fieldmanager::managed::{
    Managed, ManagedFieldsEntry, decode_managed_fields, encode_managed_fields,
};
use crate::fieldmanager::typed::SCALE_API_VERSION;

/// Per `group/version` of the resource, the path of its spec replicas; `None` for a
/// version without the scale subresource (`ResourcePathMappings`).
pub type ResourcePathMappings = BTreeMap<String, Option<Path>>;

/// A `specReplicasPath` (`.spec.replicas`) as a field path.
pub fn replicas_path(spec_replicas_path: &str) -> Path {
    let trimmed = spec_replicas_path
        .strip_prefix('.')
        .unwrap_or(spec_replicas_path);
    Path::new(trimmed.split('.').map(PathElement::field).collect())
}

/// The mappings of a resource's versions: `(group/version, specReplicasPath if the
/// version has the scale subresource)`.
pub fn replicas_path_mappings<'a>(
    versions: impl IntoIterator<Item = (String, Option<&'a str>)>,
) -> ResourcePathMappings {
    versions
        .into_iter()
        .map(|(gv, path)| (gv, path.map(replicas_path)))
        .collect()
}

/// `.spec.replicas` of the Scale.
fn replicas_in_scale() -> Set {
    Set::from_paths([&replicas_path("spec.replicas")])
}

/// One `/scale` write's view of the parent's managedFields.
pub struct ScaleHandler<'a> {
    parent: &'a [ManagedFieldsEntry],
    /// The parent's `group/version` the request is served at.
    group_version: &'a str,
    mappings: &'a ResourcePathMappings,
}

impl<'a> ScaleHandler<'a> {
    pub fn new(
        parent: &'a [ManagedFieldsEntry],
        group_version: &'a str,
        mappings: &'a ResourcePathMappings,
    ) -> ScaleHandler<'a> {
        ScaleHandler {
            parent,
            group_version,
            mappings,
        }
    }

    /// `ToSubresource`: the managers owning their version's replicas path, each owning
    /// the Scale's `.spec.replicas` at `autoscaling/v1` (same operation, time, subresource).
    pub fn to_subresource(&self) -> Result<Vec<ManagedFieldsEntry>, String> {
        let managed = decode_managed_fields(self.parent)?;
        let mut out = Managed::default();
        for (manager, versioned) in managed.fields.iter() {
            let Some(Some(path)) = self.mappings.get(&versioned.api_version) else {
                continue;
            };
            if versioned.set.has(path.elements()) {
                let set =
                    VersionedSet::new(replicas_in_scale(), SCALE_API_VERSION, versioned.applied);
                out.fields.insert(manager.clone(), set);
                out.times
                    .insert(manager.clone(), time_of(&managed, manager));
            }
        }
        Ok(encode_managed_fields(&out))
    }

    /// `ToParent`: the parent's entries (those at unknown versions dropped) where the
    /// replicas path moves to the Scale's managers: a parent manager the Scale no longer
    /// lists loses it; every Scale manager owning `.spec.replicas` owns the path at the
    /// request's version, with the parent's time for that manager (none when new).
    pub fn to_parent(
        &self,
        scale_entries: &[ManagedFieldsEntry],
    ) -> Result<Vec<ManagedFieldsEntry>, String> {
        let parent = decode_managed_fields(self.parent)?;
        let mut scale = decode_managed_fields(scale_entries)?.fields;
        let mut out = Managed::default();
        for (manager, versioned) in parent.fields.iter() {
            let Some(path) = self.mappings.get(&versioned.api_version) else {
                continue;
            };
            let kept = match path {
                Some(path) if versioned.set.has(path.elements()) => {
                    if scale.remove(manager).is_some() {
                        Some(versioned.clone())
                    } else {
                        steal(versioned, path)
                    }
                }
                _ => Some(versioned.clone()),
            };
            if let Some(kept) = kept {
                out.fields.insert(manager.clone(), kept);
                out.times.insert(manager.clone(), time_of(&parent, manager));
            }
        }
        let parent_path = self.mappings.get(self.group_version).cloned().flatten();
        for (manager, versioned) in scale.iter() {
            if !versioned.set.has(replicas_path("spec.replicas").elements()) {
                continue;
            }
            let set = Set::from_paths(parent_path.as_ref());
            let moved = VersionedSet::new(set, self.group_version, versioned.applied);
            out.fields.insert(manager.clone(), moved);
            out.times.insert(manager.clone(), time_of(&parent, manager));
        }
        Ok(encode_managed_fields(&out))
    }
}

/// The parent's set without the replicas path; `None` when nothing is left.
fn steal(versioned: &VersionedSet, path: &Path) -> Option<VersionedSet> {
    let rest = versioned.set.difference(&Set::from_paths([path]));
    (!rest.is_empty())
        .then(|| VersionedSet::new(rest, versioned.api_version.clone(), versioned.applied))
}

fn time_of(managed: &Managed, manager: &str) -> Option<jiff::Timestamp> {
    managed.times.get(manager).copied().flatten()
}

#[cfg(test)]
mod tests;
