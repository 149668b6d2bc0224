//! The served catalog: every resource, version and discovery fact derived from the
//! checked CRDs, computed once at load and shared read-only behind an `Arc`.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use super::priority::compare_versions;
use version::{compile_schema, open_api_schema, served_version, suggest_replacements};

#[cfg(test)]
mod tests;
mod version;
use crate::fieldmanager::manager::{
    CrdVersions, ResetFields, ResourcePathMappings, replicas_path_mappings, status_reset_fields,
};
use crate::table::{TableConvertor, TableError};

pub use crate::schema::scale::ScalePaths;

/// Why checked definitions could not be compiled into the catalog.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// A served version's printer columns do not compile.
    #[error("version {version}: {error}")]
    Columns { version: String, error: TableError },
    /// The definition's conversion could not be set up (the converter factory refused it).
    #[error("{crd}: spec.conversion: {message}")]
    Conversion { crd: String, message: String },
}

/// One served version of a resource.
pub struct ServedVersion {
    /// Shared: it is also the memo key of the version's served bytes, which the watch
    /// cache keeps for every object it serves.
    pub name: std::sync::Arc<str>,
    /// The Warning header text when the version is deprecated.
    pub deprecation_warning: Option<String>,
    pub status_subresource: bool,
    pub scale: Option<ScalePaths>,
    pub table: TableConvertor,
    /// The version's OpenAPI v3 schema as written in the CRD, if any.
    pub schema: Option<serde_json::Value>,
    /// The same schema compiled once: pruning, defaulting and validation walk it.
    pub structural: crate::schema::Schema,
    /// The schema's `x-kubernetes-validations`, compiled once.
    pub rules: crate::schema::rules::Rules,
    /// `selectableFields` as field selector names (`spec.color`).
    pub selectable_fields: Vec<String>,
    /// What writes to the main resource at this version may not own (`.status` with
    /// the status subresource), for the field manager.
    pub main_reset: ResetFields,
}

/// One custom resource (a CRD), with its served versions.
pub struct ServedResource {
    pub crd_name: String,
    pub group: String,
    pub plural: String,
    pub singular: String,
    pub kind: String,
    pub list_kind: String,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub namespaced: bool,
    pub storage_version: String,
    /// `group/storage_version`: the apiVersion of every stored object.
    pub storage_api_version: String,
    /// Served versions, highest priority first (kube's version ordering).
    pub versions: Vec<ServedVersion>,
    /// Every version of `spec.versions`, served or not, in the definition's order: the
    /// versions objects may be stored at and converted between (kube's converter takes
    /// exactly these; the storage version may be unserved).
    pub all_versions: Vec<String>,
    /// Where the storage version's compiled schema is; read it with
    /// [`ServedResource::storage_schema`].
    pub storage_schema: StorageSchema,
    /// The field manager's types per served `group/version`, built once.
    pub field_types: CrdVersions,
    /// What `/status` writes may not own, per version with the status subresource.
    pub status_reset: ResetFields,
    /// Per `group/version` of every version (served or not), the spec replicas path,
    /// `None` without the scale subresource: how `/scale` writes move managedFields.
    pub replicas_paths: ResourcePathMappings,
    /// The names as shared strings, for metric labels taken per request without copying.
    pub labels: LabelNames,
    /// How objects move between versions (`spec.conversion`).
    pub conversion: super::conversion::Conversion,
}

/// The storage version's compiled schema, which an object converted to the storage
/// version is pruned and defaulted with before it is stored (kube's
/// `schemaCoercingConverter` on encode).
pub enum StorageSchema {
    /// The storage version is served: its schema is that [`ServedVersion`]'s.
    Served,
    /// The storage version is not served (kube allows it): compiled here, as no
    /// [`ServedVersion`] holds it.
    Unserved(Box<crate::schema::Schema>),
}

/// A resource's group, plural and `plural.group`, shared.
#[derive(Clone, Debug)]
pub struct LabelNames {
    pub group: Arc<str>,
    pub plural: Arc<str>,
    pub resource: Arc<str>,
}

impl ServedResource {
    pub fn version(&self, name: &str) -> Option<&ServedVersion> {
        self.versions.iter().find(|v| *v.name == *name)
    }

    /// The storage version's compiled schema, whether or not that version is served.
    pub fn storage_schema(&self) -> &crate::schema::Schema {
        static NONE: std::sync::LazyLock<crate::schema::Schema> =
            std::sync::LazyLock::new(Default::default);
        match &self.storage_schema {
            StorageSchema::Unserved(schema) => schema,
            // Built from the same definition, so the served storage version is there.
            StorageSchema::Served => self
                .version(&self.storage_version)
                .map_or(&*NONE, |v| &v.structural),
        }
    }

    /// Whether `name` is one of the definition's versions, served or not.
    pub fn has_version(&self, name: &str) -> bool {
        self.all_versions.iter().any(|v| v == name)
    }

    /// `plural.group`, the name used in Status messages.
    pub fn group_resource(&self) -> crate::error::GroupResource {
        crate::error::GroupResource::new(&self.group, &self.plural)
    }
}

/// All served resources, indexed for routing and discovery.
#[derive(Default)]
pub struct Catalog {
    resources: Vec<Arc<ServedResource>>,
    /// group → version → plural: looked up with the request's `&str`s, no key is built.
    by_group_version_plural:
        BTreeMap<String, BTreeMap<String, BTreeMap<String, Arc<ServedResource>>>>,
    /// The OpenAPI v2 and v3 documents, serialized once.
    openapi: super::openapi::Documents,
}

/// A group as discovery lists it: versions highest priority first.
pub struct GroupVersions<'a> {
    pub group: &'a str,
    pub versions: Vec<&'a str>,
}

