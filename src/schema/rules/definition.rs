//! Load-time verdicts on a schema's rules, as kube gives them when the definition is
//! created (apiextensions `ValidateCustomResourceDefinitionOpenAPISchema` with its CEL
//! context): compile errors, static cost per rule (× the node's cardinality) and for the
//! whole schema, `oldSelf` under uncorrelatable lists, `optionalOldSelf` without `oldSelf`.

use std::sync::Arc;

use serde_json::Value;

use crate::cel::cost::CostEstimate;
use crate::cel::cost::budget::{
    STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT, TotalCost, child_cardinality,
    cost_error_message, max_cardinality, multiply_with_overflow_guard,
};
use crate::cel::decl::{DeclKind, DeclType, escape};
use crate::cel::env::Env;
use crate::cel::program::{Output, Program};
use crate::error::FieldError;
use crate::gofmt::json_string;
use crate::schema::{Additional, ListType, Schema};

/// Every problem kube reports for the rules of the schema at `path`
/// (`spec.versions[0].schema.openAPIV3Schema`), in its order.
pub fn errors(env: &Env, schema: &Schema, path: &str) -> Vec<FieldError> {
    let mut walk = Walk {
        env,
        errors: Vec::new(),
        total: TotalCost::default(),
    };
    let decl = DeclType::from_schema(schema, true, "object");
    let root = Node {
        decl,
        cardinality: Some(1),
        forbid_old_self: None,
    };
    walk.node(schema, path, &root);
    if walk.total.exceeds_limit() {
        for (rule_path, _) in &walk.total.most_expensive {
            walk.errors.push(FieldError::forbidden(
                rule_path,
                "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
            ));
        }
        let text = cost_error_message(
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
            walk.total.total,
            STATIC_ESTIMATED_CRD_COST_LIMIT,
        );
        walk.errors.push(FieldError::forbidden(path, &text));
    }
    walk.errors
}

/// The CEL context of a node: its declaration, how many times its rules may run per
/// object (`None`: unbounded) and the first uncorrelatable ancestor.
struct Node {
    decl: Option<Arc<DeclType>>,
    cardinality: Option<u64>,
    forbid_old_self: Option<String>,
}

struct Walk<'e> {
    env: &'e Env,
    errors: Vec<FieldError>,
    total: TotalCost<String>,
}

