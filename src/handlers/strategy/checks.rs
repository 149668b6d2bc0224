//! Schema checks of custom objects, the strategy's part of a write, in kube's order:
//! decoding prunes and defaults (unknown and duplicate fields handled per
//! `fieldValidation`), then schema validation after the metadata rules, ratcheted
//! against the old object on update.

use serde_json::Value;

use crate::error::{ApiError, FieldError};
use crate::handlers::context::Target;
use crate::request::options::FieldValidation;
use crate::schema::{default, prune, rules, validate};

/// Decodes a request object into the served schema: prunes unknown fields and applies
/// defaults. Strict answers kube's 400 for unknown or duplicate fields; Warn returns
/// them as warnings.
pub fn coerce_body(
    ctx: &Target,
    object: &mut Value,
    mut problems: Vec<String>,
    directive: FieldValidation,
) -> Result<Vec<String>, ApiError> {
    let schema = &ctx.version().structural;
    problems.extend(unknown_fields(schema, object, directive));
    default::default(object, schema);
    strict_outcome(ctx, &ctx.version().name, problems, directive)
}

/// A body of this kind naming another version: kube's decoder prunes it with that
/// version's schema (everything but apiVersion, kind and metadata for a version the
/// resource does not serve) before the version mismatch is answered, so its unknown
/// fields come first, as Strict's 400 or Warn's warnings. Nothing for other bodies.
pub fn coerce_other_version(
    ctx: &Target,
    object: &Value,
    problems: Vec<String>,
    directive: FieldValidation,
) -> Result<Vec<String>, ApiError> {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let same_kind = object["kind"].as_str() == Some(ctx.resource.kind.as_str());
    if group != ctx.resource.group || !same_kind || version == &*ctx.version().name {
        return Ok(Vec::new());
    }
    let none = crate::schema::Schema::default();
    let schema = ctx
        .resource
        .version(version)
        .map_or(&none, |v| &v.structural);
    let mut problems = problems;
    problems.extend(unknown_fields(schema, &mut object.clone(), directive));
    strict_outcome(ctx, version, problems, directive)
}

/// Strict's 400 for any problem, Warn's warnings, or nothing.
fn strict_outcome(
    ctx: &Target,
    version: &str,
    problems: Vec<String>,
    directive: FieldValidation,
) -> Result<Vec<String>, ApiError> {
    match directive {
        FieldValidation::Strict if !problems.is_empty() => Err(ApiError::BadRequest(format!(
            "{kind} in version {version:?} cannot be handled as a {kind}: strict decoding error: {}",
            problems.join(", "),
            kind = ctx.resource.kind,
        ))),
        FieldValidation::Warn => Ok(strict_warnings(problems)),
        _ => Ok(Vec::new()),
    }
}

/// Strict-decoding problems as warnings: a YAML decoder's multi-line report becomes one
/// warning per line, as k8s.io/apiserver's parseYAMLWarnings splits it.
pub fn strict_warnings(problems: Vec<String>) -> Vec<String> {
    const YAML_PREFIX: &str = "yaml: unmarshal errors:\n";
    problems
        .into_iter()
        .flat_map(|p| match p.strip_prefix(YAML_PREFIX) {
            Some(lines) => lines.split('\n').map(|l| l.trim().to_string()).collect(),
            None => vec![p],
        })
        .collect()
}

/// The same for an object produced by a patch: kube decodes the patched document and
/// answers a 422 on the field `patch` under Strict (k8s.io/apiserver handlers/patch.go).
pub fn coerce_patched(
    object: &mut Value,
    ctx: &Target,
    mut problems: Vec<String>,
    directive: FieldValidation,
) -> Result<Vec<String>, ApiError> {
    // The patched document as kube prints it: encoded before pruning.
    let patched = matches!(directive, FieldValidation::Strict).then(|| object.to_string());
    problems.extend(unknown_fields(&ctx.version().structural, object, directive));
    default::default(object, &ctx.version().structural);
    match (directive, patched) {
        (FieldValidation::Strict, Some(document)) if !problems.is_empty() => {
            Err(ApiError::Invalid {
                group: String::new(),
                kind: String::new(),
                name: String::new(),
                causes: vec![FieldError::invalid(
                    "patch",
                    &Value::String(document),
                    &format!("strict decoding error: {}", problems.join(", ")),
                )],
            })
        }
        (FieldValidation::Warn, _) => Ok(strict_warnings(problems)),
        _ => Ok(Vec::new()),
    }
}

/// An applied object is only defaulted, as kube's field manager defaults it: the typed
/// merge has refused unknown fields, and nulls stay for validation to judge (no decoding
/// prunes them, unlike a create's or a patch's body).
pub fn default_applied(ctx: &Target, object: &mut Value) {
    default::default(object, &ctx.version().structural);
}

/// Prunes and reports what the schema does not know, as `unknown field "<path>"`
/// (nothing, and no path rendered, when the directive ignores them).
fn unknown_fields(
    schema: &crate::schema::Schema,
    object: &mut Value,
    directive: FieldValidation,
) -> Vec<String> {
    if matches!(directive, FieldValidation::Ignore) {
        prune::prune_silently(object, schema);
        return Vec::new();
    }
    prune::prune(object, schema)
        .into_iter()
        // kube's `unknown field "%s"`: the path is not escaped.
        .map(|path| format!("unknown field \"{path}\""))
        .collect()
}

/// A stored object as served: pruned and defaulted by the served version's schema
/// (defaults added since it was written show up without a write).
pub fn coerce_stored(ctx: &Target, object: &mut Value) {
    crate::crd::served::coerce(ctx.version(), object);
}

/// Everything kube's strategy reports for an object to store: the metadata rules'
/// `meta_errors` first, then the version's schema validation (ratcheted against `old`),
/// then its CEL rules unless an earlier error blocks them. Rule failures that
/// ratcheting forgives are added to `warnings`, and so are, once the object is valid,
/// the strategy's warnings about added finalizers.
pub fn validate(
    ctx: &Target,
    new: &Value,
    old: Option<&Value>,
    mut meta_errors: Vec<FieldError>,
    warnings: &mut Vec<String>,
) -> Vec<FieldError> {
    let version = ctx.version();
    meta_errors.extend(validate::object(
        &version.structural,
        new,
        old,
        version.scale.as_ref(),
    ));
    let errors = evaluate_rules(ctx, new, old, meta_errors, warnings);
    if errors.is_empty() {
        warnings.extend(crate::meta::validation::finalizer_warnings(new, old));
    }
    errors
}

/// An update through `/status`: the status is validated (ratcheted), then the scale
/// subresource's status replicas and selector, then the rules of the whole object.
pub fn validate_status(
    ctx: &Target,
    new: &Value,
    old: &Value,
    warnings: &mut Vec<String>,
) -> Vec<FieldError> {
    let version = ctx.version();
    let errors =
        validate::validate_status_update(&version.structural, new, old, version.scale.as_ref());
    evaluate_rules(ctx, new, Some(old), errors, warnings)
}

/// The CEL step of kube's strategy: skipped, with kube's cause, after blocking errors.
fn evaluate_rules(
    ctx: &Target,
    new: &Value,
    old: Option<&Value>,
    mut errors: Vec<FieldError>,
    warnings: &mut Vec<String>,
) -> Vec<FieldError> {
    let version = ctx.version();
    if version.rules.is_empty() {
        return errors;
    }
    if rules::blocked(&errors) {
        errors.push(rules::not_checked());
        return errors;
    }
    let findings = version.rules.validate(&version.structural, new, old);
    errors.extend(findings.errors);
    warnings.extend(findings.warnings);
    errors
}
