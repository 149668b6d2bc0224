//! The fake kube-apiserver's managedFields, as structured-merge-diff keeps them for a kind
//! without a schema (maps granular, lists atomic): the field set a write touches, `fieldsV1`
//! (`{"f:spec": {".": {}, "f:x": {}}}`), the tracking of an `Update` (changed fields move to
//! the writer) and server-side apply (`Apply`: the leaves applied are owned, merged into the
//! live object; fields the manager applied before and no longer applies are removed unless
//! someone else owns them; a changed field owned by another manager is a conflict unless
//! forced, which takes it from them).

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

/// A field's path: `f:<key>` per level.
pub type Path = Vec<String>;
pub type FieldSet = BTreeSet<Path>;

/// Metadata the server owns: never in a field set, never merged from an apply.
const SERVER_METADATA: [&str; 9] = [
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
];

/// Which part of an object a write owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The whole object (a kind without the status subresource).
    Object,
    /// All but `status` (the main resource of a kind with the status subresource).
    Spec,
    /// `status` only (the `/status` subresource).
    Status,
}

impl Scope {
    fn keeps(self, top: &str) -> bool {
        match self {
            _ if top == "apiVersion" || top == "kind" => false,
            Scope::Object => true,
            Scope::Spec => top != "status",
            Scope::Status => top == "status",
        }
    }
}

/// One managedFields entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: String,
    pub api_version: String,
    pub time: String,
    pub subresource: String,
    pub fields: FieldSet,
}

impl Entry {
    fn same_writer(&self, manager: &str, operation: &str, subresource: &str) -> bool {
        self.manager == manager && self.operation == operation && self.subresource == subresource
    }

    pub fn to_json(&self) -> Value {
        let mut entry = json!({"manager": self.manager, "operation": self.operation,
            "apiVersion": self.api_version, "time": self.time, "fieldsType": "FieldsV1",
            "fieldsV1": fields_v1(&self.fields)});
        if !self.subresource.is_empty() {
            entry["subresource"] = json!(self.subresource);
        }
        entry
    }

    pub fn from_json(entry: &Value) -> Entry {
        let text = |key: &str| entry[key].as_str().unwrap_or_default().to_string();
        Entry {
            manager: text("manager"),
            operation: text("operation"),
            api_version: text("apiVersion"),
            time: text("time"),
            subresource: text("subresource"),
            fields: parse_fields_v1(&entry["fieldsV1"]),
        }
    }
}

/// The entries of `object`'s `metadata.managedFields`.
pub fn entries(object: &Value) -> Vec<Entry> {
    let listed = object["metadata"]["managedFields"].as_array();
    listed.into_iter().flatten().map(Entry::from_json).collect()
}

pub fn set_entries(object: &mut Value, entries: &[Entry]) {
    let listed: Vec<Value> = entries.iter().map(Entry::to_json).collect();
    match listed.is_empty() {
        true => {
            object["metadata"]
                .as_object_mut()
                .map(|m| m.remove("managedFields"));
        }
        false => object["metadata"]["managedFields"] = json!(listed),
    }
}

/// The fields `object` sets within `scope`: every map key (a non-empty map is a node with
/// its children), lists and scalars as leaves; server metadata left out.
pub fn fields_of(object: &Value, scope: Scope) -> FieldSet {
    let mut set = FieldSet::new();
    for (key, value) in object.as_object().into_iter().flatten() {
        if !scope.keeps(key) {
            continue;
        }
        let path = vec![format!("f:{key}")];
        match (key.as_str(), value) {
            ("metadata", Value::Object(meta)) => {
                for (k, v) in meta
                    .iter()
                    .filter(|(k, _)| !SERVER_METADATA.contains(&k.as_str()))
                {
                    walk(v, vec![path[0].clone(), format!("f:{k}")], &mut set);
                }
            }
            _ => walk(value, path, &mut set),
        }
    }
    set
}

fn walk(value: &Value, path: Path, set: &mut FieldSet) {
    if let Value::Object(map) = value {
        for (k, v) in map {
            let mut child = path.clone();
            child.push(format!("f:{k}"));
            walk(v, child, set);
        }
    }
    set.insert(path);
}

