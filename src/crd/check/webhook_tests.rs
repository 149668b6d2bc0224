//! `ValidateWebhookURL` and `ValidateWebhookService` texts, one case per rule.

use super::*;

const URL: &str = "spec.conversion.webhookClientConfig.url";
const SERVICE: &str = "spec.conversion.webhookClientConfig.service";
const FORM: &str = "; desired format: https://host[/path]";
const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

fn texts(errors: Vec<FieldError>) -> Vec<String> {
    errors.iter().map(FieldError::message).collect()
}

#[test]
fn check_url_invalid_urls_report_kube_message() {
    let cases: Vec<(&str, &str, Vec<String>)> = vec![
        ("valid", "https://conv.example.com:8443/convert", vec![]),
        (
            "http scheme",
            "http://h/x",
            vec![format!(
                r#"{URL}: Invalid value: "http": 'https' is the only allowed URL scheme{FORM}"#
            )],
        ),
        (
            "no host",
            "https:///x",
            vec![format!(
                r#"{URL}: Invalid value: "": host must be specified{FORM}"#
            )],
        ),
        (
            "empty",
            "",
            vec![
                format!(
                    r#"{URL}: Invalid value: "": 'https' is the only allowed URL scheme{FORM}"#
                ),
                format!(r#"{URL}: Invalid value: "": host must be specified{FORM}"#),
            ],
        ),
        (
            "user and password",
            "https://u:p@h/",
            vec![format!(
                r#"{URL}: Invalid value: "u:p": user information is not permitted in the URL"#
            )],
        ),
        (
            "fragment",
            "https://h/#frag",
            vec![format!(
                r#"{URL}: Invalid value: "frag": fragments are not permitted in the URL"#
            )],
        ),
        (
            "query",
            "https://h/?a=b",
            vec![format!(
                r#"{URL}: Invalid value: "a=b": query parameters are not permitted in the URL"#
            )],
        ),
        (
            "every rule at once",
            "ftp://u@h/?q#f",
            vec![
                format!(
                    r#"{URL}: Invalid value: "ftp": 'https' is the only allowed URL scheme{FORM}"#
                ),
                format!(
                    r#"{URL}: Invalid value: "u": user information is not permitted in the URL"#
                ),
                format!(r#"{URL}: Invalid value: "f": fragments are not permitted in the URL"#),
                format!(
                    r#"{URL}: Invalid value: "q": query parameters are not permitted in the URL"#
                ),
            ],
        ),
        (
            "not parsable",
            "https://a b/",
            vec![format!(
                r#"{URL}: Required value: url must be a valid URL: parse "https://a b/": invalid character " " in host name{FORM}"#
            )],
        ),
    ];
    for (name, url, want) in cases {
        assert_eq!(texts(check_url(URL, url, true)), want, "case {name}");
    }
    assert_eq!(
        texts(check_url(URL, "http://h/", false)),
        Vec::<String>::new(),
        "http allowed without force_https"
    );
}

/// `check_service`'s arguments after the field: namespace, name, path, port.
type Service<'a> = (&'a str, &'a str, Option<&'a str>, i32);

#[test]
fn check_service_invalid_services_report_kube_message() {
    // Arguments in kube's order: (namespace, name) = (service.name, service.namespace).
    let cases: Vec<(&str, Service, Vec<String>)> = vec![
        ("valid", ("conv", "ns", Some("/convert"), 443), vec![]),
        ("root path", ("conv", "ns", Some("/"), 443), vec![]),
        ("empty path", ("conv", "ns", Some(""), 443), vec![]),
        ("trailing slash", ("conv", "ns", Some("/a/b/"), 443), vec![]),
        (
            "service name empty",
            ("", "ns", None, 443),
            vec![format!("{SERVICE}.namespace: Required value")],
        ),
        (
            "service namespace empty",
            ("conv", "", None, 443),
            vec![format!("{SERVICE}.name: Required value")],
        ),
        (
            "port zero",
            ("conv", "ns", None, 0),
            vec![format!(
                "{SERVICE}.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive"
            )],
        ),
        (
            "port too high",
            ("conv", "ns", None, 65536),
            vec![format!(
                "{SERVICE}.port: Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive"
            )],
        ),
        (
            "double slash",
            ("conv", "ns", Some("//"), 443),
            vec![format!(
                r#"{SERVICE}.path: Invalid value: "//": segment[0] may not be empty"#
            )],
        ),
        (
            "relative",
            ("conv", "ns", Some("convert"), 443),
            vec![format!(
                r#"{SERVICE}.path: Invalid value: "convert": must start with a '/'"#
            )],
        ),
        (
            "empty segment",
            ("conv", "ns", Some("/a//b"), 443),
            vec![format!(
                r#"{SERVICE}.path: Invalid value: "/a//b": segment[1] may not be empty"#
            )],
        ),
        (
            "segment not a subdomain",
            ("conv", "ns", Some("/ok/Convert"), 443),
            vec![format!(
                r#"{SERVICE}.path: Invalid value: "/ok/Convert": segment[1]: {SUBDOMAIN}"#
            )],
        ),
        (
            "multi-byte first character",
            ("conv", "ns", Some("é/a"), 443),
            vec![
                format!(r#"{SERVICE}.path: Invalid value: "é/a": must start with a '/'"#),
                format!(r#"{SERVICE}.path: Invalid value: "é/a": segment[0]: {SUBDOMAIN}"#),
            ],
        ),
    ];
    for (name, (namespace, service_name, path, port), want) in cases {
        let got = check_service(SERVICE, namespace, service_name, path, port);
        assert_eq!(texts(got), want, "case {name}");
    }
}
