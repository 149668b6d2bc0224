//! Running a version's rules over an object, as apiextensions' `cel.Validator.Validate`
//! does: depth first from the root, each node's rules before its children, one cost
//! budget for the whole object, transition rules only where an old value correlates, and
//! failures of unchanged values (ratcheting) turned into warnings.

use serde_json::Value;

use super::causes::{error_string, invalid_error, message_text, reason_error};
use super::compile::{CompiledRule, Validator};
use super::path::Path;
use super::ratchet::{Correlation, Memo, Warnings};
use crate::cel::cost::{PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET};
use crate::cel::eval::CostTracker;
use crate::cel::eval::json::from_json;
use crate::cel::value::{EvalError, Value as CelValue};
use crate::error::FieldError;
use crate::schema::validate::ratchet::ListIndex;
use crate::schema::{Additional, Schema};

/// What the rules found: errors, and the failures ratcheting turned into warnings.
#[derive(Debug, Default)]
pub struct Findings {
    pub errors: Vec<FieldError>,
    pub warnings: Vec<String>,
}

pub(super) struct Walk {
    errors: Vec<FieldError>,
    warnings: Warnings,
    memo: Memo,
    /// The remaining cost budget; negative once evaluation stopped.
    pub budget: i64,
}

impl Walk {
    pub fn new() -> Walk {
        Walk {
            errors: Vec::new(),
            warnings: Warnings::default(),
            memo: Memo::new(),
            budget: RUNTIME_CEL_COST_BUDGET as i64,
        }
    }

    pub fn findings(self) -> Findings {
        Findings {
            errors: self.errors,
            warnings: self.warnings.list,
        }
    }

