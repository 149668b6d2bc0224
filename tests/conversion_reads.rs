//! Webhook conversion on every read path over the real server (issue 32): objects stored
//! at v1 read at v2 (GET, LIST with its pages and selectors, Table, PartialObjectMetadata)
//! through the stub converter, one review per page; objects written at v2 read at v1
//! without a review.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/conversion.rs"]
mod conversion;
#[path = "common/etcd.rs"]
mod etcd;
#[path = "common/stub_converter.rs"]
mod stub_converter;
#[path = "common/webhook.rs"]
mod webhook;

use common::item_names;
use conversion::{Fixture, PARTIAL, PARTIAL_LIST, Served, TABLE, V1, V2, send};
use serde_json::{Value, json};
use stub_converter::{ANNOTATION, ReceivedReview};

const WIDGETS: Served = Served {
    plural: "widgets",
    kind: "Widget",
    path: "/convert",
};

/// `[desired, [names…]]` of each review, in order.
fn summary(reviews: &[ReceivedReview]) -> Vec<Value> {
    let names = |r: &ReceivedReview| -> Vec<Value> {
        r.objects()
            .iter()
            .map(|o| json!([o["apiVersion"], o["metadata"]["name"]]))
            .collect()
    };
    reviews
        .iter()
        .map(|r| json!([r.desired(), names(r)]))
        .collect()
}

