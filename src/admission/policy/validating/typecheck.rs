//! ValidatingAdmissionPolicy's type checking (k8s.io/apiserver `pkg/admission/plugin/
//! policy/validating/typechecking.go`, `TypeChecker.Check`): each validation's
//! `expression` and `messageExpression` checked against every kind the policy's
//! `matchConstraints` can match (at most ten, kube's `typesToCheck`), with `object` and
//! `oldObject` typed by that kind's schema and `params` by the paramKind's, the variables
//! checked first in order. A type error is a warning `<gvk>: <issues>` on the expression's
//! field. Only kinds with a schema here are checked ([`Schemas`]: our own resources,
//! [`schemas`]); what is done with the warnings is [`warnings`]'s.

pub mod schemas;
pub mod warnings;

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;
use std::sync::Arc;

use k8s_openapi::api::admissionregistration::v1::{
    NamedRuleWithOperations, ValidatingAdmissionPolicySpec,
};

use crate::admission::webhook::matching::Gvk;
use crate::cel::admission::composition::{Compiler, Declarations, Typed};
use crate::cel::decl::DeclType;

/// kube's `maxTypesToCheck`.
pub const MAX_TYPES_TO_CHECK: usize = 10;

/// Where kinds and their schemas come from (kube's `RESTMapper` and `SchemaResolver`).
pub trait Schemas {
    /// kube's `RESTMapper.KindsFor` of one group, version and resource.
    fn kinds_for(&self, group: &str, version: &str, resource: &str) -> Vec<Gvk>;
    /// The type of `gvk`'s objects (kube's `ResolveSchema` then `SchemaDeclType`, named
    /// by `MaybeAssignTypeName`); `None` when there is no schema for it.
    fn decl_type(&self, gvk: &Gvk) -> Option<Arc<DeclType>>;
}

/// kube's `ExpressionWarning`: the field of the expression and what was found there.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExpressionWarning {
    /// `spec.validations[0].expression`.
    pub field_ref: String,
    /// `<group>/<version>, Kind=<kind>: <issues>\n` per kind with issues, joined by `\n`.
    pub warning: String,
}

/// kube's `TypeChecker.Check`: the warnings of `spec`, in field order (none when it
/// matches no kind with a schema).
pub fn check(
    spec: &ValidatingAdmissionPolicySpec,
    schemas: &impl Schemas,
) -> Vec<ExpressionWarning> {
    let kinds: Vec<(Gvk, Arc<DeclType>)> = types_to_check(spec, schemas)
        .into_iter()
        .filter_map(|gvk| {
            let decl = schemas.decl_type(&gvk)?;
            Some((gvk, decl))
        })
        .collect();
    if kinds.is_empty() {
        return Vec::new();
    }
    let param_kind = params_gvk(spec);
    let params = param_kind.as_ref().and_then(|gvk| schemas.decl_type(gvk));
    let decls = Declarations {
        has_params: param_kind.is_some(),
        has_authorizer: true,
        has_patch_types: false,
    };
    let expressions = expressions(spec);
    // issues[e] holds `<gvk>: <issues>\n` of expression e for each kind that has them.
    let mut issues: Vec<Vec<String>> = vec![Vec::new(); expressions.len()];
    for (gvk, object) in &kinds {
        let typed = Typed {
            object: Some(object.clone()),
            params: params.clone(),
        };
        let mut compiler = Compiler::typed(typed);
        for v in spec.variables.iter().flatten() {
            compiler.check_variable(&v.name, &v.expression, decls);
        }
        for (i, (_, source)) in expressions.iter().enumerate() {
            if let Err(found) = compiler.check(source, decls) {
                issues[i].push(format!("{}: {found}\n", gvk_string(gvk)));
            }
        }
    }
    expressions
        .into_iter()
        .zip(issues)
        .filter(|(_, found)| !found.is_empty())
        .map(|((field_ref, _), found)| ExpressionWarning {
            field_ref,
            warning: found.join("\n"),
        })
        .collect()
}