    /// `validate`: this node's rules, its allOf branches, then its items or fields.
    pub fn node<'v>(
        &mut self,
        v: &Validator,
        schema: &'v Schema,
        path: &Path<'_>,
        new: &'v Value,
        old: Option<&'v Value>,
        corr: &Correlation<'v>,
    ) {
        if new.is_null() {
            return;
        }
        // A stored null is no old value (Go reads it as nil).
        let old = old.filter(|o| !o.is_null());
        self.expressions(v, path, new, old, corr);
        if self.budget < 0 {
            return;
        }
        for branch in &v.all_of {
            // kube does not ratchet allOf failures by the branch's own value.
            self.node(branch, schema, path, new, old, &corr.without_current());
            if self.budget < 0 {
                return;
            }
        }
        match new {
            Value::Array(items) => self.array(v, schema, path, items, old, corr),
            Value::Object(fields) => self.object(v, schema, path, fields, old, corr),
            _ => {}
        }
    }

    fn array<'v>(
        &mut self,
        v: &Validator,
        schema: &'v Schema,
        path: &Path<'_>,
        items: &'v [Value],
        old: Option<&'v Value>,
        corr: &Correlation<'v>,
    ) {
        let (Some(item_validator), Some(item_schema)) = (&v.items, schema.items.as_deref()) else {
            return;
        };
        // Only list-maps correlate old items for transition rules; indexed once per list.
        let old_items = old.and_then(|o| ListIndex::new(schema, o));
        let correlated = corr.items();
        for (i, item) in items.iter().enumerate() {
            let old_item = old_items.as_ref().and_then(|index| index.get(item));
            let child = correlated.item(item);
            let item_path = Path::Index(path, i);
            self.node(
                item_validator,
                item_schema,
                &item_path,
                item,
                old_item,
                &child,
            );
            if self.budget < 0 {
                return;
            }
        }
    }

    fn object<'v>(
        &mut self,
        v: &Validator,
        schema: &'v Schema,
        path: &Path<'_>,
        fields: &'v serde_json::Map<String, Value>,
        old: Option<&'v Value>,
        corr: &Correlation<'v>,
    ) {
        let old_fields = old.and_then(Value::as_object);
        if let (Some(values), Some(Additional::Schema(value_schema))) =
            (&v.additional, &schema.additional_properties)
        {
            for (key, value) in fields {
                let old_value = old_fields.and_then(|o| o.get(key));
                let child = corr.key(key, value);
                let value_path = Path::Key(path, key);
                self.node(values, value_schema, &value_path, value, old_value, &child);
                if self.budget < 0 {
                    return;
                }
            }
        }
        // The validated properties present, in the fields' (sorted) order: most fields
        // of an object have no rules below them.
        for (key, property) in &v.properties {
            let (Some(value), Some(property_schema)) =
                (fields.get(key), schema.properties.get(key))
            else {
                continue;
            };
            let old_value = old_fields.and_then(|o| o.get(key));
            let child = corr.key(key, value);
            let child_path = Path::Field(path, key);
            self.node(
                property,
                property_schema,
                &child_path,
                value,
                old_value,
                &child,
            );
            if self.budget < 0 {
                return;
            }
        }
    }

    /// `validateExpressions`: each rule of the node in order.
    fn expressions(
        &mut self,
        v: &Validator,
        path: &Path<'_>,
        new: &Value,
        old: Option<&Value>,
        corr: &Correlation,
    ) {
        if let Some(error) = &v.compilation_error {
            let detail = format!("rule compiler initialization error: {error}");
            self.invalid(&field(path), v.schema_type, &detail);
            return;
        }
        if v.rules.is_empty() {
            return;
        }
        let Some(decl) = v.decl.as_deref() else {
            return;
        };
        if self.budget <= 0 {
            self.out_of_budget(&field(path), v.schema_type);
            return;
        }
        if old.is_none() && v.rules.iter().all(transition_only) {
            // Nothing runs on create: `self` need not be read.
            return;
        }
        let self_value = from_json(new, decl);
        let old_value = old.map(|o| from_json(o, decl));
        // kube binds `oldSelf` for messageExpressions only where a rule of the node uses
        // it and an old value exists (never as an optional).
        let uses_old_self = v.rules.iter().any(CompiledRule::uses_old_self);
        let message_old = old_value.as_ref().filter(|_| uses_old_self);
        for rule in &v.rules {
            let program = match &rule.program {
                Ok(p) => p,
                Err(e) => {
                    let detail = format!("rule compile error: {e}");
                    self.invalid(&field(path), v.schema_type, &detail);
                    continue;
                }
            };
            if program.uses_old_self && old_value.is_none() && !rule.optional_old_self {
                continue;
            }
            let old_binding = old_self_binding(rule, old_value.as_ref());
            let mut tracker = CostTracker {
                actual: 0,
                limit: Some(PER_CALL_LIMIT),
            };
            let result = program.evaluate(self_value.clone(), old_binding.clone(), &mut tracker);
            if tracker.actual > i64::MAX as u64 || tracker.actual as i64 > self.budget {
                self.out_of_budget(&field(path), v.schema_type);
                self.budget = -1;
                return;
            }
            self.budget -= tracker.actual as i64;
            match result {
                Ok(CelValue::Bool(true)) => continue,
                Ok(_) => {}
                Err(EvalError::CostLimitExceeded) => {
                    let detail = format!(
                        "'{}': no further validation rules will be run due to call cost exceeds limit for rule: {}",
                        EvalError::CostLimitExceeded,
                        error_string(rule)
                    );
                    self.invalid(&field(path), v.schema_type, &detail);
                    self.budget = -1;
                    return;
                }
                Err(EvalError::Message(e)) if e.starts_with("no such overload") => {
                    let detail = format!(
                        "'{e}': call arguments did not match a supported operator, function or macro signature for rule: {}",
                        error_string(rule)
                    );
                    self.invalid(&field(path), v.schema_type, &detail);
                    continue;
                }
                Err(EvalError::Message(e)) => {
                    let detail = format!("{e} evaluating rule: {}", error_string(rule));
                    self.invalid(&field(path), v.schema_type, &detail);
                    continue;
                }
            }
            if !self.failure(v, rule, path, new, (&self_value, message_old), corr) {
                return;
            }
        }
    }

    /// Reports a rule that evaluated to false; `false` when evaluation must stop.
    fn failure(
        &mut self,
        v: &Validator,
        rule: &CompiledRule,
        path: &Path<'_>,
        new: &Value,
        vars: (&CelValue<'_>, Option<&CelValue<'_>>),
        corr: &Correlation,
    ) -> bool {
        let field = match (&rule.field_path, path.is_root()) {
            (Some(sub), true) => sub.clone(),
            (Some(sub), false) => format!("{}.{sub}", path.render()),
            (None, _) => field(path),
        };
        let ratchet = !rule.uses_old_self() && corr.unchanged(&mut self.memo);
        let mut detail = None;
        // A messageExpression reading an unbound `oldSelf` fails: the message is used.
        let message = match &rule.message_expression {
            Some(Ok(m)) if !m.uses_old_self || vars.1.is_some() => Some(m),
            _ => None,
        };
        if let Some(message) = message {
            let mut tracker = CostTracker {
                actual: 0,
                limit: Some(PER_CALL_LIMIT),
            };
            let old = vars.1.cloned().unwrap_or(CelValue::Null);
            let result = message.evaluate(vars.0.clone(), old, &mut tracker);
            if tracker.actual > i64::MAX as u64 || tracker.actual as i64 > self.budget {
                let text = "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run";
                self.report(ratchet, invalid_error(&field, v.schema_type, text));
                self.budget = -1;
                return false;
            }
            if let Err(EvalError::CostLimitExceeded) = result {
                let text = format!(
                    "no further validation rules will be run due to call cost exceeds limit for messageExpression: {}",
                    crate::gofmt::quote(&rule.message_expression_source)
                );
                self.report(ratchet, invalid_error(&field, v.schema_type, &text));
                self.budget = -1;
                return false;
            }
            self.budget -= tracker.actual as i64;
            detail = message_text(result);
        }
        let detail = detail.unwrap_or_else(|| match rule.message.as_str() {
            "" => format!("failed rule: {}", rule.rule),
            m => m.to_string(),
        });
        let value = match new {
            Value::Object(_) | Value::Array(_) => None,
            scalar => Some(scalar),
        };
        self.report(ratchet, reason_error(&field, value, &detail, rule.reason));
        true
    }

    fn report(&mut self, ratchet: bool, error: FieldError) {
        if ratchet {
            self.warnings.push(error.message());
        } else {
            self.errors.push(error);
        }
    }

    fn invalid(&mut self, field: &str, schema_type: &str, detail: &str) {
        let error = invalid_error(field, schema_type, detail);
        self.errors.push(error);
    }

    fn out_of_budget(&mut self, field: &str, schema_type: &str) {
        let text = "validation failed due to running out of cost budget, no further validation rules will be run";
        self.invalid(field, schema_type, text);
    }
}

/// The path kube reports a node's errors at (`<nil>` for the root).
fn field(path: &Path<'_>) -> String {
    match path {
        Path::Root => "<nil>".to_string(),
        other => other.render(),
    }
}

/// A rule that runs only on update (it reads `oldSelf`, not as an optional).
fn transition_only(rule: &CompiledRule) -> bool {
    rule.program.as_ref().is_ok_and(|p| p.uses_old_self) && !rule.optional_old_self
}

/// `oldSelf` as a rule sees it: the old value, or `optional.of`/`optional.none()` for
/// `optionalOldSelf` rules.
fn old_self_binding<'a>(rule: &CompiledRule, old: Option<&CelValue<'a>>) -> CelValue<'a> {
    match (rule.optional_old_self, old) {
        (true, Some(o)) => CelValue::Optional(Some(std::rc::Rc::new(o.clone()))),
        (true, None) => CelValue::Optional(None),
        (false, Some(o)) => o.clone(),
        (false, None) => CelValue::Null,
    }
}
