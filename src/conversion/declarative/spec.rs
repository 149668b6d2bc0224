//! The annotation's text (YAML or JSON) parsed into its entries: a list of one-way
//! conversions `{from, to, mappings | cel}`, each mapping one of `move` (alias `rename`)
//! with `to`, `set` or `default` with `value`, or `drop`. Errors name the entry and the
//! offending mapping as written.

use serde_json::{Map, Value};

use super::path::FieldPath;

/// One declared direction between two versions.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub from: String,
    pub to: String,
    pub rule: Rule,
}

/// How a direction converts.
#[derive(Clone, Debug, PartialEq)]
pub enum Rule {
    /// Field mappings applied in order to a copy of the object.
    Mappings(Vec<Mapping>),
    /// A CEL expression returning the converted object.
    Cel(String),
}

/// One field mapping, as written (with its text for messages).
#[derive(Clone, Debug, PartialEq)]
pub struct Mapping {
    pub op: Op,
    /// The mapping as compact JSON, quoted by errors about it.
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// `move` / `rename`: the value at `from` goes to `to`.
    Move { from: FieldPath, to: FieldPath },
    /// `set`: `path` becomes `value`, whatever was there.
    Set { path: FieldPath, value: Value },
    /// `default`: `path` becomes `value` when absent.
    Default { path: FieldPath, value: Value },
    /// `drop`: `path` is removed.
    Drop { path: FieldPath },
}

const ENTRY_KEYS: &str = "from, to, mappings or cel";
const OPS: [&str; 5] = ["move", "rename", "set", "default", "drop"];

/// Parses the annotation's value; `versions` are the definition's version names.
pub fn parse(text: &str, versions: &[&str]) -> Result<Vec<Entry>, String> {
    let document: Value =
        serde_saphyr::from_str(text).map_err(|e| format!("not YAML or JSON: {e}"))?;
    let Value::Array(items) = document else {
        return Err(format!(
            "expected a list of conversions ({{from, to, mappings | cel}}), got {}",
            compact(&document)
        ));
    };
    let mut entries: Vec<Entry> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let entry = parse_entry(item, versions).map_err(|e| format!("[{i}]: {e}"))?;
        if entries
            .iter()
            .any(|e| e.from == entry.from && e.to == entry.to)
        {
            return Err(format!(
                "[{i}]: from {} to {} is declared twice",
                entry.from, entry.to
            ));
        }
        entries.push(entry);
    }
    Ok(entries)
}

fn parse_entry(item: &Value, versions: &[&str]) -> Result<Entry, String> {
    let Value::Object(fields) = item else {
        return Err(format!(
            "expected {{from, to, mappings | cel}}, got {}",
            compact(item)
        ));
    };
    if let Some(unknown) = fields
        .keys()
        .find(|k| !["from", "to", "mappings", "cel"].contains(&k.as_str()))
    {
        return Err(format!("unknown field {unknown:?} (expected {ENTRY_KEYS})"));
    }
    let from = version(fields, "from", versions)?;
    let to = version(fields, "to", versions)?;
    if from == to {
        return Err(format!("from and to are the same version {from}"));
    }
    let here = |e: String| format!("from {from} to {to}: {e}");
    let rule = match (fields.get("mappings"), fields.get("cel")) {
        (Some(_), Some(_)) => return Err(here("mappings and cel are exclusive".into())),
        (None, None) => return Err(here("one of mappings or cel is required".into())),
        (Some(Value::Array(list)), None) => Rule::Mappings(
            list.iter()
                .enumerate()
                .map(|(i, m)| parse_mapping(m).map_err(|e| format!("mappings[{i}] {e}")))
                .collect::<Result<_, _>>()
                .map_err(here)?,
        ),
        (Some(other), None) => {
            return Err(here(format!(
                "mappings must be a list, got {}",
                compact(other)
            )));
        }
        (None, Some(Value::String(source))) if !source.trim().is_empty() => {
            Rule::Cel(source.clone())
        }
        (None, Some(other)) => {
            return Err(here(format!(
                "cel must be a non-empty string, got {}",
                compact(other)
            )));
        }
    };
    Ok(Entry {
        from: from.to_string(),
        to: to.to_string(),
        rule,
    })
}

fn version<'a>(
    fields: &'a Map<String, Value>,
    key: &str,
    versions: &[&str],
) -> Result<&'a str, String> {
    match fields.get(key) {
        None => Err(format!("{key} is required (a version name)")),
        Some(Value::String(name)) if versions.contains(&name.as_str()) => Ok(name),
        Some(Value::String(name)) => Err(format!(
            "{key}: {name:?} is not a version of this definition (versions: {})",
            versions.join(", ")
        )),
        Some(other) => Err(format!(
            "{key} must be a version name, got {}",
            compact(other)
        )),
    }
}

/// One mapping; the error starts with the mapping as written.
fn parse_mapping(item: &Value) -> Result<Mapping, String> {
    let text = compact(item);
    let fail = |e: String| format!("{text}: {e}");
    let Value::Object(fields) = item else {
        return Err(fail(format!("expected one of {}", OPS.join(", "))));
    };
    let ops: Vec<&str> = OPS
        .into_iter()
        .filter(|op| fields.contains_key(*op))
        .collect();
    let op = match ops.as_slice() {
        [op] => *op,
        [] => return Err(fail(format!("expected one of {}", OPS.join(", ")))),
        _ => return Err(fail(format!("{} are exclusive", ops.join(" and ")))),
    };
    let extra = match op {
        "move" | "rename" => "to",
        "set" | "default" => "value",
        _ => "",
    };
    if let Some(unknown) = fields.keys().find(|k| *k != op && *k != extra) {
        return Err(fail(format!("unexpected field {unknown:?} with {op}")));
    }
    let path = |key: &str| -> Result<FieldPath, String> {
        match fields.get(key) {
            Some(Value::String(p)) => FieldPath::parse(p).map_err(|e| format!("{key} {p:?}: {e}")),
            Some(other) => Err(format!("{key} must be a path, got {}", compact(other))),
            None => Err(format!("{op} needs {key}")),
        }
    };
    let value = || {
        fields
            .get("value")
            .cloned()
            .ok_or_else(|| format!("{op} needs value"))
    };
    let op = match op {
        "move" | "rename" => Op::Move {
            from: path(op).map_err(fail)?,
            to: path("to").map_err(fail)?,
        },
        "set" => Op::Set {
            path: path(op).map_err(fail)?,
            value: value().map_err(fail)?,
        },
        "default" => Op::Default {
            path: path(op).map_err(fail)?,
            value: value().map_err(fail)?,
        },
        _ => Op::Drop {
            path: path(op).map_err(fail)?,
        },
    };
    Ok(Mapping { op, text })
}

/// A value as compact JSON, for messages.
pub fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
