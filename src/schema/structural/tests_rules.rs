//! Table tests for the per-node CRD schema rules (unsupported keywords, `additionalProperties`,
//! defaults around object meta, `x-kubernetes-validations` shape), root rules, conversion
//! failures, and the list of defaults.

use super::tests::{P, assert_cases, yaml};
use super::*;

const CASES_UNSUPPORTED: &[(&str, &str, &[&str])] = &[
    (
        "ref",
        "{type: object, properties: {a: {type: string, $ref: '#/x'}}}",
        &["P.properties[a].$ref: Forbidden: $ref is not supported"],
    ),
    (
        "id",
        "{type: object, id: x}",
        &["P.id: Forbidden: id is not supported"],
    ),
    (
        "definitions",
        "{type: object, definitions: {a: {type: string, uniqueItems: true}}}",
        &[
            "P.definitions: Forbidden: definitions is not supported",
            "P.definitions[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ],
    ),
    (
        "dependencies",
        "{type: object, dependencies: {a: [b]}}",
        &["P.dependencies: Forbidden: dependencies is not supported"],
    ),
    (
        "pattern properties",
        "{type: object, patternProperties: {'^a': {type: string}}}",
        &["P.patternProperties: Forbidden: patternProperties is not supported"],
    ),
    (
        "additional items",
        "{type: object, properties: {a: {type: array, items: {type: string}, additionalItems: false}}}",
        &["P.properties[a].additionalItems: Forbidden: additionalItems is not supported"],
    ),
    (
        "items slice",
        "{type: object, properties: {slice: {type: array, items: [{type: string}, {type: integer}]}}}",
        &["P.properties[slice].items: Forbidden: items must be a schema object and not an array"],
    ),
    (
        "items slice in value validation",
        "{type: object, properties: {slice: {type: array, items: {type: string}, not: {items: [{type: string}]}}}}",
        &[
            "P.properties[slice].not.items: Forbidden: items must be a schema object and not an array",
        ],
    ),
    (
        "schema keyword only reported alone",
        "{type: object, $schema: 'http://json-schema.org/draft-04/schema#'}",
        &["P: Invalid value: \"\": OpenAPIV3Schema 'schema' is not supported"],
    ),
    (
        "type unknown",
        "{type: object, properties: {a: {type: float}}}",
        &[
            "P.properties[a].type: Unsupported value: \"float\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
        ],
    ),
    (
        "type null",
        "{type: object, properties: {a: {type: 'null'}}}",
        &[
            "P.properties[a].type: Unsupported value: \"null\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
            "P.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative",
        ],
    ),
    (
        "unique items",
        "{type: object, properties: {a: {type: array, items: {type: string}, uniqueItems: true}}}",
        &[
            "P.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ],
    ),
    (
        "preserve unknown fields false",
        "{type: object, x-kubernetes-preserve-unknown-fields: false}",
        &[
            "P.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined",
        ],
    ),
];

#[test]
fn check_unsupported_keywords_forbidden() {
    assert_cases(CASES_UNSUPPORTED);
}

#[test]
fn check_additional_properties_rules_report_kube_message() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "false with properties",
            "{type: object, properties: {foo: {type: object, properties: {bar: {type: object}}, additionalProperties: false}}}",
            &[
                "P.properties[foo].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
            ],
        ),
        (
            "schema with properties",
            "{type: object, properties: {foo: {type: object, properties: {bar: {type: string}}, additionalProperties: {type: string}}}}",
            &[
                "P.properties[foo].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
            ],
        ),
        (
            "true with properties allowed",
            "{type: object, properties: {foo: {type: object, properties: {bar: {type: string}}, additionalProperties: true}}}",
            &[],
        ),
        (
            "map of strings allowed",
            "{type: object, properties: {labels: {type: object, additionalProperties: {type: string}}}}",
            &[],
        ),
        (
            "at the root",
            "{type: object, additionalProperties: false}",
            &["P.additionalProperties: Forbidden: must not be used at the root"],
        ),
    ];
    assert_cases(cases);
}

#[test]
fn check_root_rules_report_kube_message() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "no root type",
            "{type: ''}",
            &["P.type: Required value: must not be empty at the root"],
        ),
        (
            "non-object root type",
            "{type: integer}",
            &["P.type: Invalid value: \"integer\": must be object at the root"],
        ),
        (
            "nullable root",
            "{type: object, nullable: true}",
            &["P.nullable: Forbidden: nullable cannot be true at the root"],
        ),
        (
            "missing items",
            "{type: object, properties: {slice: {type: array}}}",
            &["P.properties[slice].items: Required value: must be specified"],
        ),
        (
            "invalid pattern",
            "{type: object, properties: {foo: {type: string, pattern: '+'}}}",
            &[
                "P.properties[foo].pattern: Invalid value: \"+\": must be a valid regular expression, but isn't: error parsing regexp: missing argument to repetition operator: `+`",
            ],
        ),
        (
            "invalid pattern in junctor",
            "{type: object, properties: {foo: {type: string}}, allOf: [{properties: {foo: {pattern: 'a**'}}}]}",
            &[
                "P.allOf[0].properties[foo].pattern: Invalid value: \"a**\": must be a valid regular expression, but isn't: error parsing regexp: invalid nested repetition operator: `**`",
            ],
        ),
    ];
    assert_cases(cases);
}

