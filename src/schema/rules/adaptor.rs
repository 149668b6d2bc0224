//! The structural schema as the CEL engine's [`cel::Schema`] (kube's
//! `apiextensions-apiserver/pkg/apiserver/schema/cel/model.SchemaAdaptor`): getters over the
//! parsed node, nothing copied, so declarations and cost budgets read it directly.

use serde_json::Value;

use crate::cel::schema as cel;
use crate::schema::{Additional, ListType, Schema, SchemaType};

impl cel::Schema for Schema {
    fn type_(&self) -> cel::SchemaType {
        match self.type_ {
            SchemaType::Unset => cel::SchemaType::Unset,
            SchemaType::Object => cel::SchemaType::Object,
            SchemaType::Array => cel::SchemaType::Array,
            SchemaType::String => cel::SchemaType::String,
            SchemaType::Integer => cel::SchemaType::Integer,
            SchemaType::Number => cel::SchemaType::Number,
            SchemaType::Boolean => cel::SchemaType::Boolean,
        }
    }

    fn format(&self) -> &str {
        &self.format
    }

    fn items(&self) -> Option<&Self> {
        self.items.as_deref()
    }

    fn properties(&self) -> impl Iterator<Item = (&str, &Self)> {
        self.properties.iter().map(|(name, s)| (name.as_str(), s))
    }

    fn additional_properties(&self) -> Option<cel::AdditionalProperties<'_, Self>> {
        match self.additional_properties.as_ref()? {
            Additional::Allowed(allows) => Some(cel::AdditionalProperties::Allows(*allows)),
            Additional::Schema(s) => Some(cel::AdditionalProperties::Schema(s)),
        }
    }

    fn has_default(&self) -> bool {
        self.default.is_some()
    }

    fn required(&self) -> &[String] {
        &self.required
    }

    fn enum_(&self) -> &[Value] {
        &self.enum_
    }

    fn max_length(&self) -> Option<i64> {
        self.max_length
    }

    fn max_items(&self) -> Option<i64> {
        self.max_items
    }

    fn max_properties(&self) -> Option<i64> {
        self.max_properties
    }

    fn is_x_int_or_string(&self) -> bool {
        self.int_or_string
    }

    fn is_x_embedded_resource(&self) -> bool {
        self.embedded_resource
    }

    fn x_list_type(&self) -> Option<cel::ListType> {
        self.list_type.map(|t| match t {
            ListType::Atomic => cel::ListType::Atomic,
            ListType::Set => cel::ListType::Set,
            ListType::Map => cel::ListType::Map,
        })
    }

    fn x_list_map_keys(&self) -> &[String] {
        &self.list_map_keys
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::cel::schema::{AdditionalProperties, ListType, Schema as _, SchemaType};
    use crate::schema::Schema;

    #[test]
    fn adaptor_getters_read_the_parsed_keywords() {
        let s = Schema::parse(&json!({
            "type": "array", "format": "f", "default": [], "maxLength": 1, "maxItems": 2,
            "maxProperties": 3, "required": ["a"], "enum": ["x"],
            "x-kubernetes-int-or-string": true, "x-kubernetes-embedded-resource": true,
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
            "items": {"type": "integer"},
            "properties": {"p": {"type": "boolean"}, "q": {"type": "number"}},
            "additionalProperties": false}));
        assert_eq!(s.type_(), SchemaType::Array);
        assert_eq!(s.format(), "f");
        assert!(s.has_default());
        let bounds = (s.max_length(), s.max_items(), s.max_properties());
        assert_eq!(bounds, (Some(1), Some(2), Some(3)));
        assert_eq!(
            (s.required(), s.enum_()),
            (&["a".into()][..], &[json!("x")][..])
        );
        assert!(s.is_x_int_or_string() && s.is_x_embedded_resource());
        assert_eq!(s.x_list_type(), Some(ListType::Map));
        assert_eq!(s.x_list_map_keys(), ["k"]);
        assert_eq!(s.items().map(|i| i.type_()), Some(SchemaType::Integer));
        let properties: Vec<_> = s.properties().map(|(n, p)| (n, p.type_())).collect();
        let want = [("p", SchemaType::Boolean), ("q", SchemaType::Number)];
        assert_eq!(properties, want);
        assert!(matches!(
            s.additional_properties(),
            Some(AdditionalProperties::Allows(false))
        ));
    }

    #[test]
    fn adaptor_types_and_list_types_map_one_to_one() {
        let types = [
            ("object", SchemaType::Object),
            ("array", SchemaType::Array),
            ("string", SchemaType::String),
            ("integer", SchemaType::Integer),
            ("number", SchemaType::Number),
            ("boolean", SchemaType::Boolean),
            ("", SchemaType::Unset),
        ];
        for (name, want) in types {
            assert_eq!(
                Schema::parse(&json!({"type": name})).type_(),
                want,
                "{name}"
            );
        }
        let list_types = [
            ("atomic", ListType::Atomic),
            ("set", ListType::Set),
            ("map", ListType::Map),
        ];
        for (name, want) in list_types {
            let s = Schema::parse(&json!({"x-kubernetes-list-type": name}));
            assert_eq!(s.x_list_type(), Some(want), "{name}");
        }
    }

    #[test]
    fn adaptor_absent_keywords_read_as_absent() {
        let s = Schema::parse(&json!({"additionalProperties": {"type": "string"}}));
        assert_eq!(s.type_(), SchemaType::Unset);
        assert_eq!(
            (s.format(), s.has_default(), s.items().is_none()),
            ("", false, true)
        );
        let bounds = (s.max_length(), s.max_items(), s.max_properties());
        assert_eq!(bounds, (None, None, None));
        assert!(!s.is_x_int_or_string() && !s.is_x_embedded_resource());
        assert_eq!((s.x_list_type(), s.properties().count()), (None, 0));
        let Some(AdditionalProperties::Schema(values)) = s.additional_properties() else {
            panic!("additionalProperties schema expected");
        };
        assert_eq!(values.type_(), SchemaType::String);
    }
}
