//! The 409 texts of apply conflicts (`NewConflictError`): the message and the
//! `FieldManagerConflict` causes, naming managers from their identifiers.

use serde_json::Value;

use super::entry::{Operation, format_time, parse_time};
use crate::fieldmanager::fieldpath::Path;
use crate::gofmt::quote;

/// One `FieldManagerConflict` cause: `message` `conflict with "kubectl"`, `field` the
/// path (`.spec.replicas`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConflictCause {
    pub message: String,
    pub field: String,
}

/// `printManager`: `"name"`, then ` with subresource "s"`, then for updaters
/// ` using <apiVersion>` (and ` at <time>` if the identifier had one); an identifier
/// that is not JSON prints quoted whole.
pub fn print_manager(identifier: &str) -> String {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(identifier) else {
        return quote(identifier);
    };
    let text = |k: &str| map.get(k).and_then(Value::as_str).unwrap_or("");
    let mut out = quote(text("manager"));
    if !text("subresource").is_empty() {
        out.push_str(&format!(" with subresource {}", quote(text("subresource"))));
    }
    if Operation::parse(text("operation")) == Operation::Update {
        out.push_str(&format!(" using {}", text("apiVersion")));
        if let Ok(t) = parse_time(text("time")) {
            out.push_str(&format!(" at {}", format_time(t)));
        }
    }
    out
}

/// `getConflictMessage` for conflicts as (manager identifier, path), in the merge's
/// order: one conflict inline; several grouped by manager (identifiers sorted as
/// strings, so by name first), one
/// `- path` line each.
pub fn conflict_message(conflicts: &[(String, Path)]) -> String {
    if let [(manager, path)] = conflicts {
        return format!(
            "Apply failed with 1 conflict: conflict with {}: {path}",
            print_manager(manager)
        );
    }
    let mut managers: Vec<&String> = conflicts.iter().map(|(m, _)| m).collect();
    managers.sort();
    managers.dedup();
    let mut lines = Vec::new();
    for manager in managers {
        lines.push(format!("conflicts with {}:", print_manager(manager)));
        for (_, path) in conflicts.iter().filter(|(m, _)| m == manager) {
            lines.push(format!("- {path}"));
        }
    }
    format!(
        "Apply failed with {} conflicts: {}",
        conflicts.len(),
        lines.join("\n")
    )
}

/// The Status causes of `NewConflictError`, one per conflict in order.
pub fn conflict_causes(conflicts: &[(String, Path)]) -> Vec<ConflictCause> {
    conflicts
        .iter()
        .map(|(manager, path)| ConflictCause {
            message: format!("conflict with {}", print_manager(manager)),
            field: path.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fieldmanager::fieldpath::PathElement;

    fn path(fields: &[&str]) -> Path {
        Path(fields.iter().map(|f| PathElement::field(*f)).collect())
    }

    #[test]
    fn print_manager_forms() {
        let cases = [
            (
                r#"{"manager":"kubectl","operation":"Apply"}"#,
                r#""kubectl""#,
            ),
            (
                r#"{"manager":"kubectl","operation":"Update","apiVersion":"v1"}"#,
                r#""kubectl" using v1"#,
            ),
            (
                r#"{"manager":"m","operation":"Update","apiVersion":"g/v1","subresource":"status"}"#,
                r#""m" with subresource "status" using g/v1"#,
            ),
            (
                r#"{"manager":"m","operation":"Update","apiVersion":"v1","time":"2001-02-03T04:05:06Z"}"#,
                r#""m" using v1 at 2001-02-03T04:05:06Z"#,
            ),
            ("current-operation", r#""current-operation""#),
        ];
        for (identifier, want) in cases {
            assert_eq!(print_manager(identifier), want, "{identifier}");
        }
    }

    #[test]
    fn conflict_message_one_and_many() {
        let kubectl = r#"{"manager":"kubectl","operation":"Apply"}"#.to_string();
        let ctrl = r#"{"manager":"ctrl","operation":"Update","apiVersion":"v1"}"#.to_string();
        let one = [(kubectl.clone(), path(&["spec", "replicas"]))];
        assert_eq!(
            conflict_message(&one),
            r#"Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas"#
        );
        let many = [
            (kubectl.clone(), path(&["spec", "replicas"])),
            (ctrl.clone(), path(&["spec", "a"])),
            (kubectl.clone(), path(&["spec", "b"])),
        ];
        assert_eq!(
            conflict_message(&many),
            "Apply failed with 3 conflicts: conflicts with \"ctrl\" using v1:\n- .spec.a\nconflicts with \"kubectl\":\n- .spec.replicas\n- .spec.b"
        );
        assert_eq!(
            conflict_causes(&one),
            vec![ConflictCause {
                message: r#"conflict with "kubectl""#.into(),
                field: ".spec.replicas".into()
            }]
        );
    }
}
