//! Table tests of `options`.
use super::*;

fn opts(query: &str) -> ListOptions {
    ListOptions::from_query(&crate::request::query::Query::parse(query)).unwrap()
}

#[test]
fn list_options_validate_matches_kube_rules() {
    let cases: &[(&str, bool, &[&str])] = &[
        ("plain list", false, &[]),
        ("exact with rv", false, &[]),
        (
            "resourceVersionMatch=Exact",
            false,
            &[
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
            ],
        ),
        (
            "resourceVersionMatch=Bogus&resourceVersion=5",
            false,
            &[
                "resourceVersionMatch: Unsupported value: \"Bogus\": supported values: \"Exact\", \"NotOlderThan\", \"\"",
            ],
        ),
        (
            "resourceVersionMatch=Exact&resourceVersion=0",
            false,
            &[
                "resourceVersionMatch: Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
            ],
        ),
        (
            "sendInitialEvents=true",
            false,
            &["sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"],
        ),
        (
            "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
            true,
            &[],
        ),
        (
            "sendInitialEvents=true",
            true,
            &[
                "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
            ],
        ),
        ("plain watch", true, &[]),
        ("resourceVersion=5", true, &[]),
        (
            // a legacy watch is defaulted to initial events from NotOlderThan
            "continue=abc",
            true,
            &[
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided",
            ],
        ),
        (
            "resourceVersionMatch=NotOlderThan",
            true,
            &[
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
            ],
        ),
    ];
    for (query, watch, want) in cases {
        let got: Vec<String> = match opts(query).validate(*watch) {
            Ok(()) => vec![],
            Err(ApiError::Invalid { causes, .. }) => {
                causes.iter().map(FieldError::message).collect()
            }
            Err(other) => panic!("{query}: {other}"),
        };
        assert_eq!(got, *want, "{query}");
    }
}

#[test]
fn options_repeated_parameters_read_first_value() {
    let q = crate::request::query::Query::parse;
    let list = opts(
        "labelSelector=a%3Db&labelSelector=&fieldSelector=metadata.name%3Dx&fieldSelector=&limit=5&limit=x&continue=c1&continue=c2&resourceVersion=7&resourceVersion=9",
    );
    assert_eq!(list.label_selector.requirements().len(), 1);
    assert_eq!(list.field_selector.single_name(), Some("x"));
    assert_eq!(
        (
            list.limit,
            list.continue_token.as_str(),
            list.resource_version.as_str()
        ),
        (5, "c1", "7")
    );
    let write = WriteOptions::from_query(
        &q("fieldValidation=Strict&fieldValidation=bogus"),
        "CreateOptions",
    )
    .expect("first value valid");
    assert_eq!(write.field_validation, FieldValidation::Strict);
    let err = WriteOptions::from_query(&q("dryRun=All&dryRun=bogus"), "CreateOptions")
        .expect_err("dryRun is a list: every value counts");
    assert_eq!(err.code(), 422);
    let delete = DeleteOptions::parse(&q("propagationPolicy=Orphan&propagationPolicy=bogus"), None)
        .expect("first value valid");
    assert_eq!(delete.propagation, Propagation::Orphan);
}

#[test]
fn for_request_name_narrows_or_conflicts_with_selector() {
    use crate::request::info;
    let q = crate::request::query::Query::parse;
    let fields = ["metadata.name", "metadata.namespace"];
    let named = info::parse("GET", "/apis/g/v1/watch/namespaces/ns/rs/mine", &q(""));
    let o = ListOptions::for_request(&named, &q(""), &fields).expect("narrowed");
    assert_eq!(o.field_selector.to_string(), "metadata.name=mine");
    let same = q("fieldSelector=metadata.name%3Dmine,metadata.namespace%3Dns");
    let o = ListOptions::for_request(&named, &same, &fields).expect("same name");
    assert_eq!(o.field_selector.requirements().len(), 2);
    let other = q("fieldSelector=metadata.name%3Dother");
    let err = ListOptions::for_request(&named, &other, &fields).expect_err("conflict");
    assert_eq!(
        err.to_string(),
        "fieldSelector metadata.name doesn't match requested name"
    );
    let unsupported = q("fieldSelector=spec.x%3D1");
    let err = ListOptions::for_request(&named, &unsupported, &fields).expect_err("field first");
    assert_eq!(err.to_string(), "field label not supported: spec.x");
}

#[test]
fn from_query_bad_integers_are_go_num_errors() {
    let cases = [
        (
            "limit=abc",
            r#"strconv.ParseInt: parsing "abc": invalid syntax"#,
        ),
        (
            "timeoutSeconds=abc",
            r#"strconv.ParseInt: parsing "abc": invalid syntax"#,
        ),
        ("limit=", r#"strconv.ParseInt: parsing "": invalid syntax"#),
        (
            "limit=99999999999999999999",
            r#"strconv.ParseInt: parsing "99999999999999999999": value out of range"#,
        ),
    ];
    for (query, want) in cases {
        let err = ListOptions::from_query(&crate::request::query::Query::parse(query)).unwrap_err();
        assert_eq!(
            (err.code(), err.to_string().as_str()),
            (400, want),
            "{query}"
        );
    }
}

#[test]
fn parse_resource_version_as_storage_words_it() {
    assert_eq!(parse_resource_version(""), Ok(0));
    assert_eq!(parse_resource_version("0"), Ok(0));
    assert_eq!(parse_resource_version("42"), Ok(42));
    for bad in ["abc", "-1", "+1"] {
        assert_eq!(
            parse_resource_version(bad),
            Err(format!(
                "resourceVersion: Invalid value: \"{bad}\": strconv.ParseUint: parsing \"{bad}\": invalid syntax"
            ))
        );
    }
}

#[test]
fn for_request_checks_continue_before_resource_version() {
    use crate::request::info::parse;
    let check = |url: &str| {
        let (path, raw) = url.split_once('?').unwrap_or((url, ""));
        let query = crate::request::query::Query::parse(raw);
        let info = parse("GET", path, &query);
        ListOptions::for_request(&info, &query, &["metadata.name"])
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let list = "/apis/g/v1/namespaces/ns/things";
    let garbage = "invalid continue token: continue key is not valid: invalid character '\\x81' looking for beginning of value";
    assert_eq!(
        check(&format!("{list}?continue=garbage&resourceVersion=1")),
        Err(garbage.into())
    );
    let token = crate::request::continuation::encode(5, "x");
    assert_eq!(
        check(&format!("{list}?continue={token}&resourceVersion=1")),
        Err("specifying resource version is not allowed when using continue".into())
    );
    assert_eq!(
        check(&format!("{list}?continue={token}&resourceVersion=0")),
        Ok(())
    );
    assert_eq!(
        check(&format!("{list}?resourceVersion=abc")),
        Err("invalid resource version: resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax".into())
    );
    assert_eq!(
        check(&format!("{list}?watch=1&resourceVersion=abc")),
        Err("resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax".into())
    );
    let get =
        check_get_resource_version(&crate::request::query::Query::parse("resourceVersion=-1"));
    assert_eq!(get.map_err(|e| e.code()), Err(400));
}