#[test]
fn check_status_root_restricts_keywords() {
    let status = |schema: &str| -> Vec<String> {
        analyze(&yaml(schema), P, true)
            .errors()
            .iter()
            .map(FieldError::message)
            .collect()
    };
    assert_eq!(
        status("{type: object, properties: {spec: {type: object}}, required: [spec]}"),
        Vec::<String>::new()
    );
    assert_eq!(
        status(
            "{type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}"
        )[0],
        format!(
            "{P}: Invalid value: {}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled",
            r#"{"ID":"","Schema":"","Ref":null,"Description":"","Type":"object","Nullable":false,"Format":"","Title":"","Default":null,"Maximum":null,"ExclusiveMaximum":false,"Minimum":null,"ExclusiveMinimum":false,"MaxLength":null,"MinLength":null,"Pattern":"","MaxItems":null,"MinItems":null,"UniqueItems":false,"MultipleOf":null,"Enum":null,"MaxProperties":null,"MinProperties":null,"Required":null,"Items":null,"AllOf":null,"OneOf":null,"AnyOf":null,"Not":null,"Properties":null,"AdditionalProperties":null,"PatternProperties":null,"Dependencies":null,"AdditionalItems":null,"Definitions":null,"ExternalDocs":null,"Example":null,"XPreserveUnknownFields":true,"XEmbeddedResource":true,"XIntOrString":false,"XListMapKeys":null,"XListType":null,"XMapType":null,"XValidations":null}"#
        )
    );
    assert_eq!(
        status("{type: array, items: {type: string}}"),
        vec![
            format!(
                "{P}.type: Invalid value: \"array\": only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled"
            ),
            format!("{P}.type: Invalid value: \"array\": must be object at the root"),
        ]
    );
}

#[test]
fn check_defaults_in_resource_meta_forbidden() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "top-level metadata",
            "{type: object, properties: {metadata: {type: object, default: {}}}}",
            &["P.properties[metadata].default: Forbidden: must not be set in top-level metadata"],
        ),
        (
            "top-level kind",
            "{type: object, properties: {kind: {type: string, default: Foo}}}",
            &["P.properties[kind].default: Forbidden: must not be set in top-level kind"],
        ),
        (
            "under top-level metadata",
            "{type: object, properties: {metadata: {type: object, properties: {name: {type: string, default: a}}}}}",
            &[
                "P.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata",
            ],
        ),
        (
            "embedded metadata map",
            "{type: object, properties: {e: {type: object, x-kubernetes-embedded-resource: true, properties: {metadata: {type: object, properties: {labels: {type: object, additionalProperties: {type: string, default: x}}}}}}}}",
            &[
                "P.properties[e].properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata",
            ],
        ),
        (
            "embedded metadata allowed",
            "{type: object, properties: {e: {type: object, x-kubernetes-embedded-resource: true, properties: {metadata: {type: object, default: {name: a}}}}}}",
            &[],
        ),
        (
            "spec default allowed",
            "{type: object, properties: {spec: {type: object, properties: {replicas: {type: integer, default: 1}}}}}",
            &[],
        ),
        (
            "embedded inside meta",
            "{type: object, properties: {metadata: {type: object, properties: {x: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}}}}",
            &[
                "P.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
                "P.properties[metadata].properties[x].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta",
            ],
        ),
    ];
    assert_cases(cases);
}

const CASES_VALIDATION_RULES: &[(&str, &str, &[&str])] = &[
    (
        "rule empty",
        "{type: object, x-kubernetes-validations: [{rule: ' '}]}",
        &["P.x-kubernetes-validations[0].rule: Required value: rule is not specified"],
    ),
    (
        "message blank",
        "{type: object, x-kubernetes-validations: [{rule: 'true', message: ' '}]}",
        &[
            "P.x-kubernetes-validations[0].message: Invalid value: \" \": must be non-empty if specified",
        ],
    ),
    (
        "message multi-line",
        "{type: object, x-kubernetes-validations: [{rule: 'true', message: \"a\\nb\"}]}",
        &[
            "P.x-kubernetes-validations[0].message: Invalid value: \"a\\nb\": must not contain line breaks",
        ],
    ),
    (
        "multi-line rule without message",
        "{type: object, x-kubernetes-validations: [{rule: \"true &&\\ntrue\"}]}",
        &[
            "P.x-kubernetes-validations[0].message: Required value: message must be specified if rule contains line breaks",
        ],
    ),
    (
        "message expression blank",
        "{type: object, x-kubernetes-validations: [{rule: 'true', messageExpression: ' '}]}",
        &[
            "P.x-kubernetes-validations[0].messageExpression: Required value: messageExpression must be non-empty if specified",
        ],
    ),
    (
        "reason unknown",
        "{type: object, x-kubernetes-validations: [{rule: 'true', reason: Bad}]}",
        &[
            "P.x-kubernetes-validations[0].reason: Unsupported value: \"Bad\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
        ],
    ),
    (
        "field path unknown",
        "{type: object, properties: {a: {type: string}}, x-kubernetes-validations: [{rule: 'true', fieldPath: .b}]}",
        &["P.x-kubernetes-validations[0].fieldPath: Invalid value: \".b\": must be a valid path"],
    ),
    (
        "field path valid",
        "{type: object, properties: {a: {type: object, additionalProperties: {type: object, properties: {c: {type: string}}}}}, x-kubernetes-validations: [{rule: 'true', fieldPath: \".a['x y'].c\"}]}",
        &[],
    ),
];

#[test]
fn check_validation_rules_shape_report_kube_message() {
    assert_cases(CASES_VALIDATION_RULES);
}

#[test]
fn check_conversion_failure_reported_only_alone() {
    let report = analyze(
        &yaml("{type: object, properties: {a: {}}, $ref: x}"),
        P,
        false,
    );
    assert!(!report.validates_defaults);
    assert_eq!(
        report
            .errors()
            .iter()
            .map(FieldError::message)
            .collect::<Vec<_>>(),
        vec![format!("{P}.$ref: Forbidden: $ref is not supported")]
    );
}
