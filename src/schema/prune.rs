//! Decoding stage: pruning of what a custom object's structural schema does not know,
//! as kube's `unstructuredSchemaCoercer` does (apiextensions-apiserver `pruning`,
//! `objectmeta` and `defaulting.PruneNonNullableNullsWithoutDefaults`).

use serde_json::{Map, Value};

use super::default::prune_non_nullable_nulls_without_defaults;
use super::{Additional, Schema};
use objectmeta::reduce_object_meta;

mod objectmeta;

/// Prunes a whole custom object, the resource root, in kube's order:
///
/// 1. the root `metadata` is reduced to `ObjectMeta` (unknown fields dropped, empty
///    values omitted, timestamps normalised);
/// 2. fields the schema does not specify are pruned; `apiVersion`, `kind` and `metadata`
///    are kept at the root and in `x-kubernetes-embedded-resource` nodes, and
///    `x-kubernetes-preserve-unknown-fields` keeps a node's unspecified fields;
/// 3. nulls of non-nullable fields without a default are removed;
/// 4. the `metadata` of embedded resources is reduced to `ObjectMeta`.
///
/// Returns the paths of the fields dropped as kube prints them in `unknown field "<path>"`:
/// the root metadata's first (in key order), then the pruned ones sorted, then those of
/// embedded metadata sorted.
///
/// Deliberate deviation for pathological input: paths stop being recorded once they hold
/// [`PATH_TEXT_BUDGET`] bytes (a megabyte-long key would otherwise be copied into the
/// path of every field pruned beneath it). The object is still pruned entirely, and a
/// prune that drops anything reports at least one path.
pub fn prune(object: &mut Value, schema: &Schema) -> Vec<String> {
    prune_recording(object, schema, PATH_TEXT_BUDGET)
}

/// [`prune`] for callers that ignore the paths (`fieldValidation=Ignore`, stored objects
/// read back): no path is rendered.
pub fn prune_silently(object: &mut Value, schema: &Schema) {
    prune_recording(object, schema, 0);
}

/// Bytes of path text [`prune`] records at most (plus the path that crosses it).
pub const PATH_TEXT_BUDGET: usize = 1 << 20;

fn prune_recording(object: &mut Value, schema: &Schema, budget: usize) -> Vec<String> {
    let Value::Object(root) = object else {
        return Vec::new();
    };
    let mut walk = Walk {
        left: budget,
        ..Walk::default()
    };
    let mut meta_paths = Vec::new();
    let metadata = root.remove_entry("metadata").map(|(key, mut meta)| {
        if meta.is_null() {
            meta = Value::Object(Map::new());
        }
        reduce_object_meta(
            &mut meta,
            &Path::Prop(&Path::Root, "metadata"),
            &mut Recorder::new(&mut meta_paths, &mut walk.left),
        );
        (key, meta)
    });
    walk.prune(object, Some(schema), true, &Path::Root);
    prune_non_nullable_nulls_without_defaults(object, schema);
    if let (Some((key, meta)), Value::Object(root)) = (metadata, &mut *object) {
        root.insert(key, meta);
    }
    walk.pruned.sort();
    walk.embedded.sort();
    meta_paths.extend(walk.pruned);
    meta_paths.extend(walk.embedded);
    meta_paths
}

/// kube's `pruning.Prune`: the pruning walk alone over any value, treating it as a
/// resource root (apiVersion, kind and metadata kept) when `is_resource_root`. Used to
/// check that schema defaults are pruned.
pub fn prune_value(value: &mut Value, schema: &Schema, is_resource_root: bool) {
    Walk::default().prune(value, Some(schema), is_resource_root, &Path::Root);
}

/// Where dropped paths go, rendered while the prune's byte budget lasts.
struct Recorder<'a> {
    list: &'a mut Vec<String>,
    left: &'a mut usize,
}

impl<'a> Recorder<'a> {
    fn new(list: &'a mut Vec<String>, left: &'a mut usize) -> Self {
        Recorder { list, left }
    }

    /// Records `path` (see [`Path::render`]) unless the budget is spent.
    fn record(&mut self, path: &Path, brackets: bool) {
        if *self.left == 0 {
            return;
        }
        let text = path.render(brackets);
        *self.left = self.left.saturating_sub(text.len().max(1));
        self.list.push(text);
    }
}

