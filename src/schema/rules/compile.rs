//! The validator tree of a version's rules, mirroring the schema as apiextensions'
//! `cel.NewValidator` builds it: each node's compiled rules, then validators for the
//! properties, items, additionalProperties and allOf branches that hold rules below.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::fieldpath;
use crate::cel::decl::{DeclType, escape};
use crate::cel::env::Env;
use crate::cel::program::{Output, Program};
use crate::error::ErrorType;
use crate::schema::{Additional, Schema};

/// One `x-kubernetes-validations` entry, compiled.
#[derive(Debug)]
pub struct CompiledRule {
    /// The rule as written, trimmed (kube's `ruleErrorString` without a message).
    pub rule: String,
    /// `message`, trimmed; empty when not set.
    pub message: String,
    /// The program, or kube's compile error detail.
    pub program: Result<Program, String>,
    pub message_expression: Option<Result<Program, String>>,
    /// The messageExpression source, for kube's texts that quote it.
    pub message_expression_source: String,
    pub reason: Option<ErrorType>,
    /// `fieldPath` normalized as kube prints it (`spec.x`, `[key]`), when valid.
    pub field_path: Option<String>,
    pub optional_old_self: bool,
}

impl CompiledRule {
    pub fn uses_old_self(&self) -> bool {
        self.program.as_ref().is_ok_and(|p| p.uses_old_self)
    }
}

/// The rules of one schema node and of the nodes below it.
#[derive(Debug)]
pub struct Validator {
    pub rules: Vec<CompiledRule>,
    /// Set when the node has rules but no CEL type (kube's "failed to convert to
    /// declType for CEL validation rules").
    pub compilation_error: Option<String>,
    /// The node's CEL declaration: `self` is read through it.
    pub decl: Option<Arc<DeclType>>,
    /// `type` as written, kube's value in `field.Invalid(path, sts.Type, ...)`.
    pub schema_type: &'static str,
    pub properties: BTreeMap<String, Validator>,
    pub items: Option<Box<Validator>>,
    pub additional: Option<Box<Validator>>,
    pub all_of: Vec<Validator>,
}

/// The validator of a version's root, `None` when no rule exists anywhere.
pub fn root(env: &Env, schema: &Schema) -> Option<Validator> {
    let decl = DeclType::from_schema(schema, true, "object");
    validator(env, schema, schema, decl)
}

fn validator(
    env: &Env,
    rules_schema: &Schema,
    node: &Schema,
    decl: Option<Arc<DeclType>>,
) -> Option<Validator> {
    let (rules, compilation_error) = compile_node(env, rules_schema, node, decl.as_ref());
    let properties = properties(env, rules_schema, node, decl.as_ref());
    let items = match (&rules_schema.items, &node.items) {
        (Some(r), Some(n)) => {
            let elem = decl.as_ref().and_then(|d| element_decl(d, n));
            validator(env, r, n, elem).map(Box::new)
        }
        _ => None,
    };
    let additional = match (
        &rules_schema.additional_properties,
        &node.additional_properties,
    ) {
        (Some(Additional::Schema(r)), Some(Additional::Schema(n))) => {
            let elem = decl.as_ref().and_then(|d| element_decl(d, n));
            validator(env, r, n, elem).map(Box::new)
        }
        _ => None,
    };
    let all_of: Vec<Validator> = rules_schema
        .all_of
        .iter()
        .filter_map(|branch| validator(env, branch, node, decl.clone()))
        .collect();
    let empty = rules.is_empty()
        && compilation_error.is_none()
        && properties.is_empty()
        && items.is_none()
        && additional.is_none()
        && all_of.is_empty();
    if empty {
        return None;
    }
    Some(Validator {
        rules,
        compilation_error,
        decl,
        schema_type: node.type_.as_str(),
        properties,
        items,
        additional,
        all_of,
    })
}

fn properties(
    env: &Env,
    rules_schema: &Schema,
    node: &Schema,
    decl: Option<&Arc<DeclType>>,
) -> BTreeMap<String, Validator> {
    let mut out = BTreeMap::new();
    for (name, rules_prop) in &rules_schema.properties {
        let Some(node_prop) = node.properties.get(name) else {
            continue;
        };
        // A field kube cannot type is left out of CEL validation entirely.
        let field_decl = match escape(name) {
            Some(cel_name) => match decl.and_then(|d| d.field(&cel_name)) {
                Some(field) => Some(Arc::clone(&field.decl)),
                None => continue,
            },
            None => DeclType::from_schema(node_prop, node_prop.embedded_resource, "object"),
        };
        if field_decl.is_none() {
            continue;
        }
        if let Some(v) = validator(env, rules_prop, node_prop, field_decl) {
            out.insert(name.clone(), v);
        }
    }
    out
}

/// The declaration of list items or map values, as kube's `DeclType.ElemType`.
fn element_decl(parent: &Arc<DeclType>, _schema: &Schema) -> Option<Arc<DeclType>> {
    use crate::cel::decl::DeclKind;
    match &parent.kind {
        DeclKind::List { elem, .. } => Some(Arc::clone(elem)),
        DeclKind::Map { value } => Some(Arc::clone(value)),
        _ => None,
    }
}

fn compile_node(
    env: &Env,
    rules_schema: &Schema,
    node: &Schema,
    decl: Option<&Arc<DeclType>>,
) -> (Vec<CompiledRule>, Option<String>) {
    if rules_schema.validations.is_empty() {
        return (Vec::new(), None);
    }
    let Some(decl) = decl else {
        let error = "failed to convert to declType for CEL validation rules".to_string();
        return (Vec::new(), Some(error));
    };
    let rules = rules_schema
        .validations
        .iter()
        .filter_map(|rule| compile_rule(env, rule, node, decl))
        .collect();
    (rules, None)
}

/// kube's `compileRule`; `None` for an empty rule (nothing to run).
fn compile_rule(
    env: &Env,
    rule: &Value,
    node: &Schema,
    decl: &Arc<DeclType>,
) -> Option<CompiledRule> {
    let text = |key: &str| rule.get(key).and_then(Value::as_str).unwrap_or_default();
    let source = text("rule");
    if source.trim().is_empty() {
        return None;
    }
    let optional_old_self = rule
        .get("optionalOldSelf")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let program = Program::compile(env, source, decl, optional_old_self, Output::Rule);
    // kube compiles the messageExpression only once the rule compiled.
    let message_expression = match (&program, text("messageExpression")) {
        (Ok(_), m) if !m.is_empty() => Some(Program::compile(
            env,
            m,
            decl,
            optional_old_self,
            Output::Message,
        )),
        _ => None,
    };
    let field_path = match text("fieldPath") {
        "" => None,
        path => fieldpath::normalize(path, node),
    };
    Some(CompiledRule {
        rule: source.trim().to_string(),
        message: text("message").trim().to_string(),
        program,
        message_expression,
        message_expression_source: text("messageExpression").to_string(),
        reason: match text("reason") {
            "" => None,
            reason => ErrorType::from_rule_reason(reason),
        },
        field_path,
        optional_old_self,
    })
}
