//! The security invariant "authorization and the handler read the same parsed request",
//! as a table: for each verb and path form, the attributes a SubjectAccessReview is asked
//! about must be enforced by the scope the handler serves (namespace, name, selectors).

use serde_json::{Value, json};

use super::sar::{self, field_attributes, label_attributes};
use crate::request::info::{self, RequestInfo, Verb};
use crate::request::options::ListOptions;
use crate::request::query::Query;
use crate::request::user::UserInfo;

/// Fields a test resource can be selected by (the two every custom resource has, plus a
/// `selectableFields` entry).
const SELECTABLE: &[&str] = &["metadata.name", "metadata.namespace", "spec.color"];

/// What a handler may touch, in the attributes' vocabulary.
#[derive(Debug)]
struct Scope {
    namespace: String,
    /// The one object the handler reads or writes, when there is one.
    name: Option<String>,
    /// Requirements as a review would carry them (`[]` for none).
    field: Value,
    label: Value,
}

/// The handler's scope: single-object verbs act on the path's name; collection verbs on
/// what [`ListOptions::for_request`] (the call the list, watch and deletecollection
/// handlers make) selects. `Err` is the 4xx the request ends with instead.
fn handler_scope(info: &RequestInfo, query: &Query) -> Result<Scope, u16> {
    if !matches!(info.verb, Verb::List | Verb::Watch | Verb::DeleteCollection) {
        return Ok(Scope {
            namespace: info.namespace.clone(),
            name: (!info.name.is_empty()).then(|| info.name.clone()),
            field: json!([]),
            label: json!([]),
        });
    }
    let options = ListOptions::for_request(info, query, SELECTABLE).map_err(|e| e.code())?;
    let field = field_attributes(&options.field_selector).and_then(|a| a.requirements);
    let label = label_attributes(&options.label_selector).and_then(|a| a.requirements);
    Ok(Scope {
        namespace: info.namespace.clone(),
        name: options.field_selector.single_name().map(str::to_owned),
        field: serde_json::to_value(field.unwrap_or_default()).unwrap_or_default(),
        label: serde_json::to_value(label.unwrap_or_default()).unwrap_or_default(),
    })
}

/// The review's resource attributes for `bob` doing the request.
fn attributes(info: &RequestInfo) -> Value {
    let bob = UserInfo::authenticated("bob".into(), vec![]);
    let spec = serde_json::to_value(sar::spec(&bob, info)).unwrap_or_default();
    spec["resourceAttributes"].clone()
}

