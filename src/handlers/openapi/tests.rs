//! Handler tests: every answer of the OpenAPI endpoints, without HTTP.

use super::*;

fn docs() -> Documents {
    let crd = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition", "metadata": {"name": "widgets.example.org"},
        "spec": {"group": "example.org", "scope": "Cluster",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object"}}}]}});
    let crd = serde_json::from_value(crd).unwrap();
    let catalog = crate::crd::catalog::Catalog::build(&[crd]).unwrap();
    catalog.openapi().clone()
}

fn get(docs: &Documents, path: &str, query: &[(&str, &str)], headers: &[(&str, &str)]) -> Answer {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let query: Vec<(String, String)> = query
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        map.insert(
            HeaderName::from_bytes(k.as_bytes()).unwrap(),
            HeaderValue::from_str(v).unwrap(),
        );
    }
    answer(docs, &parts, &query, &map, jiff::Timestamp::UNIX_EPOCH).unwrap()
}

/// (name, path, query, request headers, status, expected response headers).
type Case<'a> = (
    &'a str,
    &'a str,
    Vec<(&'a str, &'a str)>,
    Vec<(&'a str, &'a str)>,
    StatusCode,
    Vec<(HeaderName, &'a str)>,
);

#[test]
fn answer_cases_follow_kube_openapi_handlers() {
    let docs = docs();
    let gv = docs.v3("apis/example.org/v1").unwrap().etag().to_string();
    let quoted_gv = quoted(&gv);
    let v2 = quoted(docs.v2().etag());
    let modified = http_date(docs.built_at());
    let weak_v2 = format!("\"x\", W/{v2}");
    let protobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
    let cases: Vec<Case<'_>> = vec![
        (
            "v2 json",
            "/openapi/v2",
            vec![],
            vec![],
            StatusCode::OK,
            vec![
                (header::ETAG, &v2),
                (header::VARY, "Accept"),
                (header::CONTENT_TYPE, "application/json"),
            ],
        ),
        (
            "v2 protobuf only",
            "/openapi/v2",
            vec![],
            vec![("accept", protobuf)],
            StatusCode::NOT_ACCEPTABLE,
            vec![(header::VARY, "Accept")],
        ),
        (
            "v2 any",
            "/openapi/v2",
            vec![],
            vec![("accept", "*/*")],
            StatusCode::OK,
            vec![(header::ETAG, &v2)],
        ),
        (
            "v2 current etag",
            "/openapi/v2",
            vec![],
            vec![("if-none-match", &v2)],
            StatusCode::NOT_MODIFIED,
            vec![(header::ETAG, &v2)],
        ),
        (
            "v2 weak etag in a list",
            "/openapi/v2",
            vec![],
            vec![("if-none-match", &weak_v2)],
            StatusCode::NOT_MODIFIED,
            vec![],
        ),
        (
            "v3 modified since",
            "/openapi/v3/apis/example.org/v1",
            vec![],
            vec![("if-modified-since", &modified)],
            StatusCode::NOT_MODIFIED,
            vec![],
        ),
        (
            "v3 hash pinned",
            "/openapi/v3/apis/example.org/v1",
            vec![("hash", &gv)],
            vec![],
            StatusCode::OK,
            vec![
                (header::CACHE_CONTROL, "public, immutable"),
                (header::EXPIRES, "Fri, 01 Jan 1971 00:00:00 UTC"),
                (header::ETAG, &quoted_gv),
                (header::LAST_MODIFIED, &modified),
            ],
        ),
        (
            "v3 stale hash",
            "/openapi/v3/apis/example.org/v1",
            vec![("hash", "AB")],
            vec![],
            StatusCode::MOVED_PERMANENTLY,
            vec![(header::ETAG, &quoted_gv)],
        ),
        (
            "v3 if-none-match wildcard",
            "/openapi/v3",
            vec![],
            vec![("if-none-match", "*")],
            StatusCode::NOT_MODIFIED,
            vec![],
        ),
    ];
    for (case, path, query, headers, status, want) in cases {
        let got = get(&docs, path, &query, &headers);
        assert_eq!(got.status, status, "{case}");
        for (name, value) in want {
            assert_eq!(got.header(&name), Some(value), "{case}: {name}");
        }
    }
    let stale = get(
        &docs,
        "/openapi/v3/apis/example.org/v1",
        &[("hash", "AB")],
        &[],
    );
    let location = format!("/openapi/v3/apis/example.org/v1?hash={gv}");
    assert_eq!(stale.header(&header::LOCATION), Some(location.as_str()));
}

#[test]
fn answer_unknown_paths_not_found() {
    let docs = docs();
    let parts_cases: [&[&str]; 3] = [
        &["openapi", "v3", "apis", "nope.example.org", "v1"],
        &["openapi", "v1"],
        &["openapi"],
    ];
    for parts in parts_cases {
        let got = answer(
            &docs,
            parts,
            &[],
            &HeaderMap::new(),
            jiff::Timestamp::UNIX_EPOCH,
        );
        assert!(matches!(got, Err(ApiError::PathNotFound)), "{parts:?}");
    }
}

#[test]
fn accepts_json_clauses() {
    let cases = [
        (None, true),
        (Some("application/json"), true),
        (Some("application/json;q=0.9, text/html"), true),
        (Some("application/*"), true),
        (Some("*/*"), true),
        (
            Some("application/com.github.proto-openapi.spec.v2@v1.0+protobuf"),
            false,
        ),
        (Some("text/plain"), false),
    ];
    for (accept, want) in cases {
        assert_eq!(accepts_json(accept), want, "{accept:?}");
    }
}
