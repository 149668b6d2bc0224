//! One entry of `spec.versions`: name, deprecation warning, schema presence, scale
//! subresource paths and printer columns (kube's `validateCustomResourceDefinitionVersion`).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinitionVersion, CustomResourceSubresources,
};

use super::{invalid, is_dns1035_label};
use crate::error::FieldError;

const PRINTER_COLUMN_TYPES: &str = "boolean,date,integer,number,string";
const PRINTER_COLUMN_FORMATS: &str = "byte,date,date-time,double,float,int32,int64,password";

/// `spec.versions[i]`: name, deprecation warning, schema, subresources, printer columns.
/// `hoisted`: every version has the same schema, which kube then checks once under
/// `spec.validation` (see [`check_shared_schema`]) instead of per version.
pub(super) fn check_version(
    index: usize,
    version: &CustomResourceDefinitionVersion,
    hoisted: bool,
) -> Vec<FieldError> {
    let path = format!("spec.versions[{index}]");
    let mut errors = Vec::new();
    let name_errors = is_dns1035_label(&version.name);
    if !name_errors.is_empty() {
        errors.push(invalid(
            &format!("{path}.name"),
            &version.name,
            &name_errors.join(","),
        ));
    }
    let deprecated = version.deprecated.unwrap_or(false);
    for message in deprecation_warning_errors(deprecated, version.deprecation_warning.as_deref()) {
        let value = version.deprecation_warning.as_deref().unwrap_or("");
        errors.push(invalid(
            &format!("{path}.deprecationWarning"),
            value,
            &message,
        ));
    }
    if !hoisted {
        errors.extend(check_schema(
            &format!("{path}.schema.openAPIV3Schema"),
            version,
        ));
    }
    if let Some(subresources) = &version.subresources {
        errors.extend(check_subresources(
            &format!("{path}.subresources"),
            subresources,
        ));
    }
    for (i, column) in version
        .additional_printer_columns
        .iter()
        .flatten()
        .enumerate()
    {
        let column_path = format!("{path}.additionalPrinterColumns[{i}]");
        errors.extend(check_column(&column_path, column));
    }
    errors
}

/// Whether every version carries the same schema. kube converts such a v1 definition to
/// its internal form with the schema hoisted to `spec.validation`, so its errors read
/// `spec.validation.openAPIV3Schema...` (as the seeds show).
pub(super) fn schemas_identical(versions: &[CustomResourceDefinitionVersion]) -> bool {
    fn schema(
        v: &CustomResourceDefinitionVersion,
    ) -> Option<&k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps>
    {
        v.schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref())
    }
    versions.first().and_then(schema).is_some()
        && versions.windows(2).all(|w| schema(&w[0]) == schema(&w[1]))
}

/// The hoisted schema of a definition whose versions all share it.
pub(super) fn check_shared_schema(version: &CustomResourceDefinitionVersion) -> Vec<FieldError> {
    check_schema("spec.validation.openAPIV3Schema", version)
}

/// The openAPIV3Schema at `schema_path`: present, and structural as kube requires.
fn check_schema(schema_path: &str, version: &CustomResourceDefinitionVersion) -> Vec<FieldError> {
    let Some(schema) = version
        .schema
        .as_ref()
        .and_then(|s| s.open_api_v3_schema.as_ref())
    else {
        return vec![FieldError::required(schema_path, "")];
    };
    let Ok(value) = serde_json::to_value(schema) else {
        return Vec::new();
    };
    let status_enabled = version
        .subresources
        .as_ref()
        .is_some_and(|s| s.status.is_some());
    let report = crate::schema::structural::analyze(&value, schema_path, status_enabled);
    let defaults = if report.validates_defaults {
        crate::schema::default_check::errors(&value, schema_path)
    } else {
        Vec::new()
    };
    let mut errors = report.with_default_errors(defaults);
    // kube compiles the rules only for a schema that is structural, with valid defaults.
    if errors.is_empty() {
        let env = crate::cel::env::stored();
        let compiled = crate::schema::Schema::parse(&value);
        errors = crate::schema::rules::definition::errors(&env, &compiled, schema_path);
    }
    errors
}

