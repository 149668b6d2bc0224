//! One version of a definition compiled for serving: its schema, printer columns,
//! subresources and deprecation warning.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionVersion;

use super::{CatalogError, ScalePaths, ServedVersion};
use crate::fieldmanager::manager::main_reset_fields;
use crate::table::{PrinterColumn, TableConvertor};

pub(super) fn served_version(
    group: &str,
    kind: &str,
    v: &CustomResourceDefinitionVersion,
) -> Result<ServedVersion, CatalogError> {
    let schema = open_api_schema(v);
    let columns: Vec<PrinterColumn> = v
        .additional_printer_columns
        .iter()
        .flatten()
        .map(|c| PrinterColumn {
            name: c.name.clone(),
            type_: c.type_.clone(),
            format: c.format.clone().unwrap_or_default(),
            description: c.description.clone().unwrap_or_default(),
            priority: c.priority.unwrap_or(0),
            json_path: c.json_path.clone(),
        })
        .collect();
    let table = TableConvertor::new(&columns).map_err(|error| CatalogError::Columns {
        version: v.name.clone(),
        error,
    })?;
    let subresources = v.subresources.as_ref();
    // kube's default deprecation warning: "<group>/<version> <Kind> is deprecated"
    // (a "; use ..." suggestion is added by `suggest_replacements`).
    let deprecation_warning = v.deprecated.unwrap_or(false).then(|| {
        v.deprecation_warning
            .clone()
            .unwrap_or_else(|| format!("{group}/{} {kind} is deprecated", v.name))
    });
    let structural = compile_schema(group, kind, &v.name, schema.as_ref());
    let status_subresource = subresources.is_some_and(|s| s.status.is_some());
    Ok(ServedVersion {
        main_reset: main_reset_fields(&format!("{group}/{}", v.name), status_subresource),
        name: v.name.as_str().into(),
        deprecation_warning,
        status_subresource,
        scale: subresources
            .and_then(|s| s.scale.as_ref())
            .map(|s| ScalePaths {
                spec_replicas: s.spec_replicas_path.clone(),
                status_replicas: s.status_replicas_path.clone(),
                label_selector: s.label_selector_path.clone(),
            }),
        table,
        selectable_fields: v
            .selectable_fields
            .iter()
            .flatten()
            .map(|f| f.json_path.trim_start_matches('.').to_string())
            .collect(),
        rules: crate::schema::rules::Rules::compile(&structural),
        structural,
        schema,
    })
}

/// The version's OpenAPI v3 schema as written in the definition, if any.
pub(super) fn open_api_schema(v: &CustomResourceDefinitionVersion) -> Option<serde_json::Value> {
    v.schema
        .as_ref()
        .and_then(|s| s.open_api_v3_schema.as_ref())
        .and_then(|s| serde_json::to_value(s).ok())
}

/// The version's compiled schema; unrecognized formats (kube warns about them at
/// definition create) and patterns the regex crate cannot run are logged.
pub(super) fn compile_schema(
    group: &str,
    kind: &str,
    version: &str,
    schema: Option<&serde_json::Value>,
) -> crate::schema::Schema {
    let compiled = schema.map(crate::schema::Schema::parse).unwrap_or_default();
    for format in compiled.unrecognized_formats() {
        tracing::warn!(
            group,
            kind,
            version,
            format,
            "unrecognized format: not checked, as in kube"
        );
    }
    for pattern in compiled.unenforced_patterns() {
        tracing::warn!(
            group,
            kind,
            version,
            pattern,
            "pattern is not enforced: the regex engine cannot compile it"
        );
    }
    compiled
}

/// For deprecated versions with the default warning, names the highest-priority served,
/// non-deprecated version that sorts before them, as kube does: `...; use <g>/<v> <Kind>`.
pub(super) fn suggest_replacements(
    versions: &mut [ServedVersion],
    group: &str,
    kind: &str,
    spec: &k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionSpec,
) {
    let deprecated = |name: &str| {
        spec.versions
            .iter()
            .any(|v| v.name == name && v.deprecated.unwrap_or(false))
    };
    let explicit = |name: &str| {
        spec.versions
            .iter()
            .any(|v| v.name == name && v.deprecation_warning.is_some())
    };
    for i in 0..versions.len() {
        if versions[i].deprecation_warning.is_none() || explicit(&versions[i].name) {
            continue;
        }
        let better = versions[..i]
            .iter()
            .find(|v| !deprecated(&v.name))
            .map(|v| v.name.clone());
        if let (Some(better), Some(text)) = (better, versions[i].deprecation_warning.as_mut()) {
            text.push_str(&format!("; use {group}/{better} {kind}"));
        }
    }
}
