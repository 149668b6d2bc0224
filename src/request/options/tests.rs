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
                "allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true",
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
