//! Table tests for the `x-kubernetes-*` extension rules: object-meta restrictions, embedded
//! resources, the int-or-string patterns, and list and map types.

use super::tests::assert_cases;

const FORBIDDEN_METADATA: &str = "P.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified";

const CASES_METADATA: &[(&str, &str, &[&str])] = &[
    (
        "non-properties",
        "{type: object, properties: {metadata: {minimum: 42.0}}}",
        &[
            "P.properties[metadata].type: Invalid value: \"\": must be object",
            "P.properties[metadata].type: Required value: must not be empty for specified object fields",
            FORBIDDEN_METADATA,
        ],
    ),
    (
        "other properties",
        "{type: object, properties: {metadata: {properties: {name: {pattern: '^[a-z]+$'}, labels: {type: object, maxLength: 4}}}}}",
        &[
            "P.properties[metadata].properties[name].type: Required value: must not be empty for specified object fields",
            "P.properties[metadata].type: Invalid value: \"\": must be object",
            "P.properties[metadata].type: Required value: must not be empty for specified object fields",
            FORBIDDEN_METADATA,
        ],
    ),
    (
        "name",
        "{type: object, properties: {metadata: {type: object, properties: {name: {type: string, pattern: '^[a-z]+$'}}}}}",
        &[],
    ),
    (
        "generate name",
        "{type: object, properties: {metadata: {type: object, properties: {generateName: {type: string, maxLength: 10}}}}}",
        &[],
    ),
    (
        "both",
        "{type: object, properties: {metadata: {type: object, properties: {name: {type: string}, generateName: {type: string}}}}}",
        &[],
    ),
    (
        "description",
        "{type: object, properties: {metadata: {type: object, description: the meta}}}",
        &[FORBIDDEN_METADATA],
    ),
    (
        "wrong type",
        "{type: object, properties: {metadata: {type: string}}}",
        &["P.properties[metadata].type: Invalid value: \"string\": must be object"],
    ),
    (
        "kind type",
        "{type: object, properties: {kind: {type: integer}, apiVersion: {type: string}}}",
        &["P.properties[kind].type: Invalid value: \"integer\": must be string"],
    ),
    (
        "under junctors",
        "{type: object, properties: {metadata: {type: object}}, allOf: [{properties: {metadata: {}}}], not: {properties: {metadata: {}}}}",
        &[
            "P.allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context",
            "P.not.properties[metadata]: Forbidden: must not be specified in a nested context",
        ],
    ),
];

#[test]
fn check_metadata_restrictions_report_kube_message() {
    assert_cases(CASES_METADATA);
}

const CASES_EMBEDDED: &[(&str, &str, &[&str])] = &[
    (
        "int-or-string and preserve",
        "{type: object, properties: {a: {x-kubernetes-preserve-unknown-fields: true, x-kubernetes-int-or-string: true}}}",
        &[
            "P.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true",
        ],
    ),
    (
        "int-or-string and embedded",
        "{type: object, properties: {a: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-int-or-string: true, properties: {kind: {type: string}}}}}",
        &[
            "P.properties[a].x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true",
        ],
    ),
    (
        "embedded without preserve",
        "{type: object, properties: {a: {type: object, x-kubernetes-embedded-resource: true}}}",
        &[
            "P.properties[a].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ],
    ),
    (
        "embedded with properties",
        "{type: object, properties: {a: {type: object, x-kubernetes-embedded-resource: true, properties: {apiVersion: {type: string}, kind: {type: string}, metadata: {type: object}}}}}",
        &[],
    ),
    (
        "embedded with preserve",
        "{type: object, properties: {a: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}}",
        &[],
    ),
    (
        "embedded wrong type",
        "{type: object, properties: {a: {type: array, items: {type: string}, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}}",
        &[
            "P.properties[a].type: Invalid value: \"array\": must be object if x-kubernetes-embedded-resource is true",
        ],
    ),
    (
        "embedded empty type",
        "{type: object, properties: {a: {x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}}",
        &[
            "P.properties[a].type: Required value: must be object if x-kubernetes-embedded-resource is true",
        ],
    ),
    (
        "embedded additional properties",
        "{type: object, properties: {a: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true, additionalProperties: {type: string}}}}",
        &[
            "P.properties[a].additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set",
        ],
    ),
    (
        "embedded kind type",
        "{type: object, properties: {a: {type: object, x-kubernetes-embedded-resource: true, properties: {kind: {type: integer}}}}}",
        &["P.properties[a].properties[kind].type: Invalid value: \"integer\": must be string"],
    ),
];

#[test]
fn check_embedded_and_int_or_string_rules_report_kube_message() {
    assert_cases(CASES_EMBEDDED);
}

const INT_OR_STRING_VARIANTS: &str = r#"
type: object
properties:
  a: {x-kubernetes-int-or-string: true}
  b: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}], allOf: [{pattern: abc}]}
  c: {x-kubernetes-int-or-string: true, allOf: [{anyOf: [{type: integer}, {type: string}]}, {pattern: abc}, {pattern: abc}]}
  d: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string, pattern: abc}]}
  e: {x-kubernetes-int-or-string: true, allOf: [{anyOf: [{type: integer}, {type: string, pattern: abc}]}, {pattern: abc}]}
  f: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}, {pattern: abc}]}
  g: {x-kubernetes-int-or-string: true, anyOf: [{type: string}, {type: integer}]}