/// kube's `fieldsV1` form of a set: nested `f:` keys, `"."` on a node the set holds itself.
pub fn fields_v1(set: &FieldSet) -> Value {
    let mut root = Map::new();
    for path in set {
        let mut node = &mut root;
        for step in path {
            node = node
                .entry(step.clone())
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .expect("a fieldsV1 node is a map");
        }
    }
    for path in set {
        let node = path.iter().try_fold(&mut root, |node, step| {
            node.get_mut(step).and_then(Value::as_object_mut)
        });
        if let Some(node) = node.filter(|n| !n.is_empty()) {
            node.insert(".".into(), json!({}));
        }
    }
    Value::Object(root)
}

pub fn parse_fields_v1(value: &Value) -> FieldSet {
    let mut set = FieldSet::new();
    parse_into(value, &mut Vec::new(), &mut set);
    set
}

fn parse_into(value: &Value, path: &mut Path, set: &mut FieldSet) {
    for (key, child) in value.as_object().into_iter().flatten() {
        if key == "." {
            continue;
        }
        path.push(key.clone());
        let children = child.as_object().map_or(0, Map::len);
        if children == 0 || child.get(".").is_some() {
            set.insert(path.clone());
        }
        parse_into(child, path, set);
        path.pop();
    }
}

/// The value at `path` in `object`.
pub fn lookup<'a>(object: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(object, |node, step| {
        node.as_object()?.get(step.strip_prefix("f:")?)
    })
}

fn is_leaf(object: &Value, path: &[String]) -> bool {
    lookup(object, path).is_none_or(|v| v.as_object().is_none_or(Map::is_empty))
}

/// managedFields after an `Update` by `manager` from `old` to `new`: fields `new` changed
/// or added move to the manager's `Update` entry (for `subresource`), removed fields leave
/// every entry, empty entries are dropped.
pub fn track_update(
    old: Option<&Value>,
    new: &Value,
    mut entries: Vec<Entry>,
    writer: &Writer,
) -> Vec<Entry> {
    let before = old.map(|o| fields_of(o, writer.scope)).unwrap_or_default();
    let after = fields_of(new, writer.scope);
    let changed: FieldSet = after
        .iter()
        .filter(|p| {
            !before.contains(*p)
                || (is_leaf(new, p) && old.and_then(|o| lookup(o, p)) != lookup(new, p))
        })
        .cloned()
        .collect();
    let removed: FieldSet = before.difference(&after).cloned().collect();
    for entry in &mut entries {
        entry.fields.retain(|p| !removed.contains(p));
        if !entry.same_writer(&writer.manager, "Update", &writer.subresource) {
            entry.fields.retain(|p| !changed.contains(p));
        }
    }
    if !changed.is_empty() {
        let mine = writer.entry(&mut entries, "Update");
        mine.fields.extend(changed);
    }
    entries.retain(|e| !e.fields.is_empty());
    entries
}

/// Who writes: the field manager, the apiVersion it writes, the subresource, the time.
#[derive(Clone, Debug)]
pub struct Writer {
    pub manager: String,
    pub api_version: String,
    pub subresource: String,
    pub scope: Scope,
    pub time: String,
}

impl Writer {
    /// The manager's entry for `operation`, added last if missing; stamped with the time.
    fn entry<'a>(&self, entries: &'a mut Vec<Entry>, operation: &str) -> &'a mut Entry {
        let at = entries
            .iter()
            .position(|e| e.same_writer(&self.manager, operation, &self.subresource));
        let index = at.unwrap_or_else(|| {
            entries.push(Entry {
                manager: self.manager.clone(),
                operation: operation.into(),
                api_version: String::new(),
                time: String::new(),
                subresource: self.subresource.clone(),
                fields: FieldSet::new(),
            });
            entries.len() - 1
        });
        let entry = &mut entries[index];
        entry.api_version = self.api_version.clone();
        entry.time = self.time.clone();
        entry
    }
}

/// A field another manager owns with another value than the one applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    /// kube's `printManager`: `"m"` for an Apply entry, `"m" using v1 at <time>` for Update.
    pub manager: String,
    /// `.spec.replicas`.
    pub field: String,
}

