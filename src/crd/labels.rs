//! What one request is recorded under in `/metrics`, taken from its request info before
//! it runs: the verb, and the served group, resource and subresource it names. Label
//! values come from bounded sets only: a resource that is not served is recorded with
//! empty group and resource, an unknown HTTP method as `other`, a made-up subresource as
//! `other`, so no client can grow the series without limit.

use std::sync::{Arc, LazyLock};

use crate::crd::catalog::Catalog;
use crate::metrics::RequestLabels;
use crate::request::info::{RequestInfo, Subresource, Verb};

/// The empty label of requests for no served resource.
static UNNAMED: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from(""));

/// Labels for a request; resources the catalog does not serve are not named.
pub fn request_labels(info: &RequestInfo, catalog: &Catalog) -> RequestLabels {
    let served = info
        .is_resource_request
        .then(|| catalog.lookup(&info.api_group, &info.api_version, &info.resource))
        .flatten();
    RequestLabels::new(
        verb_label(&info.verb),
        served.map_or_else(|| UNNAMED.clone(), |r| r.labels.group.clone()),
        served.map_or_else(|| UNNAMED.clone(), |r| r.labels.plural.clone()),
        if served.is_some() {
            subresource_label(&info.subresource)
        } else {
            ""
        },
    )
}

/// A closed label set: clients cannot grow the series with made-up subresources.
fn subresource_label(subresource: &Subresource) -> &'static str {
    match subresource {
        Subresource::None => "",
        Subresource::Status => "status",
        Subresource::Scale => "scale",
        Subresource::Other(_) => "other",
    }
}

/// A `'static` label: resource verbs by name, HTTP methods from a fixed set so that
/// clients cannot grow the series.
fn verb_label(verb: &Verb) -> &'static str {
    const METHODS: [&str; 7] = ["get", "head", "post", "put", "patch", "delete", "options"];
    verb.resource_verb().unwrap_or_else(|| {
        let method = verb.as_str();
        METHODS
            .into_iter()
            .find(|m| *m == method)
            .unwrap_or("other")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verb_label_unknown_method_is_other() {
        let cases = [
            (Verb::List, "list"),
            (Verb::NonResource("get".into()), "get"),
            (Verb::NonResource("brew".into()), "other"),
        ];
        for (verb, want) in cases {
            assert_eq!(verb_label(&verb), want);
        }
    }

    #[test]
    fn request_labels_subresource_closed_set_unserved_unnamed() {
        let crd = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition", "metadata": {"name": "widgets.example.org"},
            "spec": {"group": "example.org", "scope": "Cluster",
                "names": {"plural": "widgets", "kind": "Widget"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object"}}}]}});
        let catalog = Catalog::build(&[serde_json::from_value(crd).unwrap()]).unwrap();
        let cases = [
            ("/apis/example.org/v1/widgets/w", "example.org", ""),
            (
                "/apis/example.org/v1/widgets/w/status",
                "example.org",
                "status",
            ),
            (
                "/apis/example.org/v1/widgets/w/scale",
                "example.org",
                "scale",
            ),
            (
                "/apis/example.org/v1/widgets/w/made-up",
                "example.org",
                "other",
            ),
            ("/apis/example.org/v1/gadgets/w/status", "", ""),
        ];
        for (path, group, subresource) in cases {
            let info = crate::request::info::parse("GET", path, &Default::default());
            let labels = request_labels(&info, &catalog);
            assert_eq!(&*labels.group, group, "{path}");
            assert_eq!(labels.subresource, subresource, "{path}");
        }
    }
}
