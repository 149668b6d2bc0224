//! HEAD answers over HTTP/1.1 and h2: the GET answer's head (code, Content-Type, the body's
//! length) and no body; over h2 the stream ends cleanly instead of being reset.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;

use common::Server;
use serde_json::json;

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

/// The admin client offering only `alpn` (`http/1.1` or `h2`).
fn client(server: &Server, alpn: &[u8]) -> reqwest::Client {
    let mut config = common::tls_config(&server.pki, Some(("admin.crt", "admin.key")));
    config.alpn_protocols = vec![alpn.to_vec()];
    reqwest::Client::builder()
        .use_preconfigured_tls(config)
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .unwrap()
}

#[tokio::test]
async fn head_over_http1_and_h2_answers_get_head_without_body() {
    let server = Server::start();
    let admin = server.client();
    let object = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "hd1"}, "spec": {"cronSpec": "* * * * */5", "image": "img"}});
    let created = admin
        .post(server.url(CT))
        .json(&object)
        .send()
        .await
        .unwrap();
    assert_eq!(created.status().as_u16(), 201);
    let paths = [
        (format!("{CT}/hd1"), 200, "application/json"),
        (CT.to_string(), 200, "application/json"),
        (format!("{CT}/missing"), 404, "application/json"),
        (
            "/apis/nosuch.example.com/v1/foos".into(),
            404,
            "text/plain; charset=utf-8",
        ),
    ];
    for (alpn, version) in [
        (&b"http/1.1"[..], reqwest::Version::HTTP_11),
        (&b"h2"[..], reqwest::Version::HTTP_2),
    ] {
        let c = client(&server, alpn);
        for (path, code, content_type) in &paths {
            let get = c.get(server.url(path)).send().await.unwrap();
            let get_length = get.bytes().await.unwrap().len();
            let head = c.head(server.url(path)).send().await.unwrap();
            assert_eq!(head.version(), version, "{path}");
            assert_eq!(head.status().as_u16(), *code, "{version:?} {path}");
            let header = |name: &str| head.headers()[name].to_str().unwrap().to_string();
            assert_eq!(header("content-type"), *content_type, "{version:?} {path}");
            assert_eq!(header("content-length"), get_length.to_string(), "{path}");
            let body = head.bytes().await.unwrap();
            assert!(body.is_empty(), "{version:?} {path}: {body:?}");
        }
    }
}
