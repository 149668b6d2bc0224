//! Table tests for the structural rules (`ValidateStructural` and `NewStructural`): the
//! examples of the CRD documentation's "Specifying a structural schema" section, and kube's
//! own non-structural cases with the violations kube reports.

use serde_json::Value;

use super::*;

pub(super) const P: &str = "spec.versions[0].schema.openAPIV3Schema";

pub(super) fn yaml(text: &str) -> Value {
    serde_saphyr::from_str::<Value>(text).unwrap()
}

/// The messages for a schema written in YAML, with `P` standing for the schema path.
pub(super) fn messages(schema: &str) -> Vec<String> {
    check(&yaml(schema), P)
        .iter()
        .map(FieldError::message)
        .collect()
}

pub(super) fn expand(expected: &[&str]) -> Vec<String> {
    expected
        .iter()
        .map(|e| {
            e.replace("P.", &format!("{P}."))
                .replace("P:", &format!("{P}:"))
        })
        .collect()
}

pub(super) fn assert_cases(cases: &[(&str, &str, &[&str])]) {
    for (name, schema, expected) in cases {
        assert_eq!(messages(schema), expand(expected), "case {name}");
    }
}

const DOC_NON_STRUCTURAL_3: &str = r#"
properties:
  foo:
    pattern: "abc"
  metadata:
    type: object
    properties:
      name:
        type: string
        pattern: "^a"
      finalizers:
        type: array
        items:
          type: string
          pattern: "my-finalizer"
anyOf:
- properties:
    bar:
      type: integer
      minimum: 42
  required: ["bar"]
  description: "foo bar object"
"#;

const DOC_STRUCTURAL_3: &str = r#"
type: object
description: "foo bar object"
properties:
  foo:
    type: string
    pattern: "abc"
  bar:
    type: integer
  metadata:
    type: object
    properties:
      name:
        type: string
        pattern: "^a"
anyOf:
- properties:
    bar:
      minimum: 42
  required: ["bar"]
"#;

#[test]
fn check_documentation_examples_report_kube_violations() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "example 1 non-structural",
            "{type: object, allOf: [{properties: {foo: {maxLength: 3}}}]}",
            &[
                "P.properties[foo]: Required value: because it is defined in P.allOf[0].properties[foo]",
            ],
        ),
        (
            "example 1 structural",
            "{type: object, properties: {foo: {type: string}}, allOf: [{properties: {foo: {maxLength: 3}}}]}",
            &[],
        ),
        (
            "example 2 non-structural",
            "{type: object, allOf: [{items: {properties: {foo: {maxLength: 3}}}}]}",
            &["P.items: Required value: because it is defined in P.allOf[0].items"],
        ),
        (
            "example 2 structural",
            "{type: object, items: {type: object, properties: {foo: {type: string}}}, allOf: [{items: {properties: {foo: {maxLength: 3}}}}]}",
            &[],
        ),
        (
            "example 3 non-structural",
            DOC_NON_STRUCTURAL_3,
            &[
                "P.anyOf[0].description: Forbidden: must be empty to be structural",
                "P.anyOf[0].properties[bar].type: Forbidden: must be empty to be structural",
                "P.properties[bar]: Required value: because it is defined in P.anyOf[0].properties[bar]",
                "P.properties[foo].type: Required value: must not be empty for specified object fields",
                "P.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
                "P.type: Required value: must not be empty at the root",
            ],
        ),
        ("example 3 structural", DOC_STRUCTURAL_3, &[]),
    ];
    assert_cases(cases);
}

const FORBIDDEN_NESTED: &str = r#"
type: object
properties:
  foo:
    type: string
not:
  type: string
  additionalProperties: true
  title: hello
  description: world
  nullable: true
allOf:
- properties:
    foo:
      type: string
      additionalProperties: true
      title: hello
      description: world
      nullable: true
anyOf:
- items:
    type: string
    additionalProperties: true
    title: hello
    description: world
    nullable: true
"#;

#[test]
fn check_generics_in_junctors_forbidden() {
    let mut expected = Vec::new();
    for at in ["allOf[0].properties[foo]", "anyOf[0].items", "not"] {
        for (key, detail) in [
            ("additionalProperties", "must be undefined to be structural"),
            ("description", "must be empty to be structural"),
            ("nullable", "must be false to be structural"),
            ("title", "must be empty to be structural"),
            ("type", "must be empty to be structural"),
        ] {
            expected.push(format!("P.{at}.{key}: Forbidden: {detail}"));
        }
        if at == "anyOf[0].items" {
            expected
                .push("P.items: Required value: because it is defined in P.anyOf[0].items".into());
        }
    }
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    let mut want = expand(&expected);
    want.sort();
    assert_eq!(messages(FORBIDDEN_NESTED), want);
}

const EXTENSIONS_NESTED: &str = r#"
type: object
properties:
  int-or-string:
    x-kubernetes-int-or-string: true
  embedded-resource:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
  list:
    type: array
    items: {type: string}
allOf:
- properties:
    int-or-string:
      x-kubernetes-int-or-string: true
    embedded-resource:
      x-kubernetes-embedded-resource: true
      x-kubernetes-preserve-unknown-fields: true
    list:
      x-kubernetes-list-type: set
      x-kubernetes-list-map-keys: [a]
      x-kubernetes-map-type: atomic
      x-kubernetes-validations: [{rule: "true"}]
      default: []
"#;

