//! Decoding stage: defaulting of custom objects by their structural schema, and the
//! removal of nulls that cannot be kept or defaulted (apiextensions-apiserver
//! `schema/defaulting`).

use serde_json::Value;

use super::{Additional, Schema};

/// Applies the schema's defaults to `x` (deep copies). A field gets its default when it
/// is absent, or null while not nullable; defaults apply only where the parent object
/// exists, and a default value is itself defaulted further down. `additionalProperties`
/// values and array items that are null while not nullable get their schema's default.
///
/// Runs after [`prune_non_nullable_nulls_without_defaults`] (part of pruning), which
/// leaves only the nulls that have a default.
pub fn default(x: &mut Value, s: &Schema) {
    match x {
        Value::Object(map) => {
            for (k, prop) in &s.properties {
                let Some(d) = &prop.default else {
                    continue;
                };
                match map.get_mut(k) {
                    None => {
                        map.insert(k.clone(), d.clone());
                    }
                    Some(v) if v.is_null() && !prop.nullable => *v = d.clone(),
                    Some(_) => {}
                }
            }
            let extra = match &s.additional_properties {
                Some(Additional::Schema(extra)) => Some(&**extra),
                _ => None,
            };
            for (k, v) in map.iter_mut() {
                if let Some(prop) = s.properties.get(k) {
                    default(v, prop);
                } else if let Some(extra) = extra {
                    default_null(v, extra);
                    default(v, extra);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = s.items.as_deref() {
                for v in items {
                    default_null(v, item);
                    default(v, item);
                }
            }
        }
        _ => {}
    }
}

fn default_null(v: &mut Value, s: &Schema) {
    if let (true, Some(d)) = (v.is_null() && !s.nullable, &s.default) {
        *v = d.clone();
    }
}

/// Removes the object fields (and map values) that are null while their schema is
/// neither nullable nor defaulted. Nulls with a default are left for [`default`]; array
/// items are never removed.
pub fn prune_non_nullable_nulls_without_defaults(x: &mut Value, s: &Schema) {
    match x {
        Value::Object(map) => {
            let mut nulls = Vec::new();
            for (k, v) in map.iter_mut() {
                match s.property(k) {
                    Some(sub) if v.is_null() && !sub.nullable && sub.default.is_none() => {
                        nulls.push(k.clone());
                    }
                    Some(sub) => prune_non_nullable_nulls_without_defaults(v, sub),
                    None => {}
                }
            }
            for k in nulls {
                map.remove(&k);
            }
        }
        Value::Array(items) => {
            if let Some(item) = s.items.as_deref() {
                for v in items {
                    prune_non_nullable_nulls_without_defaults(v, item);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crontab() -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "cronSpec": {"type": "string", "default": "5 0 * * *"},
            "image": {"type": "string"},
            "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1}}}}})
    }

    #[test]
    fn default_table() {
        let nullable = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"foo": {"type": "string", "nullable": false, "default": "default"},
                "bar": {"type": "string", "nullable": true},
                "baz": {"type": "string"}}}}});
        let nested = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"a": {"type": "object",
                "properties": {"b": {"type": "string", "default": "x"}}}}}}});
        let cases = [
            (
                "default_crontab_cron_spec_and_replicas_defaulted",
                crontab(),
                json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                    "metadata": {"name": "my-new-cron-object"},
                    "spec": {"image": "my-awesome-cron-image"}}),
                json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                    "metadata": {"name": "my-new-cron-object"},
                    "spec": {"cronSpec": "5 0 * * *", "image": "my-awesome-cron-image",
                        "replicas": 1}}),
            ),
            (
                "default_nullable_seed_foo_defaulted_bar_kept_baz_pruned",
                nullable,
                json!({"spec": {"foo": null, "bar": null, "baz": null}}),
                json!({"spec": {"foo": "default", "bar": null}}),
            ),
            (
                "default_set_values_kept",
                crontab(),
                json!({"spec": {"cronSpec": "1 * * * *", "replicas": 3}}),
                json!({"spec": {"cronSpec": "1 * * * *", "replicas": 3}}),
            ),
            (
                "default_absent_parent_not_created",
                nested.clone(),
                json!({}),
                json!({}),
            ),
            (
                "default_present_parent_filled",
                nested,
                json!({"spec": {"a": {}}}),
                { json!({"spec": {"a": {"b": "x"}}}) },
            ),
            (
                "default_default_value_defaulted_further",
                json!({"type": "object", "properties": {"spec": {"type": "object",
                    "default": {}, "properties": {"n": {"type": "integer", "default": 2}}}}}),
                json!({}),
                json!({"spec": {"n": 2}}),
            ),
            (
                "default_map_values_and_items_null_defaulted",
                json!({"type": "object", "properties": {
                    "m": {"type": "object", "additionalProperties": {"type": "string",
                        "default": "d"}},
                    "l": {"type": "array", "items": {"type": "string", "default": "d"}},
                    "n": {"type": "array", "items": {"type": "string"}}}}),
                json!({"m": {"a": null, "b": "b"}, "l": [null, "x"], "n": [null]}),
                json!({"m": {"a": "d", "b": "b"}, "l": ["d", "x"], "n": [null]}),
            ),
            (
                "default_nullable_null_kept",
                json!({"type": "object", "properties": {"a": {"type": "string",
                    "nullable": true, "default": "x"}}}),
                json!({"a": null}),
                json!({"a": null}),
            ),
        ];
        for (name, schema, mut object, want) in cases {
            let schema = Schema::parse(&schema);
            crate::schema::prune::prune(&mut object, &schema);
            default(&mut object, &schema);
            assert_eq!(object, want, "{name}");
        }
    }
}