fn requirements(attributes: &Value, key: &str) -> Vec<Value> {
    attributes[key]["requirements"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Every requirement authorization saw is one the handler applies.
fn enforced(authorized: &[Value], served: &Value) -> bool {
    let served = served.as_array().cloned().unwrap_or_default();
    authorized.iter().all(|r| served.contains(r))
}

/// (case, method, url, verb, authorized name, served name or the 4xx instead).
type Case<'a> = (
    &'a str,
    &'a str,
    String,
    &'a str,
    &'a str,
    Result<Option<&'a str>, u16>,
);

const C: &str = "/apis/g.io/v1/namespaces/default/crontabs";

#[test]
fn authorized_attributes_equal_handler_scope() {
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("list", "GET", C.into(), "list", "", Ok(None)),
        ("list by name", "GET", format!("{C}?fieldSelector=metadata.name%3Dmine"), "list", "mine", Ok(Some("mine"))),
        ("list empty second field selector", "GET", format!("{C}?fieldSelector=metadata.name%3Dmine&fieldSelector="), "list", "mine", Ok(Some("mine"))),
        ("list other second field selector", "GET", format!("{C}?fieldSelector=metadata.name%3Dmine&fieldSelector=metadata.name%3Dsecret"), "list", "mine", Ok(Some("mine"))),
        ("list empty second label selector", "GET", format!("{C}?labelSelector=owner%3Dme&labelSelector="), "list", "", Ok(None)),
        ("list name and namespace", "GET", format!("{C}?fieldSelector=metadata.namespace%3Ddefault,metadata.name%3Dmine"), "list", "mine", Ok(Some("mine"))),
        ("list unsafe name stays a selector", "GET", format!("{C}?fieldSelector=metadata.name%3Da%25b"), "list", "", Ok(Some("a%b"))),
        ("list bad limit", "GET", format!("{C}?fieldSelector=metadata.name%3Dmine&limit=x"), "list", "", Err(400)),
        ("list unsupported field", "GET", format!("{C}?fieldSelector=spec.size%3D1"), "list", "", Err(400)),
        ("list selectable field", "GET", format!("{C}?fieldSelector=spec.color%3Dred&fieldSelector="), "list", "", Ok(None)),
        ("watch param repeated", "GET", format!("{C}?watch=1&watch=0&fieldSelector=metadata.name%3Dmine&fieldSelector="), "watch", "mine", Ok(Some("mine"))),
        ("watch second selectors", "GET", format!("{C}?watch=true&labelSelector=owner%3Dme&labelSelector=&fieldSelector=metadata.name%3Dmine&fieldSelector=metadata.name%3Dsecret"), "watch", "mine", Ok(Some("mine"))),
        ("deletecollection second selectors", "DELETE", format!("{C}?labelSelector=owner%3Dme&labelSelector=&fieldSelector=metadata.name%3Dmine&fieldSelector="), "deletecollection", "", Ok(Some("mine"))),
        ("legacy watch named", "GET", "/apis/g.io/v1/watch/namespaces/default/crontabs/mine".into(), "watch", "mine", Ok(Some("mine"))),
        ("legacy watch named cluster-wide", "GET", "/apis/g.io/v1/watch/crontabs/mine".into(), "watch", "mine", Ok(Some("mine"))),
        ("legacy watch named with labels", "GET", "/apis/g.io/v1/watch/namespaces/default/crontabs/mine?labelSelector=owner%3Dme".into(), "watch", "mine", Ok(Some("mine"))),
        ("legacy watch named same name", "GET", "/apis/g.io/v1/watch/crontabs/mine?fieldSelector=metadata.name%3Dmine".into(), "watch", "mine", Ok(Some("mine"))),
        ("legacy watch named other name", "GET", "/apis/g.io/v1/watch/crontabs/mine?fieldSelector=metadata.name%3Dsecret".into(), "watch", "mine", Err(400)),
        ("legacy watch collection", "GET", "/apis/g.io/v1/watch/namespaces/default/crontabs?fieldSelector=metadata.name%3Dmine".into(), "watch", "", Ok(Some("mine"))),
        ("get", "GET", format!("{C}/mine?fieldSelector=metadata.name%3Dsecret"), "get", "mine", Ok(Some("mine"))),
        ("update", "PUT", format!("{C}/mine"), "update", "mine", Ok(Some("mine"))),
        ("patch status", "PATCH", format!("{C}/mine/status"), "patch", "mine", Ok(Some("mine"))),
        ("delete", "DELETE", format!("{C}/mine?fieldSelector=metadata.name%3Dsecret"), "delete", "mine", Ok(Some("mine"))),
        ("create", "POST", C.into(), "create", "", Ok(None)),
    ];
    for (case, method, url, verb, name, served) in cases {
        let (path, raw) = url.split_once('?').unwrap_or((url.as_str(), ""));
        let query = Query::parse(raw);
        let info = info::parse(method, path, &query);
        let attrs = attributes(&info);
        assert_eq!(info.verb.as_str(), *verb, "{case}: verb");
        assert_eq!(
            attrs["name"].as_str().unwrap_or_default(),
            *name,
            "{case}: authorized name"
        );
        let scope = handler_scope(&info, &query);
        let scope = match (served, scope) {
            (Err(code), Err(got)) => {
                assert_eq!(*code, got, "{case}: refusal");
                continue;
            }
            (want, got) => got.unwrap_or_else(|e| panic!("{case}: want {want:?}, got {e}")),
        };
        assert_eq!(
            scope.name.as_deref(),
            served.ok().flatten(),
            "{case}: served name"
        );
        assert_eq!(
            attrs["namespace"].as_str().unwrap_or_default(),
            scope.namespace,
            "{case}: namespace"
        );
        if !name.is_empty() {
            assert_eq!(scope.name.as_deref(), Some(*name), "{case}: name enforced");
        }
        let fields = requirements(&attrs, "fieldSelector");
        let labels = requirements(&attrs, "labelSelector");
        assert!(
            enforced(&fields, &scope.field),
            "{case}: {fields:?} vs {scope:?}"
        );
        assert!(
            enforced(&labels, &scope.label),
            "{case}: {labels:?} vs {scope:?}"
        );
    }
}

#[test]
fn authorized_selectors_are_the_served_ones_exactly() {
    // outside the deprecated /watch/ prefix, what is authorized is exactly what is served
    let url = format!(
        "{C}?labelSelector=owner%3Dme,tier%20notin%20(a)&labelSelector=&fieldSelector=metadata.name%3Dmine,spec.color!%3Dred&fieldSelector=metadata.name%3Dsecret"
    );
    let (path, raw) = url.split_once('?').unwrap_or_default();
    let query = Query::parse(raw);
    for method in ["GET", "DELETE"] {
        let info = info::parse(method, path, &query);
        let attrs = attributes(&info);
        let scope = handler_scope(&info, &query).expect("served");
        assert_eq!(
            attrs["fieldSelector"]["requirements"], scope.field,
            "{method}"
        );
        assert_eq!(
            attrs["labelSelector"]["requirements"], scope.label,
            "{method}"
        );
        assert_eq!(
            scope.field,
            json!([{"key": "metadata.name", "operator": "In", "values": ["mine"]},
                {"key": "spec.color", "operator": "NotIn", "values": ["red"]}]),
            "{method}"
        );
    }
}
