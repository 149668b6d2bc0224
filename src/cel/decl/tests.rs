//! The schema → CEL type mapping and size bounds, against kube's `SchemaDeclType`.

use serde_json::json;

use super::*;
use crate::schema::Schema;

fn decl(schema: serde_json::Value) -> Arc<DeclType> {
    DeclType::from_schema(&Schema::parse(&schema), false, "self").expect("typed")
}

#[test]
fn escape_property_names_as_kube() {
    let cases = [
        ("foo", Some("foo")),
        ("foo-bar", Some("foo__dash__bar")),
        ("foo.bar", Some("foo__dot__bar")),
        ("foo/bar", Some("foo__slash__bar")),
        ("foo__bar", Some("foo__underscores__bar")),
        ("_foo", Some("_foo")),
        ("namespace", Some("__namespace__")),
        ("true", Some("__true__")),
        ("in", Some("__in__")),
        ("1foo", None),
        ("", None),
        ("foo bar", None),
        ("föö", None),
    ];
    for (name, want) in cases {
        assert_eq!(escape(name).as_deref(), want, "{name}");
    }
}

#[test]
fn from_schema_scalar_types_map_to_cel_types() {
    let cases = [
        (json!({"type": "string"}), "string"),
        (json!({"type": "integer"}), "int"),
        (json!({"type": "number"}), "double"),
        (json!({"type": "boolean"}), "bool"),
        (
            json!({"type": "string", "format": "date-time"}),
            "google.protobuf.Timestamp",
        ),
        (
            json!({"type": "string", "format": "date"}),
            "google.protobuf.Timestamp",
        ),
        (
            json!({"type": "string", "format": "duration"}),
            "google.protobuf.Duration",
        ),
        (json!({"type": "string", "format": "byte"}), "bytes"),
        (json!({"x-kubernetes-int-or-string": true}), "dyn"),
        (
            json!({"type": "array", "items": {"type": "integer"}}),
            "list(int)",
        ),
        (
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            "map(string, string)",
        ),
    ];
    for (schema, want) in cases {
        assert_eq!(
            decl(schema.clone()).cel_type().to_string(),
            want,
            "{schema}"
        );
    }
}

#[test]
fn from_schema_untyped_node_has_no_declaration() {
    let schema = Schema::parse(&json!({"x-kubernetes-preserve-unknown-fields": true}));
    assert!(DeclType::from_schema(&schema, false, "self").is_none());
    let list = Schema::parse(&json!({"type": "array"}));
    assert!(DeclType::from_schema(&list, false, "self").is_none());
}

#[test]
fn from_schema_object_fields_escaped_and_untyped_dropped() {
    let d = decl(json!({"type": "object", "properties": {
        "foo-bar": {"type": "string"},
        "namespace": {"type": "string"},
        "raw": {"x-kubernetes-preserve-unknown-fields": true},
        "9lives": {"type": "string"}}}));
    assert!(d.field("foo__dash__bar").is_some());
    assert!(d.field("__namespace__").is_some());
    assert!(d.field("raw").is_none());
    assert!(d.field("9lives").is_none());
    assert_eq!(
        d.field("foo__dash__bar").map(|f| f.json_name.as_str()),
        Some("foo-bar")
    );
}

#[test]
fn from_schema_resource_root_sees_only_name_and_generate_name() {
    let schema = Schema::parse(&json!({"type": "object", "properties": {
        "metadata": {"type": "object", "properties": {"labels": {"type": "object",
            "additionalProperties": {"type": "string"}}}},
        "spec": {"type": "object"}}}));
    let root = DeclType::from_schema(&schema, true, "self").expect("typed");
    let meta = &root.field("metadata").expect("metadata").decl;
    assert!(meta.field("name").is_some());
    assert!(meta.field("generateName").is_some());
    assert!(meta.field("labels").is_none());
    assert!(root.field("apiVersion").is_some());
    assert!(root.field("kind").is_some());
}

#[test]
fn from_schema_sizes_follow_kube_bounds() {
    const MAX: i64 = MAX_REQUEST_SIZE_BYTES;
    let cases = [
        // maxLength counts code points: 4 bytes each.
        (json!({"type": "string", "maxLength": 10}), 40, 2),
        (json!({"type": "string"}), MAX - 2, 2),
        (json!({"type": "string", "enum": ["a", "abcd"]}), 4, 2),
        (
            json!({"type": "string", "format": "byte", "maxLength": 10}),
            10,
            2,
        ),
        (json!({"type": "string", "format": "date-time"}), 32, 21),
        (json!({"type": "string", "format": "duration"}), 32, 3),
        (json!({"type": "string", "format": "date"}), 12, 12),
        (
            json!({"type": "array", "maxItems": 5, "items": {"type": "string"}}),
            5,
            2,
        ),
        // Unbounded: the request size over the smallest item plus a comma.
        (
            json!({"type": "array", "items": {"type": "integer"}}),
            (MAX - 2) / 2,
            2,
        ),
        (
            json!({"type": "array", "items": {"type": "string"}}),
            (MAX - 2) / 3,
            2,
        ),
        (
            json!({"type": "object", "additionalProperties": {"type": "boolean"}}),
            (MAX - 2) / 10,
            2,
        ),
        (
            json!({"type": "object", "maxProperties": 3, "additionalProperties": {"type": "boolean"}}),
            3,
            2,
        ),
        // Required properties without default count towards the smallest object.
        (
            json!({"type": "object", "required": ["ab"], "properties": {
                "ab": {"type": "integer"}, "c": {"type": "string"}}}),
            0,
            2 + 2 + 1 + 4,
        ),
    ];
    for (schema, max, min) in cases {
        let d = decl(schema.clone());
        assert_eq!(
            (d.max_elements, d.min_serialized_size),
            (max, min),
            "{schema}"
        );
    }
}

