//! Request stage: duplicate fields of a request body, found as kube's strict decoders
//! find them (`fieldValidation=Strict` or `Warn`), in their exact words.
//!
//! The strict-decoding errors for duplicate fields, to be joined with `", "` after
//! `strict decoding error: ` (unknown fields follow them):
//!
//! - JSON: one `duplicate field "spec.replicas"` per duplicated path, in document order
//!   (sigs.k8s.io/json), found by the request's decode itself ([`json::decode`]);
//! - YAML: a single `yaml: unmarshal errors:\n  line 4: key "replicas" already set in map`
//!   listing every duplicate key with the line of its second value (go-yaml v2 strict),
//!   from [`yaml::duplicates`] (a YAML body that is compact JSON goes through
//!   `json::decode` first, and here only when it has a duplicate: `request::yaml_json`).
//!
//! A body that does not parse yields nothing: decoding reports it.

pub mod json;
pub mod yaml;

#[cfg(test)]
mod tests {
    use super::*;

    /// The duplicate fields of a JSON body, as the request decode reports them.
    fn duplicate_fields(body: &[u8]) -> Vec<String> {
        let text = crate::request::gojson::lossy(body);
        json::decode(&text, true).map_or_else(|_| Vec::new(), |(_, found)| found)
    }

    #[test]
    fn duplicate_fields_json_table() {
        let cases: &[(&str, &str, &[&str])] = &[
            ("json_no_duplicates_none", r#"{"a":1,"b":{"a":2}}"#, &[]),
            (
                "json_top_level_duplicate_reported",
                r#"{"a":1,"a":2}"#,
                &[r#"duplicate field "a""#],
            ),
            (
                "json_nested_duplicate_reported_with_path",
                r#"{"spec":{"replicas":1,"replicas":2}}"#,
                &[r#"duplicate field "spec.replicas""#],
            ),
            (
                "json_duplicate_in_array_item_reported_with_index",
                r#"{"spec":{"items":[{"a":1},{"a":1,"a":2}]}}"#,
                &[r#"duplicate field "spec.items[1].a""#],
            ),
            (
                "json_repeated_thrice_reported_once",
                r#"{"a":1,"a":2,"a":3}"#,
                &[r#"duplicate field "a""#],
            ),
            (
                "json_document_order_kept",
                r#"{"s":{"x":1},"s":{"y":1,"y":2},"b":1,"b":2}"#,
                &[
                    r#"duplicate field "s""#,
                    r#"duplicate field "s.y""#,
                    r#"duplicate field "b""#,
                ],
            ),
            (
                "json_escaped_key_quoted_like_go",
                r#"{"a\"b\n":1,"a\"b\n":2}"#,
                &[r#"duplicate field "a\"b\n""#],
            ),
            ("json_invalid_body_none", r#"{"a":1,"a":2"#, &[]),
            ("json_trailing_garbage_none", r#"{"a":1,"a":2} x"#, &[]),
        ];
        for (name, body, want) in cases {
            assert_eq!(duplicate_fields(body.as_bytes()), *want, "{name}");
        }
    }

    #[test]
    fn duplicate_fields_json_many_keys_found() {
        let keys: Vec<String> = (0..40).map(|i| format!(r#""k{i}":1"#)).collect();
        let body = format!("{{{},\"k39\":2}}", keys.join(","));
        assert_eq!(
            duplicate_fields(body.as_bytes()),
            [r#"duplicate field "k39""#]
        );
    }

    #[test]
    fn duplicate_fields_json_repeated_under_long_key_rendered_once() {
        let key = "k".repeat(1_500_000);
        let body = format!(r#"{{"{key}":{{{}}}}}"#, vec![r#""a":1"#; 50_000].join(","));
        let want = format!(r#"duplicate field "{key}.a""#);
        assert_eq!(duplicate_fields(body.as_bytes()), [want]);
    }

    #[test]
    fn duplicate_fields_json_capped_by_count_and_bytes() {
        let items = vec![r#"{"a":1,"a":2}"#; 300].join(",");
        let found = duplicate_fields(format!(r#"{{"l":[{items}]}}"#).as_bytes());
        assert_eq!(found.len(), json::MAX_ERRORS);
        assert_eq!(found[99], r#"duplicate field "l[99].a""#);
        let key = "k".repeat(600_000);
        let found = duplicate_fields(format!(r#"{{"{key}":[{items}]}}"#).as_bytes());
        assert_eq!(found.len(), 2);
        assert_eq!(found[1], format!(r#"duplicate field "{key}[1].a""#));
    }
}
