//! OpenAPI publishing, built once at load: the `/openapi/v2` swagger document, one
//! `/openapi/v3/apis/<group>/<version>` document per served group/version, and the
//! `/openapi/v3` discovery document pointing at each by hash — as kube-apiserver publishes
//! CRDs (apiextensions-apiserver `controller/openapi{,v3}`, kube-openapi handlers).
//! Each document is kept serialized with its ETag, so serving is a copy.
//!
//! # Layout
//! - [`paths`] and [`params`]: the operations of a served version (one model for v2 and v3);
//! - [`published`]: the kind and list schemas (`ToKubeOpenAPI`, unfolding, metadata);
//! - [`v2_conversion`]: the lossy v2 compatibility conversions;
//! - [`v2`] and [`v3`]: the documents;
//! - [`meta_definitions`] and [`status_definitions`]: kube's ObjectMeta, Status, Scale, ....

mod meta_definitions;
mod params;
mod paths;
mod published;
mod status_definitions;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_documents;
mod v2;
mod v2_conversion;
mod v3;

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use serde_json::{Value, json};

use super::catalog::{ServedResource, ServedVersion};

/// A served resource version: what one CRD builder run covers.
type ServedPair<'a> = (&'a ServedResource, &'a ServedVersion);

/// A serialized document and its ETag: the uppercase hex SHA-512 of the bytes
/// (kube-openapi `computeETag`).
#[derive(Clone, Debug, Default)]
pub struct Document {
    bytes: Bytes,
    etag: String,
}

impl Document {
    fn new(value: &Value) -> Document {
        let bytes = Bytes::from(serde_json::to_vec(value).unwrap_or_default());
        let digest = ring::digest::digest(&ring::digest::SHA512, &bytes);
        let etag = digest.as_ref().iter().map(|b| format!("{b:02X}")).collect();
        Document { bytes, etag }
    }

    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The unquoted ETag (also the `hash` of v3 discovery URLs).
    pub fn etag(&self) -> &str {
        &self.etag
    }
}

/// Every OpenAPI document of the catalog.
#[derive(Clone, Debug)]
pub struct Documents {
    v2: Document,
    v3_root: Document,
    v3: BTreeMap<String, Document>,
    built_at: jiff::Timestamp,
}

impl Default for Documents {
    fn default() -> Self {
        Documents::build(&[])
    }
}

impl Documents {
    /// Builds every document for the served resources.
    pub fn build(resources: &[Arc<ServedResource>]) -> Documents {
        let mut by_group_version: BTreeMap<String, Vec<ServedPair<'_>>> = BTreeMap::new();
        let mut all = Vec::new();
        for r in resources {
            for v in &r.versions {
                let key = format!("apis/{}/{}", r.group, v.name);
                by_group_version.entry(key).or_default().push((r, v));
                all.push((r.as_ref(), v));
            }
        }
        let v3: BTreeMap<String, Document> = by_group_version
            .iter()
            .map(|(key, versions)| (key.clone(), Document::new(&v3::document(versions))))
            .collect();
        let git_version = concat!("v", env!("CARGO_PKG_VERSION"));
        Documents {
            v2: Document::new(&v2::document(&all, git_version)),
            v3_root: Document::new(&discovery(&v3)),
            v3,
            built_at: jiff::Timestamp::now(),
        }
    }

    /// `/openapi/v2`.
    pub fn v2(&self) -> &Document {
        &self.v2
    }

    /// `/openapi/v3`: `{"paths": {"apis/<g>/<v>": {"serverRelativeURL": ...}}}`.
    pub fn v3_root(&self) -> &Document {
        &self.v3_root
    }

    /// `/openapi/v3/<path>`, `path` being `apis/<group>/<version>`.
    pub fn v3(&self, path: &str) -> Option<&Document> {
        self.v3.get(path)
    }

    /// When the documents were built: their `Last-Modified`.
    pub fn built_at(&self) -> jiff::Timestamp {
        self.built_at
    }
}

/// kube-openapi `constructServerRelativeURL`: `/openapi/v3/<path>?hash=<etag>`.
pub fn server_relative_url(path: &str, etag: &str) -> String {
    format!("/openapi/v3/{path}?hash={etag}")
}

fn discovery(v3: &BTreeMap<String, Document>) -> Value {
    let paths: serde_json::Map<String, Value> = v3
        .iter()
        .map(|(path, doc)| {
            let url = server_relative_url(path, doc.etag());
            (path.clone(), json!({"serverRelativeURL": url}))
        })
        .collect();
    json!({"paths": paths})
}

/// The library definitions a CRD document includes: those its operations answer or
/// read (`Status`, `Patch`, `DeleteOptions`, `ObjectMeta` through the kind, autoscaling
/// `Scale` with a scale subresource) and everything they depend on.
fn library_closure(scale: bool) -> BTreeMap<String, Value> {
    let mut pending = vec![
        meta_definitions::OBJECT_META,
        meta_definitions::STATUS,
        meta_definitions::PATCH,
        meta_definitions::DELETE_OPTIONS,
    ];
    if scale {
        pending.push(meta_definitions::SCALE);
    }
    let mut out = BTreeMap::new();
    while let Some(name) = pending.pop() {
        if out.contains_key(name) {
            continue;
        }
        if let Some(def) = meta_definitions::lookup(name) {
            pending.extend(def.dependencies);
            out.insert(name.to_string(), def.schema);
        }
    }
    out
}