impl Catalog {
    /// Builds the catalog from CRDs that already passed `crd::check`, serving only
    /// `strategy: None` conversion.
    pub fn build(crds: &[CustomResourceDefinition]) -> Result<Catalog, CatalogError> {
        Catalog::build_with(crds, &super::conversion::NoConverters)
    }

    /// [`Catalog::build`] with each definition's converter made by `converters`.
    pub fn build_with(
        crds: &[CustomResourceDefinition],
        converters: &dyn super::conversion::ConverterFactory,
    ) -> Result<Catalog, CatalogError> {
        let mut catalog = Catalog::default();
        for crd in crds {
            let conversion =
                converters
                    .new_converter(crd)
                    .map_err(|message| CatalogError::Conversion {
                        crd: crd.metadata.name.clone().unwrap_or_default(),
                        message,
                    })?;
            let served = Arc::new(served_resource(crd, conversion)?);
            for v in &served.versions {
                catalog
                    .by_group_version_plural
                    .entry(served.group.clone())
                    .or_default()
                    .entry(v.name.to_string())
                    .or_default()
                    .insert(served.plural.clone(), served.clone());
            }
            catalog.resources.push(served);
        }
        catalog
            .resources
            .sort_by(|a, b| (&a.group, &a.plural).cmp(&(&b.group, &b.plural)));
        catalog.openapi = super::openapi::Documents::build(&catalog.resources);
        Ok(catalog)
    }

    /// The published OpenAPI documents (`/openapi/v2`, `/openapi/v3[/...]`).
    pub fn openapi(&self) -> &super::openapi::Documents {
        &self.openapi
    }

    pub fn resources(&self) -> &[Arc<ServedResource>] {
        &self.resources
    }

    /// The resource served at `/apis/<group>/<version>/<plural>`.
    pub fn lookup(&self, group: &str, version: &str, plural: &str) -> Option<&Arc<ServedResource>> {
        self.by_group_version_plural
            .get(group)?
            .get(version)?
            .get(plural)
    }

    /// Groups in name order, each with its served versions by priority.
    pub fn groups(&self) -> Vec<GroupVersions<'_>> {
        let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for r in &self.resources {
            let entry = groups.entry(r.group.as_str()).or_default();
            for v in &r.versions {
                if !entry.contains(&&*v.name) {
                    entry.push(&*v.name);
                }
            }
        }
        groups
            .into_iter()
            .map(|(group, mut versions)| {
                versions.sort_by(|a, b| compare_versions(a, b));
                GroupVersions { group, versions }
            })
            .collect()
    }

    /// Resources served in one group/version.
    pub fn in_group_version<'a>(
        &'a self,
        group: &'a str,
        version: &'a str,
    ) -> impl Iterator<Item = &'a Arc<ServedResource>> + 'a {
        self.resources
            .iter()
            .filter(move |r| r.group == group && r.version(version).is_some())
    }
}

fn served_resource(
    crd: &CustomResourceDefinition,
    conversion: super::conversion::Conversion,
) -> Result<ServedResource, CatalogError> {
    let spec = &crd.spec;
    let names = &spec.names;
    let mut versions = Vec::new();
    for v in spec.versions.iter().filter(|v| v.served) {
        versions.push(served_version(&spec.group, &names.kind, v)?);
    }
    versions.sort_by(|a, b| compare_versions(&a.name, &b.name));
    suggest_replacements(&mut versions, &spec.group, &names.kind, spec);
    let storage = spec.versions.iter().find(|v| v.storage);
    let storage_version = storage.map(|v| v.name.clone()).unwrap_or_default();
    let storage_schema = match storage {
        Some(v) if !v.served => StorageSchema::Unserved(Box::new(compile_schema(
            &spec.group,
            &names.kind,
            &v.name,
            open_api_schema(v).as_ref(),
        ))),
        _ => StorageSchema::Served,
    };
    let gv = |v: &ServedVersion| format!("{}/{}", spec.group, v.name);
    let field_types = CrdVersions::new(versions.iter().map(|v| {
        let ty = crate::schema::typed::resource_type(&v.structural);
        (gv(v), ty)
    }));
    let with_status: Vec<String> = versions
        .iter()
        .filter(|v| v.status_subresource)
        .map(gv)
        .collect();
    let status_reset = status_reset_fields(with_status.iter().map(String::as_str));
    let replicas_paths = replicas_path_mappings(spec.versions.iter().map(|v| {
        let scale = v.subresources.as_ref().and_then(|s| s.scale.as_ref());
        let path = scale.map(|s| s.spec_replicas_path.as_str());
        (format!("{}/{}", spec.group, v.name), path)
    }));
    Ok(ServedResource {
        field_types,
        status_reset,
        replicas_paths,
        crd_name: crd.metadata.name.clone().unwrap_or_default(),
        labels: LabelNames {
            group: spec.group.as_str().into(),
            plural: names.plural.as_str().into(),
            resource: format!("{}.{}", names.plural, spec.group).into(),
        },
        group: spec.group.clone(),
        plural: names.plural.clone(),
        singular: super::check::singular(crd),
        kind: names.kind.clone(),
        list_kind: super::check::list_kind(crd),
        short_names: names.short_names.clone().unwrap_or_default(),
        categories: names.categories.clone().unwrap_or_default(),
        namespaced: spec.scope == "Namespaced",
        storage_api_version: format!("{}/{storage_version}", spec.group),
        storage_version,
        storage_schema,
        versions,
        all_versions: spec.versions.iter().map(|v| v.name.clone()).collect(),
        conversion,
    })
}
