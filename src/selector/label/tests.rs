//! Table tests for label selector parsing, error texts and matching.

use super::*;

/// `key op values` per requirement, `;`-joined, in parsed (key-sorted) order.
fn summary(sel: &LabelSelector) -> String {
    let parts: Vec<String> = sel
        .requirements()
        .iter()
        .map(|r| format!("{} {:?} [{}]", r.key(), r.operator(), r.values().join(",")))
        .collect();
    parts.join("; ")
}

#[test]
fn parse_valid_selectors_yield_sorted_requirements() {
    #[rustfmt::skip]
    let cases = [
        ("empty", "", ""),
        ("whitespace only", " \t", ""),
        ("equals", "x=a", "x Equals [a]"),
        ("double equals", "x==a", "x DoubleEquals [a]"),
        ("not equals", "x!=a,y=b", "x NotEquals [a]; y Equals [b]"),
        ("empty value", "x=", "x Equals []"),
        ("empty value then comma", "x=,z= ", "x Equals []; z Equals []"),
        ("exists", "x", "x Exists []"),
        ("exists trailing space", "a ", "a Exists []"),
        ("leading carriage return", "\rx", "x Exists []"),
        ("does not exist", "!x", "x DoesNotExist []"),
        ("greater and less", "x>1,z<5", "x GreaterThan [1]; z LessThan [5]"),
        ("sorted by key", "z=c,x=a,y=b", "x Equals [a]; y Equals [b]; z Equals [c]"),
        ("prefixed key", "this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash Exists []"),
        ("in with spaces", "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99 NotIn [10.10.100.1,tick.tack.clock]"),
        ("tabs and newlines", "x  notin\t\n(abc,def)", "x NotIn [abc,def]"),
        ("in values sorted and deduplicated", "x in (def,abc,abc)", "x In [abc,def]"),
        ("empty set", "x in ()", "x In []"),
        ("trailing comma", "x in (abc,)", "x In [,abc]"),
        ("leading comma", "x notin (, a)", "x NotIn [,a]"),
        ("consecutive commas", "x in (a,,a,,a,,)", "x In [,a]"),
        ("keywords as values", "a in (x,y,notin, z,in)", "a In [in,notin,x,y,z]"),
        ("keyword as key and value", "notin=in", "notin Equals [in]"),
        ("mixed", "x notin (abc,,def),bar,z in (),w", "bar Exists []; w Exists []; x NotIn [,abc,def]; z In []"),
    ];
    for (name, input, want) in cases {
        let sel = LabelSelector::parse(input).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(summary(&sel), want, "{name}");
        assert_eq!(sel.is_empty(), want.is_empty(), "{name}");
    }
}

#[test]
fn parse_invalid_selectors_return_upstream_text() {
    const KEY_RE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    const VALUE_RE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    let long = "a".repeat(64);
    let (long_key, long_value) = (format!("{long}=x"), format!("x={long}"));
    #[rustfmt::skip]
    let cases: Vec<(&str, &str, String)> = vec![
        ("double bar", "x=a||y=b", format!("unable to parse requirement: values[0][x]: Invalid value: \"a||y\": {VALUE_RE}")),
        ("two operators", "x==a==b", "found '==', expected: ',' or 'end of string'".into()),
        ("not with value", "!x=a", "found '=', expected: ',' or 'end of string'".into()),
        ("lt not integer", "x<a", "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer".into()),
        ("double comma", "x,,y", "found ',', expected: identifier after ','".into()),
        ("leading comma", ",x,y", "found ',', expected: !, identifier, or 'end of string'".into()),
        ("trailing comma", "a in (xyz),", "found '', expected: identifier after ','".into()),
        ("unknown operator", "x nott in (y)", "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt".into()),
        ("missing comma between requirements", "a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'".into()),
        ("no comma in set", "a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'".into()),
        ("unclosed set", "a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier".into()),
        ("missing open paren", "a in x", "unable to parse requirement: found 'x' expected: '('".into()),
        ("operator in set", "a in (x,=)", "unable to parse requirement: found '=', expected: ',', or identifier".into()),
        ("paren after key", "a (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt".into()),
        ("paren alone", "(", "found '(', expected: !, identifier, or 'end of string'".into()),
        ("bang alone", "!", "unable to parse requirement: found '', expected: identifier".into()),
        ("value is operator", "x=!", "unable to parse requirement: found '!', expected: identifier".into()),
        ("bad key", "x/y/z", format!("unable to parse requirement: <nil>: Invalid value: \"x/y/z\": a valid label key {KEY_RE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")),
        ("empty prefix", "/x", "unable to parse requirement: <nil>: Invalid value: \"/x\": prefix part must be non-empty".into()),
        ("uppercase prefix", "A/x", "unable to parse requirement: <nil>: Invalid value: \"A/x\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".into()),
        ("empty name", "a/", format!("unable to parse requirement: <nil>: Invalid value: \"a/\": name part must be non-empty; name part {KEY_RE}")),
        ("long name", &long_key, format!("unable to parse requirement: <nil>: Invalid value: \"{long}\": name part must be no more than 63 bytes")),
        ("long value", &long_value, format!("unable to parse requirement: values[0][x]: Invalid value: \"{long}\": must be no more than 63 bytes")),
        ("quoted key", "a\"b", format!("unable to parse requirement: <nil>: Invalid value: \"a\\\"b\": name part {KEY_RE}")),
        ("two bad values", "x in (-a,-b)", format!("unable to parse requirement: [values[0][x]: Invalid value: \"-a\": {VALUE_RE}, values[1][x]: Invalid value: \"-b\": {VALUE_RE}]")),
    ];
    for (name, input, want) in cases {
        let err = LabelSelector::parse(input).expect_err(name);
        assert_eq!(err.to_string(), want, "{name}");
    }
}