/// a (red, label tier=front), b (blue), c (red) created at v1: no review.
async fn three_at_v1(f: &Fixture) {
    let mut a = conversion::object(V1, "Widget", "a", json!({"color": "red"}));
    a["metadata"]["labels"] = json!({"tier": "front"});
    let (code, body) = send(
        f.server
            .client()
            .post(f.url("widgets", "v1", None))
            .json(&a),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    f.create_v1("widgets", "Widget", "b", json!({"color": "blue"}))
        .await;
    f.create_v1("widgets", "Widget", "c", json!({"color": "red"}))
        .await;
    assert_eq!(
        f.converter.take_reviews().len(),
        0,
        "writes at v1 convert nothing"
    );
}

async fn get(f: &Fixture, url: String, accept: &str) -> Value {
    let (code, body) = send(f.server.client().get(url).header("accept", accept)).await;
    assert_eq!(code, 200, "{body}");
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_at_v2_of_v1_objects_one_review_per_page() {
    let f = Fixture::start(&[WIDGETS]).await;
    three_at_v1(&f).await;
    let v1 = |name: &str| json!([V1, name]);

    let list = get(&f, f.url("widgets", "v2", None), "application/json").await;
    assert_eq!(list["apiVersion"], V2);
    assert_eq!(list["kind"], "WidgetList");
    assert_eq!(item_names(&list), ["a", "b", "c"]);
    let specs: Vec<&Value> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["spec"])
        .collect();
    assert_eq!(
        specs,
        [
            &json!({"color": "red", "shape": "round"}),
            &json!({"color": "blue", "shape": "square"}),
            &json!({"color": "red", "shape": "round"})
        ]
    );
    assert!(
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["apiVersion"] == V2)
    );
    assert_eq!(
        summary(&f.converter.take_reviews()),
        [json!([V2, [v1("a"), v1("b"), v1("c")]])],
        "one review for the page"
    );

    // Pages and selectors: the converted bytes kept for every later reader (no review).
    let first = get(
        &f,
        format!("{}?limit=2", f.url("widgets", "v2", None)),
        "application/json",
    )
    .await;
    assert_eq!(item_names(&first), ["a", "b"]);
    assert_eq!(first["items"][1]["spec"]["shape"], "square");
    let token = first["metadata"]["continue"].as_str().unwrap();
    let url = format!("{}?limit=2&continue={token}", f.url("widgets", "v2", None));
    let second = get(&f, url, "application/json").await;
    assert_eq!(item_names(&second), ["c"]);
    assert_eq!(second["items"][0]["spec"]["shape"], "round");
    assert_eq!(second["apiVersion"], V2);
    assert_eq!(f.converter.review_count(), 0);

    // Selectors filter the converted objects.
    let url = format!(
        "{}?labelSelector=tier%3Dfront",
        f.url("widgets", "v2", None)
    );
    let labelled = get(&f, url, "application/json").await;
    assert_eq!(item_names(&labelled), ["a"]);
    assert_eq!(labelled["items"][0]["spec"]["shape"], "round");
    let url = format!(
        "{}?fieldSelector=metadata.name%3Db",
        f.url("widgets", "v2", None)
    );
    let named = get(&f, url, "application/json").await;
    assert_eq!(item_names(&named), ["b"]);
    assert_eq!(named["items"][0]["spec"]["shape"], "square");
    assert_eq!(f.converter.review_count(), 0);

    // A Table list: the v2 column from the converted objects.
    let table = get(&f, f.url("widgets", "v2", None), TABLE).await;
    assert_eq!(table["kind"], "Table");
    let columns: Vec<&Value> = table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["name"])
        .collect();
    assert_eq!(columns, [&json!("Name"), &json!("Shape")]);
    let cells: Vec<&Value> = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["cells"][1])
        .collect();
    assert_eq!(cells, [&json!("round"), &json!("square"), &json!("round")]);

    let partial = get(&f, f.url("widgets", "v2", None), PARTIAL_LIST).await;
    assert_eq!(partial["kind"], "PartialObjectMetadataList");
    assert_eq!(item_names(&partial), ["a", "b", "c"]);
    assert_eq!(partial["items"][0]["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(f.converter.review_count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_at_v2_of_v1_object_converts_each_representation() {
    let f = Fixture::start(&[WIDGETS]).await;
    three_at_v1(&f).await;

    let got = get(&f, f.url("widgets", "v2", Some("b")), "application/json").await;
    assert_eq!(got["apiVersion"], V2);
    assert_eq!(got["kind"], "Widget");
    assert_eq!(got["spec"], json!({"color": "blue", "shape": "square"}));
    assert!(got["metadata"].get("annotations").is_none(), "{got}");
    let reviews = f.converter.take_reviews();
    assert_eq!(summary(&reviews), [json!([V2, [[V1, "b"]]])]);
    // The object is sent whole as stored: uid, creationTimestamp, managedFields.
    let sent = &reviews[0].objects()[0];
    assert_eq!(sent["metadata"]["uid"], got["metadata"]["uid"]);
    assert!(sent["metadata"]["managedFields"].is_array(), "{sent}");

    // A Table and PartialObjectMetadata of one object convert it too (kube: 1 review each).
    let table = get(&f, f.url("widgets", "v2", Some("a")), TABLE).await;
    assert_eq!(table["rows"][0]["cells"], json!(["a", "round"]));
    let partial = get(&f, f.url("widgets", "v2", Some("c")), PARTIAL).await;
    assert_eq!(partial["kind"], "PartialObjectMetadata");
    assert_eq!(partial["metadata"]["name"], "c");
    assert!(partial.get("spec").is_none());
    assert_eq!(
        summary(&f.converter.take_reviews()),
        [json!([V2, [[V1, "a"]]]), json!([V2, [[V1, "c"]]])]
    );

    // GET at the storage version: the stored object, no review.
    let plain = get(&f, f.url("widgets", "v1", Some("b")), "application/json").await;
    assert_eq!(plain["spec"], json!({"color": "blue"}));
    assert_eq!(f.converter.review_count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_at_v1_of_v2_write_shows_converter_annotation() {
    let f = Fixture::start(&[WIDGETS]).await;
    let body = conversion::object(V2, "Widget", "d", json!({"color": "red", "shape": "star"}));
    let (code, created) = send(
        f.server
            .client()
            .post(f.url("widgets", "v2", None))
            .json(&body),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    f.converter.take_reviews();

    let got = get(&f, f.url("widgets", "v1", Some("d")), "application/json").await;
    assert_eq!(got["apiVersion"], V1);
    assert_eq!(got["spec"], json!({"color": "red"}));
    assert_eq!(got["metadata"]["annotations"], json!({ANNOTATION: "star"}));
    let list = get(&f, f.url("widgets", "v1", None), "application/json").await;
    assert_eq!(
        list["items"][0]["metadata"]["annotations"],
        json!({ANNOTATION: "star"})
    );
    assert_eq!(
        f.converter.review_count(),
        0,
        "reads at the storage version"
    );
    // And back at v2: the shape from the annotation.
    let back = get(&f, f.url("widgets", "v2", Some("d")), "application/json").await;
    assert_eq!(back["spec"], json!({"color": "red", "shape": "star"}));
    assert_eq!(back["metadata"]["uid"], created["metadata"]["uid"]);
}