/// Server-side apply of `applied` by `writer` over `live` (absent: a create). Returns the
/// merged object and its entries, or the conflicts (none when `force`: the fields move).
pub fn apply(
    live: Option<&Value>,
    applied: &Value,
    mut entries: Vec<Entry>,
    writer: &Writer,
    force: bool,
) -> Result<(Value, Vec<Entry>), Vec<Conflict>> {
    let mine = |e: &Entry| e.same_writer(&writer.manager, "Apply", &writer.subresource);
    // An apply owns the leaves it sets (kube's Apply entries carry no `.` for maps).
    let set: FieldSet = fields_of(applied, writer.scope)
        .into_iter()
        .filter(|p| is_leaf(applied, p))
        .collect();
    let empty = json!({});
    let base = live.unwrap_or(&empty);
    let differs = |p: &Path| {
        is_leaf(applied, p) && lookup(base, p).is_some_and(|v| Some(v) != lookup(applied, p))
    };
    let mut conflicts = Vec::new();
    for entry in entries.iter_mut().filter(|e| !mine(e)) {
        let taken: Vec<Path> = entry
            .fields
            .iter()
            .filter(|p| set.contains(*p) && differs(p))
            .cloned()
            .collect();
        match force {
            true => entry.fields.retain(|p| !taken.contains(p)),
            false => conflicts.extend(taken.iter().map(|p| Conflict {
                manager: print_manager(entry),
                field: p.iter().map(|s| format!(".{}", &s[2..])).collect(),
            })),
        }
    }
    if !conflicts.is_empty() {
        return Err(conflicts);
    }
    let before = entries.iter().find(|e| mine(e)).map(|e| e.fields.clone());
    let others: FieldSet = entries
        .iter()
        .filter(|e| !mine(e))
        .flat_map(|e| e.fields.iter().cloned())
        .collect();
    let mut merged = base.clone();
    let mut dropped: Vec<Path> = before
        .unwrap_or_default()
        .into_iter()
        .filter(|p| !set.contains(p) && !others.contains(p))
        .collect();
    dropped.sort_by_key(|p| std::cmp::Reverse(p.len()));
    for path in dropped {
        remove(&mut merged, &path);
    }
    merge(&mut merged, applied, writer.scope);
    writer.entry(&mut entries, "Apply").fields = set;
    entries.retain(|e| !e.fields.is_empty());
    Ok((merged, entries))
}

fn print_manager(entry: &Entry) -> String {
    let mut text = format!("{:?}", entry.manager);
    if !entry.subresource.is_empty() {
        text = format!("{text} with subresource {:?}", entry.subresource);
    }
    match entry.operation.as_str() {
        "Update" if entry.time.is_empty() => format!("{text} using {}", entry.api_version),
        "Update" => format!("{text} using {} at {}", entry.api_version, entry.time),
        _ => text,
    }
}

/// Removes the field at `path` if it is a leaf or a map left empty.
fn remove(object: &mut Value, path: &[String]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let parent = parents.iter().try_fold(object, |node, step| {
        node.as_object_mut()?.get_mut(step.strip_prefix("f:")?)
    });
    let Some(map) = parent.and_then(Value::as_object_mut) else {
        return;
    };
    let key = last.strip_prefix("f:").unwrap_or(last);
    if map
        .get(key)
        .is_some_and(|v| v.as_object().is_none_or(Map::is_empty))
    {
        map.remove(key);
    }
}

/// Merges `applied` into `into` within `scope`: maps key by key, anything else replaced.
fn merge(into: &mut Value, applied: &Value, scope: Scope) {
    for (key, value) in applied.as_object().into_iter().flatten() {
        let keep = scope.keeps(key) || key == "metadata" || key == "apiVersion" || key == "kind";
        if keep && !(scope == Scope::Status && key == "metadata") {
            deep_merge(&mut into[key], value, key == "metadata");
        }
    }
}

fn deep_merge(into: &mut Value, value: &Value, metadata: bool) {
    match (into.as_object_mut(), value) {
        (Some(map), Value::Object(applied)) => {
            for (k, v) in applied {
                if !(metadata && SERVER_METADATA.contains(&k.as_str())) {
                    deep_merge(map.entry(k.clone()).or_insert(Value::Null), v, false);
                }
            }
        }
        _ => *into = value.clone(),
    }
}
