//! The chain's pure helpers: deadlines and the 404 page.

use super::*;

#[tokio::test]
async fn page_not_found_answers_text_for_unrouted_paths_only() {
    use http_body_util::BodyExt;
    let resp = match page_not_found(Reply::Error(ApiError::PathNotFound)) {
        Reply::Raw(resp) => resp,
        _ => panic!("not a page"),
    };
    assert_eq!(resp.status(), http::StatusCode::NOT_FOUND);
    let headers = resp.headers();
    assert_eq!(
        headers[http::header::CONTENT_TYPE],
        "text/plain; charset=utf-8"
    );
    assert_eq!(headers[http::header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(body, "404 page not found\n");
    let object = ApiError::NotFound {
        resource: crate::error::GroupResource::new("g", "rs"),
        name: "a".into(),
    };
    assert!(matches!(
        page_not_found(Reply::Error(object)),
        Reply::Error(ApiError::NotFound { .. })
    ));
}

#[test]
fn request_deadline_timeout_capped_by_request_timeout() {
    let started = std::time::Instant::now();
    let max = std::time::Duration::from_secs(60);
    let secs = std::time::Duration::from_secs;
    let cases = [
        (None, secs(60)),
        (Some(secs(5)), secs(5)),
        (Some(secs(0)), secs(60)),
        (Some(secs(60)), secs(60)),
        (Some(secs(3600)), secs(60)),
    ];
    for (asked, want) in cases {
        assert_eq!(
            request_deadline(started, asked, max),
            started + want,
            "{asked:?}"
        );
    }
}
