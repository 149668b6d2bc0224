//! The calls `migrate` makes to a live server through kube's client: discovery of the
//! resource, paged lists, re-reads after a conflict, the migration request itself, and
//! `/storedversions`.
//!
//! The migration request is exactly what kube's StorageVersionMigration controller sends
//! (KEP-4192): a server-side apply with `fieldManager=storage-version-migrator-controller`
//! of `{kind, apiVersion, metadata: {uid, resourceVersion}}` — an empty field set, so the
//! object is read, re-encoded at the storage version and written only when its stored
//! bytes change; the uid makes a deleted object a 409 instead of a create, the
//! resourceVersion makes a changed one a 409.

use http::Request;
use serde_json::{Value, json};

/// kube's StorageVersionMigration controller's field manager.
pub const FIELD_MANAGER: &str = "storage-version-migrator-controller";

/// The resource as served: the version requests use, its kind and scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// `plural.group`.
    pub name: String,
    pub group: String,
    pub plural: String,
    pub version: String,
    pub kind: String,
    pub namespaced: bool,
}

/// One listed object: where it is and the preconditions of its migration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub resource_version: String,
}

impl Item {
    /// `namespace/name` (the name alone when cluster-scoped): in storage-key order.
    pub fn key(&self) -> String {
        match self.namespace.as_str() {
            "" => self.name.clone(),
            ns => format!("{ns}/{}", self.name),
        }
    }

    fn of(object: &Value) -> Item {
        let meta = &object["metadata"];
        let text = |field: &str| meta[field].as_str().unwrap_or_default().to_string();
        Item {
            namespace: text("namespace"),
            name: text("name"),
            uid: text("uid"),
            resource_version: text("resourceVersion"),
        }
    }
}

/// One page of a list.
pub struct Page {
    pub items: Vec<Item>,
    /// The token of the next page, if any.
    pub next: Option<String>,
    /// Objects after this page, when the server says.
    pub remaining: Option<u64>,
}

fn get(path: &str) -> Request<Vec<u8>> {
    let mut req = Request::new(Vec::new());
    *req.uri_mut() = path.parse().unwrap_or_default();
    req
}

/// The status code of a failed call (0 when it was no API answer).
pub fn code(err: &kube::Error) -> u16 {
    match err {
        kube::Error::Api(status) => status.code,
        _ => 0,
    }
}

/// Finds `plural.group`: the group's versions, preferred first, and the first that
/// serves the plural. `None` when the server does not serve it.
pub async fn discover(client: &kube::Client, name: &str) -> Result<Option<Resource>, kube::Error> {
    let Some((plural, group)) = name.split_once('.') else {
        return Ok(None);
    };
    let found: Result<Value, _> = client.request(get(&format!("/apis/{group}"))).await;
    let group_doc = match found {
        Err(e) if code(&e) == 404 => return Ok(None),
        other => other?,
    };
    let preferred = group_doc["preferredVersion"]["version"].as_str();
    let mut versions: Vec<&str> = preferred.into_iter().collect();
    let listed = group_doc["versions"].as_array().into_iter().flatten();
    versions.extend(listed.filter_map(|v| v["version"].as_str()));
    for version in versions {
        let list: Value = client
            .request(get(&format!("/apis/{group}/{version}")))
            .await?;
        let resources = list["resources"].as_array().into_iter().flatten();
        if let Some(r) = resources.into_iter().find(|r| r["name"] == plural) {
            return Ok(Some(Resource {
                name: name.to_string(),
                group: group.to_string(),
                plural: plural.to_string(),
                version: version.to_string(),
                kind: r["kind"].as_str().unwrap_or_default().to_string(),
                namespaced: r["namespaced"].as_bool().unwrap_or(false),
            }));
        }
    }
    Ok(None)
}

impl Resource {
    fn collection(&self) -> String {
        format!("/apis/{}/{}/{}", self.group, self.version, self.plural)
    }

    fn object(&self, item: &Item) -> String {
        let (g, v, p, name) = (&self.group, &self.version, &self.plural, &item.name);
        match (self.namespaced, item.namespace.as_str()) {
            (true, ns) if !ns.is_empty() => format!("/apis/{g}/{v}/namespaces/{ns}/{p}/{name}"),
            _ => format!("/apis/{g}/{v}/{p}/{name}"),
        }
    }

    /// One page of every namespace's objects, from `token` (the first page without).
    pub async fn list(
        &self,
        client: &kube::Client,
        limit: usize,
        token: Option<&str>,
    ) -> Result<Page, kube::Error> {
        let mut path = format!("{}?limit={limit}", self.collection());
        if let Some(token) = token {
            path.push_str("&continue=");
            path.push_str(&percent_encode(token));
        }
        let list: Value = client.request(get(&path)).await?;
        let items = list["items"].as_array().into_iter().flatten();
        let next = list["metadata"]["continue"]
            .as_str()
            .filter(|t| !t.is_empty());
        Ok(Page {
            items: items.map(Item::of).collect(),
            next: next.map(str::to_string),
            remaining: list["metadata"]["remainingItemCount"].as_u64(),
        })
    }

    /// The object now; `None` when it is gone.
    pub async fn get(
        &self,
        client: &kube::Client,
        item: &Item,
    ) -> Result<Option<Item>, kube::Error> {
        match client.request::<Value>(get(&self.object(item))).await {
            Ok(object) => Ok(Some(Item::of(&object))),
            Err(e) if code(&e) == 404 => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// kube's StorageVersionMigration request for `item`; the resourceVersion answered.
    pub async fn migrate(&self, client: &kube::Client, item: &Item) -> Result<String, kube::Error> {
        let body = json!({
            "kind": self.kind,
            "apiVersion": format!("{}/{}", self.group, self.version),
            "metadata": {"uid": item.uid, "resourceVersion": item.resource_version},
        });
        let path = format!("{}?fieldManager={FIELD_MANAGER}", self.object(item));
        let mut req = get(&path);
        *req.method_mut() = http::Method::PATCH;
        req.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/apply-patch+yaml"),
        );
        *req.body_mut() = body.to_string().into_bytes();
        let answer: Value = client.request(req).await?;
        Ok(Item::of(&answer).resource_version)
    }
}

/// `/storedversions` (all resources) or `/storedversions/<plural.group>`; `None` when the
/// server cannot be asked (through an aggregator, which proxies only `/apis/<group>/...`).
pub async fn stored_versions(client: &kube::Client, resource: Option<&str>) -> Option<Value> {
    let path = match resource {
        Some(name) => format!("/storedversions/{name}"),
        None => "/storedversions".to_string(),
    };
    client.request(get(&path)).await.ok()
}

/// A continue token in a query (base64: `+`, `/` and `=` escaped).
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