#[test]
fn matches_labels_follows_upstream_semantics() {
    let labels: BTreeMap<String, String> = [("x", "foo"), ("y", ""), ("z", "2")]
        .map(|(k, v)| (k.into(), v.into()))
        .into();
    #[rustfmt::skip]
    let cases = [
        ("empty", "", true),
        ("equals", "x=foo", true),
        ("equals other", "x=bar", false),
        ("equals absent", "w=foo", false),
        ("not equals absent", "w!=foo", true),
        ("not equals same", "x!=foo", false),
        ("in", "x in (bar,foo)", true),
        ("in absent", "w in (foo)", false),
        ("in empty value", "y in ()", true),
        ("notin absent", "w notin (foo)", true),
        ("notin present", "x notin (foo)", false),
        ("exists", "y", true),
        ("exists absent", "w", false),
        ("does not exist", "!w", true),
        ("does not exist present", "!y", false),
        ("greater", "z>1", true),
        ("greater equal", "z>2", false),
        ("less", "z<3", true),
        ("greater not integer label", "x>1", false),
        ("greater absent", "w>1", false),
        ("conjunction", "x=foo,y,!w,z<10", true),
        ("conjunction fails", "x=foo,w", false),
    ];
    for (name, input, want) in cases {
        let sel = LabelSelector::parse(input).expect(name);
        assert_eq!(sel.matches_btree(&labels), want, "{name}");
        let json: Map<String, Value> = labels
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.clone())))
            .collect();
        assert_eq!(sel.matches(&json), want, "{name} (json)");
    }
}

#[test]
fn matches_json_labels_non_string_values_read_as_empty_map() {
    let labels: Map<String, Value> =
        serde_json::from_str(r#"{"a": "1", "n": null, "b": 2}"#).unwrap();
    let nulls: Map<String, Value> = serde_json::from_str(r#"{"a": "1", "n": null}"#).unwrap();
    #[rustfmt::skip]
    let cases = [
        ("non-string hides all labels", &labels, "a=1", false),
        ("non-string map empty for notin", &labels, "!a", true),
        ("null reads as empty string", &nulls, "n=", true),
        ("null key exists", &nulls, "n,a=1", true),
    ];
    for (name, labels, input, want) in cases {
        let sel = LabelSelector::parse(input).expect(name);
        assert_eq!(sel.matches(labels), want, "{name}");
    }
}

#[test]
fn requires_exact_match_pins_single_values() {
    #[rustfmt::skip]
    let cases = [
        ("equals", "app=web", Some("web")),
        ("double equals", "app==web", Some("web")),
        ("single in", "app in (web)", Some("web")),
        ("multi in", "app in (web,db)", None),
        ("not equals", "app!=web", None),
        ("other key", "tier=web", None),
    ];
    for (name, input, want) in cases {
        let sel = LabelSelector::parse(input).expect(name);
        assert_eq!(sel.requires_exact_match("app"), want, "{name}");
    }
}

#[test]
fn parse_errors_name_the_failing_stage() {
    let err = LabelSelector::parse("x<a").expect_err("lt not integer");
    assert!(
        matches!(&err, SelectorError::Requirement(RequirementError::InvalidValues(v)) if v.len() == 1),
        "{err:?}"
    );
    let err = LabelSelector::parse("x/y/z").expect_err("bad key");
    assert!(
        matches!(&err, SelectorError::Requirement(RequirementError::InvalidKey(f)) if f.field == "<nil>"),
        "{err:?}"
    );
    let err = LabelSelector::parse("x,,y").expect_err("double comma");
    assert_eq!(err, SelectorError::AfterComma(",".into()));
}