fn deprecation_warning_errors(deprecated: bool, warning: Option<&str>) -> Vec<String> {
    let Some(warning) = warning else {
        return Vec::new();
    };
    if !deprecated {
        return vec!["can only be set for deprecated versions".to_string()];
    }
    let mut errors = Vec::new();
    if warning.len() > 256 {
        errors.push("must be <= 256 characters long".to_string());
    }
    if warning.is_empty() {
        errors.push("must not be an empty string".to_string());
    }
    let printable = |c: char| c == ' ' || !(c.is_control() || c.is_whitespace());
    if let Some((at, _)) = warning.char_indices().find(|(_, c)| !printable(*c)) {
        errors.push(format!(
            "must only contain printable UTF-8 characters; non-printable character found at index {at}"
        ));
    }
    errors
}

fn check_subresources(path: &str, subresources: &CustomResourceSubresources) -> Vec<FieldError> {
    let Some(scale) = &subresources.scale else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    let scale_path = format!("{path}.scale");
    let paths = [
        ("specReplicasPath", scale.spec_replicas_path.as_str(), true),
        (
            "statusReplicasPath",
            scale.status_replicas_path.as_str(),
            true,
        ),
        (
            "labelSelectorPath",
            scale.label_selector_path.as_deref().unwrap_or(""),
            false,
        ),
    ];
    for (field, value, required) in paths {
        let field_path = format!("{scale_path}.{field}");
        if value.is_empty() {
            if required {
                errors.push(FieldError::required(&field_path, ""));
            }
            continue;
        }
        if let Some(error) = simple_json_path_error(&field_path, value) {
            errors.push(error);
            continue;
        }
        let (prefixes, detail): (&[&str], &str) = match field {
            "specReplicasPath" => (&[".spec."], "should be a json path under .spec"),
            "statusReplicasPath" => (&[".status."], "should be a json path under .status"),
            _ => (
                &[".spec.", ".status."],
                "should be a json path under either .spec or .status",
            ),
        };
        if !prefixes.iter().any(|p| value.starts_with(p)) {
            errors.push(invalid(&field_path, value, detail));
        }
    }
    errors
}

/// apimachinery's `validateSimpleJSONPath`: non-empty and starting with `.`.
fn simple_json_path_error(path: &str, value: &str) -> Option<FieldError> {
    if value.is_empty() {
        Some(invalid(path, value, "must not be empty"))
    } else if !value.starts_with('.') {
        Some(invalid(
            path,
            value,
            "must be a simple json path starting with .",
        ))
    } else {
        None
    }
}

fn check_column(path: &str, column: &CustomResourceColumnDefinition) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if column.name.is_empty() {
        errors.push(FieldError::required(&format!("{path}.name"), ""));
    }
    let types = format!("must be one of {PRINTER_COLUMN_TYPES}");
    if column.type_.is_empty() {
        errors.push(FieldError::required(&format!("{path}.type"), &types));
    } else if !PRINTER_COLUMN_TYPES.split(',').any(|t| t == column.type_) {
        errors.push(invalid(&format!("{path}.type"), &column.type_, &types));
    }
    if let Some(format) = column.format.as_deref().filter(|f| !f.is_empty())
        && !PRINTER_COLUMN_FORMATS.split(',').any(|f| f == format)
    {
        let detail = format!("must be one of {PRINTER_COLUMN_FORMATS}");
        errors.push(invalid(&format!("{path}.format"), format, &detail));
    }
    let json_path = format!("{path}.JSONPath");
    if column.json_path.is_empty() {
        errors.push(FieldError::required(&json_path, ""));
    } else if let Some(error) = simple_json_path_error(&json_path, &column.json_path) {
        errors.push(error);
    }
    errors
}