impl Walk<'_> {
    fn node(&mut self, s: &Schema, path: &str, ctx: &Node) {
        let child_cardinality = child_cardinality(ctx.cardinality, s);
        if let Some(Additional::Schema(values)) = &s.additional_properties {
            let child = Node {
                decl: ctx.decl.as_ref().and_then(element),
                cardinality: child_cardinality,
                forbid_old_self: ctx.forbid_old_self.clone(),
            };
            self.node(values, &format!("{path}.additionalProperties"), &child);
        }
        for (name, property) in &s.properties {
            // A property whose name is no CEL identifier is typed from its own schema
            // (kube's ChildPropertyContext falls back to converting it).
            let decl = match (&ctx.decl, escape(name)) {
                (Some(d), Some(cel_name)) => d.field(&cel_name).map(|f| Arc::clone(&f.decl)),
                _ => DeclType::from_schema(property, property.embedded_resource, "object"),
            };
            let child = Node {
                decl,
                cardinality: child_cardinality,
                forbid_old_self: ctx.forbid_old_self.clone(),
            };
            self.node(property, &format!("{path}.properties[{name}]"), &child);
        }
        if let Some(items) = s.items.as_deref() {
            let forbid = ctx
                .forbid_old_self
                .clone()
                .or_else(|| (s.list_type != Some(ListType::Map)).then(|| path.to_string()));
            let child = Node {
                decl: ctx.decl.as_ref().and_then(element),
                cardinality: child_cardinality,
                forbid_old_self: forbid,
            };
            self.node(items, &format!("{path}.items"), &child);
        }
        self.rules(s, path, ctx);
    }

    fn rules(&mut self, s: &Schema, path: &str, ctx: &Node) {
        if s.validations.is_empty() {
            return;
        }
        let Some(decl) = &ctx.decl else {
            let text =
                "internal error: failed to retrieve type information for x-kubernetes-validations";
            self.errors.push(FieldError {
                reason: crate::error::ErrorType::Internal,
                field: format!("{path}.x-kubernetes-validations"),
                detail: format!("Internal error: {text}"),
            });
            return;
        };
        // Rules run at most once per element of every list and map above them.
        let cardinality = ctx
            .cardinality
            .unwrap_or_else(|| max_cardinality(decl.min_serialized_size));
        for (i, rule) in s.validations.iter().enumerate() {
            let rule_path = format!("{path}.x-kubernetes-validations[{i}]");
            self.rule(rule, &rule_path, decl, cardinality, ctx);
        }
    }

    fn rule(
        &mut self,
        rule: &Value,
        path: &str,
        decl: &Arc<DeclType>,
        cardinality: u64,
        ctx: &Node,
    ) {
        let text = |key: &str| rule.get(key).and_then(Value::as_str).unwrap_or_default();
        let source = text("rule");
        if source.trim().is_empty() {
            return;
        }
        // Any value set counts for kube (a pointer), `false` included.
        let optional_old_self = rule.get("optionalOldSelf").and_then(Value::as_bool);
        let program = Program::compile(
            self.env,
            source,
            decl,
            optional_old_self == Some(true),
            Output::Rule,
        );
        let rule_path = format!("{path}.rule");
        let max = program.as_ref().map_or(0, |p| p.cost.max);
        let cost = multiply_with_overflow_guard(max, cardinality);
        if cost > STATIC_ESTIMATED_COST_LIMIT {
            let text = cost_error_message("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT);
            self.errors.push(FieldError::forbidden(&rule_path, &text));
        }
        self.observe(&rule_path, cost);
        let program = match program {
            Ok(p) => p,
            Err(detail) => {
                let value = Value::String(String::new());
                let mut error = FieldError::invalid(&rule_path, &value, &detail);
                error.detail = format!("Invalid value: {}: {detail}", rule_value(rule));
                self.errors.push(error);
                // A rule that does not compile does not use oldSelf, as far as kube knows.
                if let Some(set) = optional_old_self {
                    self.errors.push(optional_without_old_self(path, set));
                }
                return;
            }
        };
        let message = text("messageExpression");
        if !message.is_empty() {
            let compiled = Program::compile(
                self.env,
                message,
                decl,
                optional_old_self == Some(true),
                Output::Message,
            );
            let message_path = format!("{path}.messageExpression");
            match compiled {
                Err(detail) => {
                    let mut error = FieldError::invalid(&message_path, &Value::Null, &detail);
                    error.detail = format!("Invalid value: {}: {detail}", rule_value(rule));
                    self.errors.push(error);
                }
                Ok(m) => {
                    let cost: CostEstimate = m.cost;
                    if cost.max > STATIC_ESTIMATED_COST_LIMIT {
                        let text = cost_error_message(
                            "estimated messageExpression cost",
                            cost.max,
                            STATIC_ESTIMATED_COST_LIMIT,
                        );
                        self.errors
                            .push(FieldError::forbidden(&message_path, &text));
                    }
                    self.observe(&message_path, cost.max);
                }
            }
        }
        if program.uses_old_self {
            if let Some(within) = &ctx.forbid_old_self {
                let detail = format!(
                    "oldSelf cannot be used on the uncorrelatable portion of the schema within {within}"
                );
                self.errors.push(FieldError::invalid(
                    &rule_path,
                    &Value::String(source.to_string()),
                    &detail,
                ));
            }
        } else if let Some(set) = optional_old_self {
            self.errors.push(optional_without_old_self(path, set));
        }
    }

    /// kube's `TotalCost.ObserveExpressionCost`.
    fn observe(&mut self, path: &str, cost: u64) {
        self.total.observe(path.to_string(), cost);
    }
}

fn optional_without_old_self(path: &str, set: bool) -> FieldError {
    FieldError::invalid(
        &format!("{path}.optionalOldSelf"),
        &Value::Bool(set),
        "may not be set if oldSelf is not used in rule",
    )
}

fn element(decl: &Arc<DeclType>) -> Option<Arc<DeclType>> {
    match &decl.kind {
        DeclKind::List { elem, .. } => Some(Arc::clone(elem)),
        DeclKind::Map { value } => Some(Arc::clone(value)),
        _ => None,
    }
}

/// The internal `ValidationRule` as `json.Marshal` prints it in kube's messages.
fn rule_value(rule: &Value) -> String {
    let text = |key: &str| json_string(rule.get(key).and_then(Value::as_str).unwrap_or_default());
    let reason = rule
        .get("reason")
        .and_then(Value::as_str)
        .map_or_else(|| "null".to_string(), json_string);
    let optional = rule
        .get("optionalOldSelf")
        .and_then(Value::as_bool)
        .map_or_else(|| "null".to_string(), |b| b.to_string());
    format!(
        "{{\"Rule\":{},\"Message\":{},\"MessageExpression\":{},\"Reason\":{reason},\"FieldPath\":{},\"OptionalOldSelf\":{optional}}}",
        text("rule"),
        text("message"),
        text("messageExpression"),
        text("fieldPath"),
    )
}