/// Where a value sits, rendered into a string only when something there is dropped.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    /// A field of an object.
    Prop(&'a Path<'a>, &'a str),
    /// A key of an `additionalProperties` map: `.key` when pruning, `[key]` in the
    /// `field.Path` that embedded metadata is reported under.
    Extra(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    /// The path as pruning prints it (`spec.map.key.field`), or with `brackets` as
    /// `field.Path` does (`spec.map[key].field`).
    fn render(&self, brackets: bool) -> String {
        let mut out = String::new();
        self.write(&mut out, brackets);
        out
    }

    fn write(&self, out: &mut String, brackets: bool) {
        match *self {
            Path::Root => {}
            Path::Prop(parent, key) | Path::Extra(parent, key) => {
                parent.write(out, brackets);
                if brackets && matches!(self, Path::Extra(..)) {
                    out.extend(["[", key, "]"]);
                } else {
                    if !matches!(parent, Path::Root) {
                        out.push('.');
                    }
                    out.push_str(key);
                }
            }
            Path::Index(parent, i) => {
                parent.write(out, brackets);
                out.extend(["[", &i.to_string(), "]"]);
            }
        }
    }
}

fn is_type_or_object_meta(key: &str) -> bool {
    matches!(key, "apiVersion" | "kind" | "metadata")
}

/// The schema of an `additionalProperties` value; `None` (prune everything) for a bare
/// boolean, as kube's structural schema holds no node there.
fn additional(schema: &Schema) -> Option<Option<&Schema>> {
    match &schema.additional_properties {
        None => None,
        Some(Additional::Allowed(_)) => Some(None),
        Some(Additional::Schema(s)) => Some(Some(s)),
    }
}

/// One pruning walk. Embedded metadata is reduced during the same walk (kube's
/// `objectmeta.Coerce` follows the same properties), its paths kept apart.
#[derive(Default)]
struct Walk {
    pruned: Vec<String>,
    embedded: Vec<String>,
    /// Bytes of path text still to record (none by default).
    left: usize,
}

impl Walk {
    fn prune(&mut self, x: &mut Value, s: Option<&Schema>, root: bool, path: &Path) {
        let Some(s) = s else {
            return self.prune_all(x, path);
        };
        if s.preserve_unknown_fields {
            return self.skip_prune(x, s, root, path);
        }
        match x {
            Value::Object(map) => {
                let embedded = root || s.embedded_resource;
                if s.embedded_resource {
                    self.reduce_embedded_meta(map, s, path);
                }
                let mut unknown = Vec::new();
                for (k, v) in map.iter_mut() {
                    if embedded && is_type_or_object_meta(k) {
                        continue;
                    } else if let Some(prop) = s.properties.get(k) {
                        self.prune(v, Some(prop), false, &Path::Prop(path, k));
                    } else if let Some(extra) = additional(s) {
                        self.prune(v, extra, false, &Path::Extra(path, k));
                    } else {
                        unknown.push(k.clone());
                    }
                }
                for k in unknown {
                    self.record_pruned(&Path::Prop(path, &k));
                    map.remove(&k);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter_mut().enumerate() {
                    self.prune(v, s.items.as_deref(), false, &Path::Index(path, i));
                }
            }
            _ => {}
        }
    }

    /// Pruning without a schema: every field of every object is dropped.
    fn prune_all(&mut self, x: &mut Value, path: &Path) {
        match x {
            Value::Object(map) => {
                for k in map.keys() {
                    self.record_pruned(&Path::Prop(path, k));
                }
                map.clear();
            }
            Value::Array(items) => {
                for (i, v) in items.iter_mut().enumerate() {
                    self.prune_all(v, &Path::Index(path, i));
                }
            }
            _ => {}
        }
    }

    /// Under `x-kubernetes-preserve-unknown-fields`: unspecified fields stay, specified
    /// ones are pruned again; array items keep preserving (kube's `skipPrune`).
    fn skip_prune(&mut self, x: &mut Value, s: &Schema, root: bool, path: &Path) {
        match x {
            Value::Object(map) => {
                let embedded = root || s.embedded_resource;
                if s.embedded_resource {
                    self.reduce_embedded_meta(map, s, path);
                }
                for (k, v) in map.iter_mut() {
                    if embedded && is_type_or_object_meta(k) {
                        continue;
                    }
                    if let Some(prop) = s.properties.get(k) {
                        self.prune(v, Some(prop), false, &Path::Prop(path, k));
                    } else if let Some(extra) = additional(s) {
                        self.prune(v, extra, false, &Path::Extra(path, k));
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item) = s.items.as_deref() {
                    for (i, v) in items.iter_mut().enumerate() {
                        self.skip_prune(v, item, false, &Path::Index(path, i));
                    }
                }
            }
            _ => {}
        }
    }

    /// An embedded resource's `metadata` through `ObjectMeta`. A null that the null
    /// pruning removes next (non-nullable, no default) is left to it, as kube reduces
    /// metadata after that step.
    fn reduce_embedded_meta(&mut self, map: &mut Map<String, Value>, s: &Schema, path: &Path) {
        let Some(meta) = map.get_mut("metadata") else {
            return;
        };
        if meta.is_null() {
            if s.property("metadata")
                .is_some_and(|m| !m.nullable && m.default.is_none())
            {
                return;
            }
            *meta = Value::Object(Map::new());
        }
        let mut out = Recorder::new(&mut self.embedded, &mut self.left);
        reduce_object_meta(meta, &Path::Prop(path, "metadata"), &mut out);
    }

    fn record_pruned(&mut self, path: &Path) {
        Recorder::new(&mut self.pruned, &mut self.left).record(path, false);
    }
}

#[cfg(test)]
mod tests;