/// Every validation's `expression` and non-empty `messageExpression` with its field.
fn expressions(spec: &ValidatingAdmissionPolicySpec) -> Vec<(String, &str)> {
    let mut all = Vec::new();
    for (i, v) in spec.validations.iter().flatten().enumerate() {
        let field = format!("spec.validations[{i}]");
        all.push((format!("{field}.expression"), v.expression.as_str()));
        if let Some(m) = v.message_expression.as_deref().filter(|m| !m.is_empty()) {
            all.push((format!("{field}.messageExpression"), m));
        }
    }
    all
}

/// Go's `schema.GroupVersionKind.String()`: `stable.example.com/v1, Kind=CronTab`.
pub fn gvk_string(gvk: &Gvk) -> String {
    format!("{}/{}, Kind={}", gvk.group, gvk.version, gvk.kind)
}

/// kube's `paramsGVK`: the paramKind's group, version and kind; `None` without a
/// paramKind or when its apiVersion does not parse (then `params` is not declared).
fn params_gvk(spec: &ValidatingAdmissionPolicySpec) -> Option<Gvk> {
    let kind = spec.param_kind.as_ref()?;
    let api_version = kind.api_version.as_deref().unwrap_or_default();
    let (group, version) = match api_version.split_once('/') {
        None => ("", api_version),
        Some((_, v)) if v.contains('/') => return None,
        Some((g, v)) => (g, v),
    };
    let gvk = Gvk {
        group: group.to_string(),
        version: version.to_string(),
        kind: kind.kind.clone().unwrap_or_default(),
    };
    let empty = gvk.group.is_empty() && gvk.version.is_empty() && gvk.kind.is_empty();
    (!empty).then_some(gvk)
}

/// kube's `typesToCheck`: the kinds of `matchConstraints.resourceRules` (rules with a
/// wildcard group or version skipped, wildcard and subresource names left out), each
/// rule's names sorted, at most [`MAX_TYPES_TO_CHECK`] found in one rule; sorted by
/// group, version and kind.
pub fn types_to_check(spec: &ValidatingAdmissionPolicySpec, schemas: &impl Schemas) -> Vec<Gvk> {
    let rules = spec
        .match_constraints
        .as_ref()
        .and_then(|m| m.resource_rules.as_deref())
        .unwrap_or_default();
    let mut found: BTreeSet<(String, String, String)> = BTreeSet::new();
    for rule in rules {
        if collect_rule(rule, schemas, &mut found) {
            break;
        }
    }
    found
        .into_iter()
        .map(|(group, version, kind)| Gvk {
            group,
            version,
            kind,
        })
        .collect()
}

/// Adds the kinds of one rule; whether the maximum was reached (kube returns then).
fn collect_rule(
    rule: &NamedRuleWithOperations,
    schemas: &impl Schemas,
    found: &mut BTreeSet<(String, String, String)>,
) -> bool {
    let (Some(groups), Some(versions)) = (
        without_wildcards(&rule.api_groups),
        without_wildcards(&rule.api_versions),
    ) else {
        return false;
    };
    let mut resources: Vec<&str> = rule
        .resources
        .iter()
        .flatten()
        .map(String::as_str)
        .filter(|r| !r.contains(['*', '/']))
        .collect();
    resources.sort_unstable();
    let mut count = 0;
    for group in &groups {
        for version in &versions {
            for resource in &resources {
                for gvk in schemas.kinds_for(group, version, resource) {
                    found.insert((gvk.group, gvk.version, gvk.kind));
                    count += 1;
                    if count == MAX_TYPES_TO_CHECK {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// kube's `extractGroups` / `extractVersions`, sorted: `None` when any has a wildcard
/// or there are none.
fn without_wildcards(names: &Option<Vec<String>>) -> Option<Vec<&str>> {
    let names = names.as_deref().unwrap_or_default();
    if names.is_empty() || names.iter().any(|n| n.contains('*')) {
        return None;
    }
    let mut names: Vec<&str> = names.iter().map(String::as_str).collect();
    names.sort_unstable();
    Some(names)
}