"#;

#[test]
fn check_int_or_string_variants_only_kube_patterns_pass() {
    let forbidden =
        |at: &str| format!("P.properties[{at}].type: Forbidden: must be empty to be structural");
    let expected: Vec<String> = [
        "d].anyOf[0",
        "d].anyOf[1",
        "e].allOf[0].anyOf[0",
        "e].allOf[0].anyOf[1",
        "f].anyOf[0",
        "f].anyOf[1",
        "g].anyOf[0",
        "g].anyOf[1",
    ]
    .iter()
    .map(|at| forbidden(at))
    .collect();
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    assert_cases(&[("variants", INT_OR_STRING_VARIANTS, &expected)]);
}

const CASES_LIST_MAP: &[(&str, &str, &[&str])] = &[
    (
        "map type on array",
        "{type: object, properties: {a: {type: array, items: {type: string}, x-kubernetes-map-type: atomic}}}",
        &[
            "P.properties[a].type: Invalid value: \"array\": must be object if x-kubernetes-map-type is specified",
        ],
    ),
    (
        "map type unknown",
        "{type: object, properties: {a: {type: object, x-kubernetes-map-type: fine}}}",
        &[
            "P.properties[a].x-kubernetes-map-type: Unsupported value: \"fine\": supported values: \"atomic\", \"granular\"",
        ],
    ),
    (
        "list type on object",
        "{type: object, properties: {a: {type: object, x-kubernetes-list-type: atomic}}}",
        &[
            "P.properties[a].type: Invalid value: \"object\": must be array if x-kubernetes-list-type is specified",
        ],
    ),
    (
        "list type unknown",
        "{type: object, properties: {a: {type: array, items: {type: string}, x-kubernetes-list-type: bag}}}",
        &[
            "P.properties[a].x-kubernetes-list-type: Unsupported value: \"bag\": supported values: \"atomic\", \"set\", \"map\"",
        ],
    ),
    (
        "set of granular maps",
        "{type: object, properties: {a: {type: array, x-kubernetes-list-type: set, items: {type: object}}}}",
        &[
            "P.properties[a].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set",
        ],
    ),
    (
        "set of set lists",
        "{type: object, properties: {a: {type: array, x-kubernetes-list-type: set, items: {type: array, items: {type: string}, x-kubernetes-list-type: set}}}}",
        &[
            "P.properties[a].items.x-kubernetes-list-type: Invalid value: \"set\": must be atomic as item of a list with x-kubernetes-list-type=set",
        ],
    ),
    (
        "set of nullable",
        "{type: object, properties: {a: {type: array, x-kubernetes-list-type: set, items: {type: string, nullable: true}}}}",
        &[
            "P.properties[a].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set",
        ],
    ),
    (
        "keys without map",
        "{type: object, properties: {a: {type: array, items: {type: string}, x-kubernetes-list-map-keys: [k]}}}",
        &[
            "P.properties[a].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty",
        ],
    ),
    (
        "map without keys",
        "{type: object, properties: {a: {type: array, x-kubernetes-list-type: map, items: {type: object}}}}",
        &[
            "P.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map",
        ],
    ),
    (
        "map of strings",
        "{type: object, properties: {a: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: string}}}}",
        &[
            "P.properties[a].items.type: Invalid value: \"string\": must be object if parent array's x-kubernetes-list-type is map",
        ],
    ),
    (
        "map key missing",
        "{type: object, properties: {a: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k, j, j], items: {type: object, required: [j], properties: {j: {type: string}}}}}}",
        &[
            "P.properties[a].x-kubernetes-list-map-keys: Invalid value: [\"k\",\"j\",\"j\"]: entries must all be names of item properties",
            "P.properties[a].x-kubernetes-list-map-keys: Invalid value: [\"k\",\"j\",\"j\"]: must not contain duplicate entries",
        ],
    ),
    (
        "map key not scalar",
        "{type: object, properties: {a: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: object, required: [k], properties: {k: {type: object}}}}}}",
        &[
            "P.properties[a].items.properties[k].type: Invalid value: \"object\": must be a scalar type if parent array's x-kubernetes-list-type is map",
        ],
    ),
    (
        "map key optional",
        "{type: object, properties: {a: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: object, properties: {k: {type: string, nullable: true}}}}}}",
        &[
            "P.properties[a].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
            "P.properties[a].items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
        ],
    ),
    (
        "map key defaulted",
        "{type: object, properties: {a: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: object, properties: {k: {type: string, default: x}}}}}}",
        &[],
    ),
];

#[test]
fn check_list_and_map_types_report_kube_message() {
    assert_cases(CASES_LIST_MAP);
}
