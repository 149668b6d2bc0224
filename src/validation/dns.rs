//! DNS name rules (RFC 1123 labels and subdomains, RFC 1035 labels) with apimachinery's
//! exact messages (`k8s.io/apimachinery/pkg/util/validation`).

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_ERR: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/// Longest RFC 1123 / RFC 1035 label.
pub const LABEL_MAX_LENGTH: usize = 63;
/// Longest RFC 1123 subdomain.
pub const SUBDOMAIN_MAX_LENGTH: usize = 253;

/// RFC 1123 label (`my-name`, `123-abc`): the problems as apimachinery's `IsDNS1123Label`
/// words them; empty when valid.
pub fn is_dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_MAX_LENGTH {
        errs.push(max_len_error(LABEL_MAX_LENGTH));
    }
    if !matches_label(value, |c| c.is_ascii_lowercase() || c.is_ascii_digit()) {
        if matches_subdomain(value) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_ERR,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// RFC 1123 subdomain (`example.com`): the problems as apimachinery's
/// `IsDNS1123Subdomain` words them; empty when valid.
pub fn is_dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > SUBDOMAIN_MAX_LENGTH {
        errs.push(max_len_error(SUBDOMAIN_MAX_LENGTH));
    }
    if !matches_subdomain(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_ERR,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// RFC 1035 label (`my-name`, `abc-123`; starts with a letter): the problems as
/// apimachinery's `IsDNS1035Label` words them; empty when valid.
pub fn is_dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_MAX_LENGTH {
        errs.push(max_len_error(LABEL_MAX_LENGTH));
    }
    if !matches_label(value, |c| c.is_ascii_lowercase()) {
        errs.push(regex_error(
            DNS1035_LABEL_ERR,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// apimachinery's `MaxLenError`.
pub fn max_len_error(length: usize) -> String {
    format!("must be no more than {length} characters")
}

/// apimachinery's `RegexError`: the message, examples and the pattern used.
pub fn regex_error(msg: &str, pattern: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{pattern}')");
    }
    let examples: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{msg} (e.g. {}regex used for validation is '{pattern}')",
        examples.join(" or ")
    )
}

/// `first([-a-z0-9]*[a-z0-9])?` where `first` decides the allowed first character.
fn matches_label(value: &str, first: impl Fn(char) -> bool) -> bool {
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    let (Some(head), Some(last)) = (value.chars().next(), value.chars().last()) else {
        return false;
    };
    first(head) && alnum(last) && value.chars().all(|c| alnum(c) || c == '-')
}

fn matches_subdomain(value: &str) -> bool {
    value
        .split('.')
        .all(|label| matches_label(label, |c| c.is_ascii_lowercase() || c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_rules_table_match_apimachinery() {
        let long = "a".repeat(64);
        // (name, value, label1123 ok, subdomain ok, label1035 ok)
        let cases = [
            ("simple", "crontabs", true, true, true),
            ("digit start", "1abc", true, true, false),
            ("dash inside", "my-name", true, true, true),
            ("dash end", "abc-", false, false, false),
            ("dash start", "-abc", false, false, false),
            ("upper case", "Foo", false, false, false),
            ("dotted", "stable.example.com", false, true, false),
            ("empty label in subdomain", "a..b", false, false, false),
            ("empty", "", false, false, false),
            ("underscore", "a_b", false, false, false),
            ("too long label", long.as_str(), false, true, false),
        ];
        for (name, value, l1123, sub, l1035) in cases {
            assert_eq!(
                is_dns1123_label(value).is_empty(),
                l1123,
                "{name} 1123 label"
            );
            assert_eq!(
                is_dns1123_subdomain(value).is_empty(),
                sub,
                "{name} subdomain"
            );
            assert_eq!(
                is_dns1035_label(value).is_empty(),
                l1035,
                "{name} 1035 label"
            );
        }
    }

    #[test]
    fn dns_messages_match_apimachinery_wording() {
        assert_eq!(
            is_dns1035_label("Foo"),
            vec![
                "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
            ]
        );
        assert_eq!(is_dns1123_label("a.b"), vec!["must not contain dots"]);
        assert_eq!(
            is_dns1123_subdomain("A"),
            vec![
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ]
        );
        assert_eq!(
            is_dns1123_label(&"a".repeat(64)),
            vec!["must be no more than 63 characters"]
        );
    }
}
