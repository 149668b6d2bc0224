//! Names claimed across definitions: each `metadata.name` once, and within a group the
//! resource names (plural, singular, short names) and the kinds (kind, listKind) that
//! kube's naming controller keeps apart through the `NamesAccepted` condition.

use std::collections::HashMap;

use super::{invalid, list_kind, singular};
use crate::crd::load::LoadedCrd;
use crate::error::{ErrorType, FieldError};

/// Which of kube's two per-group name spaces a name lives in.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Space {
    Resource,
    Kind,
}

/// One claimed name: field, value, naming-controller reason on conflict, name space.
type Claim = (String, String, &'static str, Space);

/// Every conflict, as (index of the later definition, problem); the first definition
/// to claim a name keeps it, as the first one created would in kube.
pub(super) fn conflicts(crds: &[LoadedCrd]) -> Vec<(usize, FieldError)> {
    let mut out = Vec::new();
    let mut by_name: HashMap<&str, &str> = HashMap::new();
    let mut owners: HashMap<(Space, &str, String), String> = HashMap::new();
    for (index, loaded) in crds.iter().enumerate() {
        let crd = &loaded.crd;
        let name = crd.metadata.name.as_deref().unwrap_or("");
        if !name.is_empty() {
            if let Some(first) = by_name.get(name) {
                out.push((index, duplicate("metadata.name", name, first)));
                continue;
            }
            by_name.insert(name, &loaded.source);
        }
        let owner = if name.is_empty() {
            loaded.source.as_str()
        } else {
            name
        };
        for (field, value, reason, space) in claims(loaded) {
            let key = (space, crd.spec.group.as_str(), value.clone());
            match owners.get(&key) {
                Some(other) if other != owner => {
                    let detail =
                        format!("already in use by {other} (NamesAccepted=False, reason {reason})");
                    out.push((index, invalid(&field, &value, &detail)));
                }
                Some(_) => {}
                None => {
                    owners.insert(key, owner.to_string());
                }
            }
        }
    }
    out
}

fn claims(loaded: &LoadedCrd) -> Vec<Claim> {
    let names = &loaded.crd.spec.names;
    let mut claims: Vec<Claim> = vec![
        (
            "spec.names.plural".into(),
            names.plural.clone(),
            "PluralConflict",
            Space::Resource,
        ),
        (
            "spec.names.singular".into(),
            singular(&loaded.crd),
            "SingularConflict",
            Space::Resource,
        ),
    ];
    for (i, short_name) in names.short_names.iter().flatten().enumerate() {
        claims.push((
            format!("spec.names.shortNames[{i}]"),
            short_name.clone(),
            "ShortNamesConflict",
            Space::Resource,
        ));
    }
    claims.push((
        "spec.names.kind".into(),
        names.kind.clone(),
        "KindConflict",
        Space::Kind,
    ));
    claims.push((
        "spec.names.listKind".into(),
        list_kind(&loaded.crd),
        "ListKindConflict",
        Space::Kind,
    ));
    claims.retain(|(_, value, _, _)| !value.is_empty());
    claims
}

/// `field: Duplicate value: "name": already defined in <source>`.
fn duplicate(field: &str, value: &str, first_source: &str) -> FieldError {
    FieldError {
        reason: ErrorType::Duplicate,
        field: field.to_string(),
        detail: format!("Duplicate value: {value:?}: already defined in {first_source}"),
    }
}
