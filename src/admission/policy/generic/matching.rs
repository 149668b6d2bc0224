//! Whether a policy or a binding applies to a request (kube's `policy/matching` behind
//! `PolicyMatcher.DefinitionMatches` / `BindingMatches`): the namespace and object
//! selectors (shared with the webhooks), `excludeResourceRules`, `resourceRules` with
//! their `resourceNames`, and `matchPolicy: Equivalent` over the resource's other served
//! versions. Pure: the request comes as the webhooks' [`MatchRequest`].

use k8s_openapi::api::admissionregistration::v1::{
    MatchResources, NamedRuleWithOperations, RuleWithOperations,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector as ApiSelector;

use crate::admission::webhook::matching::{
    Equivalent, Gvk, Gvr, MatchError, MatchRequest, match_namespace, match_object,
};
use crate::admission::webhook::rules::{Rule, Target};
use crate::selector::label::LabelSelector;

/// kube's `errNilSelector` for `namespace` / `object`.
fn nil_selector(which: &str) -> String {
    format!("a nil {which} selector was passed, please ensure selectors are initialized properly")
}

/// kube's text for a policy without `matchConstraints`.
pub const NO_CONSTRAINTS: &str = "policy contained no match constraints, a required field";

/// A rule with its `resourceNames` (empty: any name).
#[derive(Clone, Debug)]
pub struct NamedRule {
    pub rule: Rule,
    pub resource_names: Vec<String>,
}

impl NamedRule {
    fn compile(named: &NamedRuleWithOperations) -> NamedRule {
        let rule = Rule::compile(&RuleWithOperations {
            api_groups: named.api_groups.clone(),
            api_versions: named.api_versions.clone(),
            operations: named.operations.clone(),
            resources: named.resources.clone(),
            scope: named.scope.clone(),
        });
        NamedRule {
            rule,
            resource_names: named.resource_names.clone().unwrap_or_default(),
        }
    }

    fn names(&self, name: &str) -> bool {
        self.resource_names.is_empty() || self.resource_names.iter().any(|n| n == name)
    }
}

/// One compiled `MatchResources` (a policy's `matchConstraints` or a binding's
/// `matchResources`).
#[derive(Clone, Debug)]
pub struct Matcher {
    /// Compiled, or kube's conversion error text (reported only when the rules match).
    pub namespace_selector: Result<LabelSelector, String>,
    pub object_selector: Result<LabelSelector, String>,
    pub resource_rules: Vec<NamedRule>,
    pub exclude_resource_rules: Vec<NamedRule>,
    /// `matchPolicy: Equivalent` (the API's default when unset).
    pub equivalent: bool,
}

/// The resource and kind a policy matched the request as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matched {
    pub resource: Gvr,
    pub kind: Gvk,
}

/// A policy's `matchConstraints`: kube's immediate errors (no constraints, a nil
/// selector) as `Err`.
pub fn definition(constraints: Option<&MatchResources>) -> Result<Matcher, String> {
    Matcher::compile(constraints.ok_or_else(|| NO_CONSTRAINTS.to_string())?)
}

/// A binding's `matchResources`: `None` (unset) matches every request the policy does.
pub fn binding(resources: Option<&MatchResources>) -> Result<Option<Matcher>, String> {
    resources.map(Matcher::compile).transpose()
}

fn selector(
    given: Option<&ApiSelector>,
    which: &str,
) -> Result<Result<LabelSelector, String>, String> {
    let given = given.ok_or_else(|| nil_selector(which))?;
    Ok(LabelSelector::from_metav1(given))
}

impl Matcher {
    fn compile(resources: &MatchResources) -> Result<Matcher, String> {
        let rules = |r: &Option<Vec<NamedRuleWithOperations>>| {
            r.iter().flatten().map(NamedRule::compile).collect()
        };
        Ok(Matcher {
            namespace_selector: selector(resources.namespace_selector.as_ref(), "namespace")?,
            object_selector: selector(resources.object_selector.as_ref(), "object")?,
            resource_rules: rules(&resources.resource_rules),
            exclude_resource_rules: rules(&resources.exclude_resource_rules),
            equivalent: resources.match_policy.as_deref() != Some("Exact"),
        })
    }

    /// Whether a request must look its namespace's labels up for this matcher.
    pub fn uses_namespace_labels(&self) -> bool {
        self.namespace_selector
            .as_ref()
            .is_ok_and(|s| !s.is_empty())
    }

    /// kube's `Matcher.Matches` for the request named `name`: the resource and kind
    /// matched, `None` when it does not apply. Selector errors fail only a request the
    /// rules match.
    pub fn matches(
        &self,
        request: &MatchRequest<'_>,
        name: &str,
    ) -> Result<Option<Matched>, MatchError> {
        let namespace = match_namespace(&self.namespace_selector, request);
        if namespace == Ok(false) {
            return Ok(None);
        }
        let object = match_object(&self.object_selector, request);
        if object == Ok(false) {
            return Ok(None);
        }
        if self
            .rules_match(&self.exclude_resource_rules, request, name)?
            .is_some()
        {
            return Ok(None);
        }
        let matched = match self.resource_rules.is_empty() {
            true => Some(Matched {
                resource: request.resource.clone(),
                kind: request.kind.clone(),
            }),
            false => self.rules_match(&self.resource_rules, request, name)?,
        };
        let Some(matched) = matched else {
            return Ok(None);
        };
        namespace?;
        object?;
        Ok(Some(matched))
    }

    /// kube's `matchesResourceRules`: the request's own resource first, then (Equivalent)
    /// each rule over the other served versions.
    fn rules_match<'a>(
        &self,
        rules: &[NamedRule],
        request: &MatchRequest<'a>,
        name: &str,
    ) -> Result<Option<Matched>, MatchError> {
        let target = |resource: &'a Gvr| Target {
            operation: request.operation,
            group: &resource.group,
            version: &resource.version,
            resource: &resource.resource,
            subresource: request.subresource,
            namespace: request.namespace,
        };
        let own = target(request.resource);
        if rules.iter().any(|r| r.rule.matches(&own) && r.names(name)) {
            return Ok(Some(Matched {
                resource: request.resource.clone(),
                kind: request.kind.clone(),
            }));
        }
        if !self.equivalent {
            return Ok(None);
        }
        let equivalents: &'a [Equivalent] = request.equivalents;
        for rule in rules {
            for equivalent in equivalents
                .iter()
                .filter(|e| e.resource != *request.resource)
            {
                if !rule.rule.matches(&target(&equivalent.resource)) {
                    continue;
                }
                if equivalent.kind.kind.is_empty() {
                    let resource = &equivalent.resource;
                    return Err(MatchError::Internal(format!(
                        "unable to convert to {resource}: unknown kind"
                    )));
                }
                if rule.names(name) {
                    return Ok(Some(Matched {
                        resource: equivalent.resource.clone(),
                        kind: equivalent.kind.clone(),
                    }));
                }
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests;
