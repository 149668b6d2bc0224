//! Every `default` kube validates at CRD creation (`structuraldefaulting.ValidateDefaults`
//! walks `items` and `properties`, never `additionalProperties` or logical junctors), for
//! the caller to validate and prune each default against its node's schema.

use serde_json::Value;

use super::access::{X_EMBEDDED, flag, get, item_schema, properties};

/// One default value and where it sits.
#[derive(Clone, Debug, PartialEq)]
pub struct DefaultSite {
    /// Field path of the default itself: `<node path>.default`.
    pub path: String,
    /// The default value.
    pub value: Value,
    /// The schema node (JSON) the default belongs to.
    pub schema: Value,
    /// True under `apiVersion`, `kind` or `metadata` of a resource root (the schema root or
    /// an `x-kubernetes-embedded-resource`), where kube validates the default as object meta
    /// of the surrounding resource instead of pruning it.
    pub inside_meta: bool,
    /// The schema of the enclosing resource root (the schema root or the nearest embedded
    /// resource), against which defaults inside meta are checked.
    pub resource_root: Value,
}

/// `(path of the default, default value, the node's schema)` for every default, in kube's
/// walk order (items first, then properties in key order).
pub fn defaults(schema: &Value, path: &str) -> Vec<(String, Value, Value)> {
    default_sites(schema, path)
        .into_iter()
        .map(|site| (site.path, site.value, site.schema))
        .collect()
}

/// Every default with the context kube validates it in.
pub fn default_sites(schema: &Value, path: &str) -> Vec<DefaultSite> {
    let mut sites = Vec::new();
    walk(schema, path, schema, false, &mut sites);
    sites
}

fn walk(schema: &Value, path: &str, root: &Value, inside_meta: bool, out: &mut Vec<DefaultSite>) {
    let is_resource_root = std::ptr::eq(schema, root) || flag(schema, X_EMBEDDED);
    let (root, inside_meta) = if is_resource_root {
        (schema, false)
    } else {
        (root, inside_meta)
    };
    if let Some(value) = get(schema, "default") {
        out.push(DefaultSite {
            path: format!("{path}.default"),
            value: value.clone(),
            schema: schema.clone(),
            inside_meta,
            resource_root: root.clone(),
        });
    }
    if let Some(items) = item_schema(schema) {
        walk(items, &format!("{path}.items"), root, inside_meta, out);
    }
    for (key, child) in properties(schema) {
        let meta = matches!(key.as_str(), "metadata" | "apiVersion" | "kind");
        let child_meta = inside_meta || (is_resource_root && meta);
        walk(
            child,
            &format!("{path}.properties[{key}]"),
            root,
            child_meta,
            out,
        );
    }
}
