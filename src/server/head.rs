//! Answers to HEAD: the GET response's head, without its body.
//!
//! hyper drops the body of a HEAD response over HTTP/1.1 but sends it over h2, where
//! DATA frames after a HEAD are a protocol error: clients (curl, h2) reset the stream.
//! Go's server sends the head alone on both, with the length the body would have had
//! when it is known.

use axum::body::Body;
use http::{HeaderValue, Method, Response, header};
use hyper::body::Body as _;

/// `resp` as the answer to `method`: unchanged, or for HEAD without a body and with the
/// body's exact length as `Content-Length` (unless already set).
pub fn answer(method: &Method, resp: Response<Body>) -> Response<Body> {
    if method != Method::HEAD {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    if let Some(len) = body.size_hint().exact() {
        parts
            .headers
            .entry(header::CONTENT_LENGTH)
            .or_insert_with(|| HeaderValue::from(len));
    }
    // Dropping a stream's body (a watch) ends it: nothing is sent for HEAD.
    drop(body);
    Response::from_parts(parts, Body::empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    fn response(body: Body) -> Response<Body> {
        let mut resp = Response::new(body);
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        resp
    }

    #[tokio::test]
    async fn answer_head_drops_body_keeps_length_and_headers() {
        let got = answer(&Method::HEAD, response(Body::from("{\"a\":1}")));
        assert_eq!(got.headers()[header::CONTENT_LENGTH], "7");
        assert_eq!(got.headers()[header::CONTENT_TYPE], "application/json");
        assert!(got.body().is_end_stream());
        let bytes = got.into_body().collect().await.unwrap().to_bytes();
        assert!(bytes.is_empty());
    }

    #[tokio::test]
    async fn answer_head_stream_body_sends_no_length() {
        let stream = futures::stream::once(async { Ok::<_, std::io::Error>("x") });
        let got = answer(&Method::HEAD, response(Body::from_stream(stream)));
        assert!(got.headers().get(header::CONTENT_LENGTH).is_none());
        assert!(got.body().is_end_stream());
    }

    #[tokio::test]
    async fn answer_get_keeps_body() {
        let got = answer(&Method::GET, response(Body::from("abc")));
        let bytes = got.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(bytes, "abc");
    }
}