#[test]
fn from_schema_resource_root_meta_is_plain_strings_required_as_the_root_says() {
    const MAX: i64 = MAX_REQUEST_SIZE_BYTES;
    let schema = Schema::parse(&json!({"type": "object",
        "required": ["metadata", "kind", "spec"], "properties": {
        "kind": {"type": "integer"},
        "metadata": {"type": "object", "properties": {"labels": {"type": "object"}}},
        "spec": {"type": "object", "default": {}}}}));
    let root = DeclType::from_schema(&schema, true, "self").expect("typed");
    // `{}` + `"kind":""` (4+2+4) + `"metadata":{}` (8+2+4); spec has a default.
    assert_eq!(root.min_serialized_size, 2 + 10 + 14);
    let sizes = |d: &DeclType| (d.max_elements, d.min_serialized_size);
    let required = |d: &DeclType, name: &str| d.field(name).map(|f| f.required);
    assert_eq!(required(&root, "kind"), Some(true));
    assert_eq!(required(&root, "apiVersion"), Some(false));
    assert_eq!(required(&root, "metadata"), Some(true));
    assert_eq!(required(&root, "spec"), Some(true));
    for name in ["kind", "apiVersion"] {
        let decl = &root.field(name).expect("declared").decl;
        assert_eq!(decl.cel_type().to_string(), "string", "{name}");
        assert_eq!(sizes(decl), (MAX - 2, 2), "{name}");
    }
    let meta = &root.field("metadata").expect("metadata").decl;
    assert_eq!((meta.name.as_str(), sizes(meta)), ("self.metadata", (0, 2)));
    assert!(meta.field("labels").is_none());
    for name in ["name", "generateName"] {
        let field = meta.field(name).expect("declared");
        assert_eq!((field.json_name.as_str(), field.required), (name, false));
        assert_eq!(field.decl.cel_type().to_string(), "string", "{name}");
        assert_eq!(sizes(&field.decl), (MAX - 2, 2), "{name}");
    }
}

/// A schema that is not the structural one: the engine needs nothing but its trait.
struct Plain {
    type_: SchemaType,
    items: Option<Box<Plain>>,
    list_type: Option<ListType>,
    max_items: Option<i64>,
}

impl crate::cel::schema::Schema for Plain {
    fn type_(&self) -> SchemaType {
        self.type_
    }
    fn format(&self) -> &str {
        ""
    }
    fn items(&self) -> Option<&Self> {
        self.items.as_deref()
    }
    fn properties(&self) -> impl Iterator<Item = (&str, &Self)> {
        std::iter::empty()
    }
    fn additional_properties(&self) -> Option<AdditionalProperties<'_, Self>> {
        None
    }
    fn has_default(&self) -> bool {
        false
    }
    fn required(&self) -> &[String] {
        &[]
    }
    fn enum_(&self) -> &[serde_json::Value] {
        &[]
    }
    fn max_length(&self) -> Option<i64> {
        None
    }
    fn max_items(&self) -> Option<i64> {
        self.max_items
    }
    fn max_properties(&self) -> Option<i64> {
        None
    }
    fn is_x_int_or_string(&self) -> bool {
        false
    }
    fn is_x_embedded_resource(&self) -> bool {
        false
    }
    fn x_list_type(&self) -> Option<ListType> {
        self.list_type
    }
    fn x_list_map_keys(&self) -> &[String] {
        &[]
    }
}

#[test]
fn from_schema_any_trait_schema_declares_set_list() {
    let int = Plain {
        type_: SchemaType::Integer,
        items: None,
        list_type: None,
        max_items: None,
    };
    let set = Plain {
        type_: SchemaType::Array,
        items: Some(Box::new(int)),
        list_type: Some(ListType::Set),
        max_items: Some(7),
    };
    let d = DeclType::from_schema(&set, false, "self").expect("typed");
    assert_eq!(d.cel_type().to_string(), "list(int)");
    assert_eq!(d.max_elements, 7);
    assert!(matches!(
        d.kind,
        DeclKind::List {
            list_type: ListType::Set,
            ..
        }
    ));
    let cost = crate::cel::cost::budget::child_cardinality(Some(2), &set);
    assert_eq!(cost, Some(14));
}
