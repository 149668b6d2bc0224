//! LIST pages across cache and store: pages after the first are read at the first's
//! revision, from the cache when nothing changed since and from the store otherwise, and
//! continue tokens are the same with and without the cache.

use std::collections::BTreeMap;

use super::*;

const OBJECTS: usize = 30;
const LIMIT: usize = 10;

/// Creates the objects; their names and resourceVersions.
async fn fill(server: &Server) -> BTreeMap<String, i64> {
    let c = server.client();
    let mut created = BTreeMap::new();
    for i in 0..OBJECTS {
        let name = format!("p{i:02}");
        let object = create(server, &c, &name, 0).await;
        created.insert(name, rv(&object));
    }
    created
}

/// The first page: its items, continue token and resourceVersion.
async fn first_page(server: &Server) -> (Vec<(String, i64)>, String, i64) {
    let list = get_ok(server, &server.client(), &format!("{CT}?limit={LIMIT}")).await;
    let token = list["metadata"]["continue"].as_str().unwrap().to_string();
    assert!(
        !token.is_empty(),
        "a first page of {LIMIT} continues: {list}"
    );
    (items(&list), token, rv(&list))
}

/// The pages after `token`, each at the first page's resourceVersion.
async fn rest(server: &Server, mut token: String, at: i64) -> Vec<(String, i64)> {
    let c = server.client();
    let mut all = Vec::new();
    while !token.is_empty() {
        let list = get_ok(server, &c, &format!("{CT}?limit={LIMIT}&continue={token}")).await;
        assert_eq!(rv(&list), at, "every page at the first page's revision");
        all.extend(items(&list));
        token = list["metadata"]["continue"].as_str().unwrap().to_string();
        assert!(all.len() <= OBJECTS, "more pages than objects: {all:?}");
    }
    all
}

/// The first page from `first`, the rest from `then` (after a write when `changed`):
/// together exactly `want`.
async fn paged(first: &Server, then: &Server, want: &BTreeMap<String, i64>, changed: bool) {
    let (mut all, token, at) = first_page(first).await;
    if changed {
        // A write in the next pages' range: the cache no longer has the token's state.
        update(first, &first.client(), "p25", 7).await;
    }
    all.extend(rest(then, token, at).await);
    let want: Vec<_> = want.iter().map(|(n, r)| (n.clone(), *r)).collect();
    assert_eq!(
        all, want,
        "pages as of the first page (changed between: {changed})"
    );
}

/// With and without a write between pages, on one server.
async fn pages_as_of_first(server: &Server) {
    ready(server).await;
    let mut state = fill(server).await;
    paged(server, server, &state, false).await;
    paged(server, server, &state, true).await;
    // The write happened: a fresh list shows it.
    let list = get_ok(server, &server.client(), CT).await;
    let now: BTreeMap<_, _> = items(&list).into_iter().collect();
    assert!(now["p25"] > state["p25"], "p25 updated: {list}");
    state.insert("p25".into(), now["p25"]);
    assert_eq!(now, state);
}

#[tokio::test]
async fn list_embedded_continue_after_write_pages_as_of_first() {
    let server = Server::start();
    pages_as_of_first(&server).await;
}

#[tokio::test]
async fn list_etcd_continue_across_cached_and_direct_servers_same_pages() {
    let etcd = etcd::Etcd::start();
    let cached = on_etcd(&etcd, &[]);
    let direct = on_etcd(&etcd, &["--default-watch-cache-size", "0"]);
    pages_as_of_first(&cached).await;
    ready(&direct).await;
    let state: BTreeMap<_, _> = items(&get_ok(&direct, &direct.client(), CT).await)
        .into_iter()
        .collect();
    assert_eq!(state.len(), OBJECTS);
    // Tokens of one path continued on the other, without and with a write between.
    paged(&direct, &cached, &state, false).await;
    paged(&cached, &direct, &state, false).await;
    let mut state = state;
    paged(&direct, &cached, &state, true).await;
    state.insert(
        "p25".into(),
        rv(&get_ok(&direct, &direct.client(), &format!("{CT}/p25")).await),
    );
    paged(&cached, &direct, &state, true).await;
}
