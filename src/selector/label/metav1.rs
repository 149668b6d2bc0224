//! A `metav1.LabelSelector` (`matchLabels` + `matchExpressions`, as webhook configurations
//! and other API objects carry it) into a [`LabelSelector`], as apimachinery's
//! `LabelSelectorAsSelector` converts it, with `labels.NewRequirement`'s error texts.

use std::collections::BTreeSet;

use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;
use serde_json::Value;

use super::validate::{key_errors, value_errors};
use super::{LabelSelector, Operator, Requirement};
use crate::error::{FieldError, aggregate};

impl LabelSelector {
    /// apimachinery's `LabelSelectorAsSelector` for a present selector: `{}` selects
    /// everything; a bad key, value or operator is its error text (the first bad
    /// requirement's, `matchLabels` in key order before `matchExpressions`).
    pub fn from_metav1(selector: &metav1::LabelSelector) -> Result<LabelSelector, String> {
        let labels = selector.match_labels.iter().flatten();
        let expressions = selector.match_expressions.iter().flatten();
        let mut requirements = Vec::new();
        for (key, value) in labels {
            requirements.push(requirement(
                key,
                Operator::Equals,
                Some(vec![value.clone()]),
            )?);
        }
        for expression in expressions {
            let operator = match expression.operator.as_str() {
                "In" => Operator::In,
                "NotIn" => Operator::NotIn,
                "Exists" => Operator::Exists,
                "DoesNotExist" => Operator::DoesNotExist,
                other => {
                    return Err(format!(
                        "{} is not a valid label selector operator",
                        crate::gofmt::quote(other)
                    ));
                }
            };
            let values = expression.values.clone().filter(|v| !v.is_empty());
            requirements.push(requirement(&expression.key, operator, values)?);
        }
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(LabelSelector { requirements })
    }
}

/// `labels.NewRequirement` with a nil field path; `values` is `None` for Go's nil slice.
fn requirement(
    key: &str,
    operator: Operator,
    values: Option<Vec<String>>,
) -> Result<Requirement, String> {
    let mut errors = Vec::new();
    let key_problems = key_errors(key);
    if !key_problems.is_empty() {
        let key_value = Value::String(key.to_string());
        errors.push(FieldError::invalid(
            "key",
            &key_value,
            &key_problems.join("; "),
        ));
    }
    let values = values.unwrap_or_default();
    let count_problem = match operator {
        Operator::In | Operator::NotIn if values.is_empty() => {
            Some("for 'in', 'notin' operators, values set can't be empty")
        }
        Operator::Equals if values.len() != 1 => {
            Some("exact-match compatibility requires one single value")
        }
        Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
            Some("values set must be empty for exists and does not exist")
        }
        _ => None,
    };
    if let Some(detail) = count_problem {
        errors.push(FieldError::invalid("values", &go_slice(&values), detail));
    }
    for (i, value) in values.iter().enumerate() {
        let problems = value_errors(value);
        if !problems.is_empty() {
            let field = format!("values[{i}][{key}]");
            let shown = Value::String(value.clone());
            errors.push(FieldError::invalid(&field, &shown, &problems.join("; ")));
        }
    }
    if !errors.is_empty() {
        return Err(aggregate(&errors));
    }
    let values: BTreeSet<String> = values.into_iter().collect();
    Ok(Requirement {
        key: key.to_string(),
        operator,
        values: values.into_iter().collect(),
    })
}

/// A `[]string` as `json.Marshal` prints it in a field error: `null` when empty (the
/// converter passes Go's nil slice for an absent or empty list).
fn go_slice(values: &[String]) -> Value {
    match values {
        [] => Value::Null,
        some => Value::Array(some.iter().cloned().map(Value::String).collect()),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn selector(
        labels: &[(&str, &str)],
        expressions: &[(&str, &str, &[&str])],
    ) -> metav1::LabelSelector {
        let match_labels: BTreeMap<String, String> = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let match_expressions = expressions
            .iter()
            .map(|(key, op, values)| metav1::LabelSelectorRequirement {
                key: key.to_string(),
                operator: op.to_string(),
                values: Some(values.iter().map(|v| v.to_string()).collect()),
            })
            .collect();
        metav1::LabelSelector {
            match_labels: Some(match_labels),
            match_expressions: Some(match_expressions),
        }
    }

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// A case: name, selector, an object's labels, whether it is selected.
    type Case<'a> = (
        &'a str,
        metav1::LabelSelector,
        &'a [(&'a str, &'a str)],
        bool,
    );

    #[test]
    fn from_metav1_matches_as_apimachinery() {
        let env_prod = [("env", "prod")];
        let cases: [Case; 10] = [
            (
                "empty selects all",
                metav1::LabelSelector::default(),
                &[],
                true,
            ),
            ("matchLabels hit", selector(&env_prod, &[]), &env_prod, true),
            (
                "matchLabels miss",
                selector(&env_prod, &[]),
                &[("env", "dev")],
                false,
            ),
            ("matchLabels absent", selector(&env_prod, &[]), &[], false),
            (
                "In",
                selector(&[], &[("env", "In", &["dev", "prod"])]),
                &env_prod,
                true,
            ),
            (
                "NotIn absent key",
                selector(&[], &[("env", "NotIn", &["prod"])]),
                &[],
                true,
            ),
            (
                "NotIn hit",
                selector(&[], &[("env", "NotIn", &["prod"])]),
                &env_prod,
                false,
            ),
            (
                "Exists",
                selector(&[], &[("env", "Exists", &[])]),
                &env_prod,
                true,
            ),
            (
                "DoesNotExist",
                selector(&[], &[("env", "DoesNotExist", &[])]),
                &env_prod,
                false,
            ),
            (
                "all requirements",
                selector(&env_prod, &[("tier", "Exists", &[])]),
                &env_prod,
                false,
            ),
        ];
        for (name, given, object, want) in cases {
            let compiled = LabelSelector::from_metav1(&given).unwrap();
            assert_eq!(compiled.matches_btree(&labels(object)), want, "{name}");
        }
    }

    #[test]
    fn from_metav1_bad_requirement_is_apimachinerys_text() {
        let rfc = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
        let cases: [(&str, metav1::LabelSelector, String); 5] = [
            (
                "unknown operator",
                selector(&[], &[("env", "Gt", &["1"])]),
                "\"Gt\" is not a valid label selector operator".to_string(),
            ),
            (
                "In without values",
                selector(&[], &[("env", "In", &[])]),
                "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty".to_string(),
            ),
            (
                "Exists with values",
                selector(&[], &[("env", "Exists", &["x"])]),
                "values: Invalid value: [\"x\"]: values set must be empty for exists and does not exist".to_string(),
            ),
            (
                "bad value",
                selector(&[("env", "no good")], &[]),
                format!("values[0][env]: Invalid value: \"no good\": {rfc}"),
            ),
            (
                "bad key",
                selector(&[("-env", "x")], &[]),
                "key: Invalid value: \"-env\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')".to_string(),
            ),
        ];
        for (name, given, want) in cases {
            assert_eq!(LabelSelector::from_metav1(&given), Err(want), "{name}");
        }
    }
}