#[test]
fn check_extensions_in_junctors_forbidden() {
    let prefix = "P.allOf[0].properties";
    let expected = [
        format!(
            "{prefix}[embedded-resource].x-kubernetes-embedded-resource: Forbidden: must be false to be structural"
        ),
        format!(
            "{prefix}[embedded-resource].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural"
        ),
        format!(
            "{prefix}[int-or-string].x-kubernetes-int-or-string: Forbidden: must be false to be structural"
        ),
        format!("{prefix}[list].default: Forbidden: must be undefined to be structural"),
        format!(
            "{prefix}[list].x-kubernetes-list-map-keys: Forbidden: must be empty to be structural"
        ),
        format!(
            "{prefix}[list].x-kubernetes-list-type: Forbidden: must be undefined to be structural"
        ),
        format!(
            "{prefix}[list].x-kubernetes-map-type: Forbidden: must be undefined to be structural"
        ),
        format!(
            "{prefix}[list].x-kubernetes-validations: Forbidden: must be empty to be structural"
        ),
        format!(
            "{prefix}[list].type: Required value: must be object if x-kubernetes-map-type is specified"
        ),
        format!(
            "{prefix}[list].type: Required value: must be array if x-kubernetes-list-type is specified"
        ),
        format!(
            "{prefix}[list].x-kubernetes-list-type: Invalid value: \"set\": must be map if x-kubernetes-list-map-keys is non-empty"
        ),
    ];
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    assert_eq!(messages(EXTENSIONS_NESTED), expand(&expected));
}

const MISSING_TYPES: &str = r#"
properties:
  foo:
    properties:
      a: {}
  bar:
    items:
      additionalProperties:
        properties:
          a: {}
        items: {}
  json:
    x-kubernetes-preserve-unknown-fields: true
    properties:
      a: {}
  int-or-string:
    x-kubernetes-int-or-string: true
    properties:
      a: {}
"#;

#[test]
fn check_missing_types_required_by_level() {
    let field = "Required value: must not be empty for specified object fields";
    let item = "Required value: must not be empty for specified array items";
    let expected = [
        format!("P.properties[bar].items.additionalProperties.items.type: {item}"),
        format!("P.properties[bar].items.additionalProperties.properties[a].type: {field}"),
        format!("P.properties[bar].items.additionalProperties.type: {field}"),
        format!("P.properties[bar].items.type: {item}"),
        format!("P.properties[bar].type: {field}"),
        format!("P.properties[foo].properties[a].type: {field}"),
        format!("P.properties[foo].type: {field}"),
        format!("P.properties[int-or-string].properties[a].type: {field}"),
        format!("P.properties[json].properties[a].type: {field}"),
        "P.type: Required value: must not be empty at the root".to_string(),
    ];
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    assert_eq!(messages(MISSING_TYPES), expand(&expected));
}

const STRUCTURAL_INCOMPLETE: &str = r#"
type: object
properties:
  b: {type: object, properties: {b: {type: array}}}
  c: {type: array, items: {type: object}}
  d: {type: array}
not:
  properties:
    a: {}
    b: {not: {properties: {a: {}, b: {items: {}}}}}
    c: {items: {not: {items: {properties: {a: {}}}}}}
    d: {items: {}}
allOf: [{properties: {e: {}}}]
anyOf: [{properties: {f: {}}}]
oneOf: [{properties: {g: {}}}]
"#;

const STRUCTURAL_COMPLETE: &str = r#"
type: object
properties:
  a: {type: string}
  b: {type: object, properties: {a: {type: string}, b: {type: array, items: {type: string}}}}
  c: {type: array, items: {type: array, items: {type: object, properties: {a: {type: string}}}}}
  d: {type: array, items: {type: string}}
  e: {type: string}
  f: {type: string}
  g: {type: string}
not:
  properties:
    a: {}
    b: {not: {properties: {a: {}, b: {items: {}}}}}
    c: {items: {not: {items: {properties: {a: {}}}}}}
    d: {items: {}}
allOf: [{properties: {e: {}}}]
anyOf: [{properties: {f: {}}}]
oneOf: [{properties: {g: {}}}]
"#;

#[test]
fn check_completeness_of_root_junctors_reports_kube_message() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "incomplete",
            STRUCTURAL_INCOMPLETE,
            &[
                "P.properties[a]: Required value: because it is defined in P.not.properties[a]",
                "P.properties[b].properties[a]: Required value: because it is defined in P.not.properties[b].not.properties[a]",
                "P.properties[b].properties[b].items: Required value: because it is defined in P.not.properties[b].not.properties[b].items",
                "P.properties[b].properties[b].items: Required value: must be specified",
                "P.properties[c].items.items: Required value: because it is defined in P.not.properties[c].items.not.items",
                "P.properties[d].items: Required value: because it is defined in P.not.properties[d].items",
                "P.properties[d].items: Required value: must be specified",
                "P.properties[e]: Required value: because it is defined in P.allOf[0].properties[e]",
                "P.properties[f]: Required value: because it is defined in P.anyOf[0].properties[f]",
                "P.properties[g]: Required value: because it is defined in P.oneOf[0].properties[g]",
            ],
        ),
        ("complete", STRUCTURAL_COMPLETE, &[]),
        // kube only checks the junctors of the root node for completeness
        (
            "junctor below the root unchecked",
            "{type: object, properties: {spec: {type: object, allOf: [{properties: {x: {maxLength: 1}}}]}}}",
            &[],
        ),
    ];
    assert_cases(cases);
}
