//! Cases from k8s.io/apiserver `library/format_test.go`, plus kube 1.36's answers to
//! the prefix and length edge cases.

use super::*;
use crate::cel::lib::argv::testing::{call, outcome, s};

const LABEL_ERR: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL1035_ERR: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

fn validate_with(name: &str, value: &str) -> String {
    let lib = library();
    let id = FUNCTION_NAMES[FORMATS.iter().position(|(n, _)| *n == name).unwrap()];
    let format = call(&lib, id, &[]).unwrap();
    outcome(call(&lib, "format-validate", &[format, s(value)]))
}

#[test]
fn format_validate_table_match_kube() {
    let long = "a".repeat(64);
    let cases: &[(&str, &str, String)] = &[
        ("dns1123Label", "my-label-name", "none".into()),
        ("dns1123Label", "contains a space", format!("some([{LABEL_ERR}])")),
        ("dns1123Label", &long, "some([must be no more than 63 characters])".into()),
        ("dns1123Subdomain", "apiextensions.k8s.io", "none".into()),
        ("dns1123Subdomain", "contains a space", format!("some([{SUBDOMAIN_ERR}])")),
        ("dns1035Label", "my-label-name", "none".into()),
        ("dns1035Label", "contains a space", format!("some([{LABEL1035_ERR}])")),
        ("qualifiedName", "apiextensions.k8s.io/v1beta1", "none".into()),
        ("qualifiedName", "my.name", "none".into()),
        (
            "qualifiedName",
            "contains a space",
            "some([name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')])".into(),
        ),
        ("qualifiedName", "/b", "some([prefix part must be non-empty])".into()),
        ("dns1123LabelPrefix", "my-label-prefix-", "none".into()),
        ("dns1123LabelPrefix", "ab-", "none".into()),
        ("dns1123LabelPrefix", "-", format!("some([{LABEL_ERR}])")),
        ("dns1123LabelPrefix", "a.b-", "some([must not contain dots])".into()),
        ("dns1123LabelPrefix", "contains a space-", format!("some([{LABEL_ERR}])")),
        ("dns1123SubdomainPrefix", "mysubdomain.prefix.-", "none".into()),
        ("dns1123SubdomainPrefix", "contains a space-", format!("some([{SUBDOMAIN_ERR}])")),
        ("dns1035LabelPrefix", "my-label-prefix-", "none".into()),
        ("dns1035LabelPrefix", "contains a space-", format!("some([{LABEL1035_ERR}])")),
        ("labelValue", "my-cool-label-Value", "none".into()),
        (
            "labelValue",
            "my-cool-label-Value!!\n\n!!!",
            "some([a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')])".into(),
        ),
        ("labelValue", &long, "some([must be no more than 63 bytes])".into()),
        ("uri", "http://example.com", "none".into()),
        ("uri", "x", "some([parse \"x\": invalid URI for request])".into()),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000", "none".into()),
        ("uuid", "x", "some([does not match the UUID format])".into()),
        ("byte", "aGVsbG8=", "none".into()),
        ("byte", "aGVsbG8", "some([invalid base64])".into()),
        ("date", "2021-01-01", "none".into()),
        ("date", "2020-01-32", "some([invalid date])".into()),
        ("datetime", "2021-01-01T00:00:00Z", "none".into()),
        ("datetime", "2020-01-32T00:00:00Z", "some([invalid datetime])".into()),
    ];
    for (name, value, want) in cases {
        assert_eq!(
            validate_with(name, value),
            *want,
            "format.{name}().validate({value:?})"
        );
    }
}

#[test]
fn format_named_finds_every_constant_and_none_else() {
    let lib = library();
    for (i, (name, format)) in FORMATS.iter().enumerate() {
        let found = call(&lib, "format-named", &[s(name)]).unwrap();
        let Value::Optional(Some(found)) = found else {
            panic!("format.named({name:?}) has a value");
        };
        let Value::Opaque(found) = found.as_ref() else {
            panic!("a format is opaque");
        };
        let Value::Opaque(direct) = call(&lib, FUNCTION_NAMES[i], &[]).unwrap() else {
            panic!("a format is opaque");
        };
        assert!(found.equals(direct.as_ref()), "{name}");
        assert_eq!(found.type_name(), "kubernetes.NamedFormat");
        for (other, other_format) in &FORMATS {
            assert_eq!(
                format.equals(other_format),
                other == name,
                "format.{name}() == format.{other}()"
            );
        }
    }
    assert_eq!(outcome(call(&lib, "format-named", &[s("unknown")])), "none");
}

#[test]
fn mask_trailing_dash_replaces_two_bytes() {
    assert_eq!(mask_trailing_dash("ab-"), "aa");
    assert_eq!(mask_trailing_dash("-"), "-");
    assert_eq!(mask_trailing_dash("é-"), "_a");
    assert_eq!(mask_trailing_dash("abc"), "abc");
}
