//! A watch's accounting: its place in `apiserver_longrunning_requests` (kube's labels
//! and scope), and the 429 of a watch refused by a limit.

use prometheus_client::metrics::gauge::Gauge;

use crate::crd::labels::request_labels;
use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::handlers::{AppState, Call};
use crate::metrics::LongRunningLabels;
use crate::request::info::RequestInfo;

/// The in-flight limit's 429 (`TooManyRequests`, `Retry-After`) for a watch's initial
/// list past the read-only budget or a user past `--max-watches-per-user`, counted in
/// `apiserver_request_terminations_total` as the limit's own 429s are.
pub(super) fn too_many(state: &AppState, call: &Call, message: String) -> ApiError {
    let labels = request_labels(&call.info, &call.catalog);
    state.metrics.count_termination(labels, 429);
    crate::inflight::too_many_requests(message)
}

/// kube's `apiserver_longrunning_requests` labels of a watch (`RecordLongRunning`): a
/// named object is `resource` scope, a namespace's collection `namespace`, every
/// namespace's `cluster`.
pub(super) fn longrunning_labels(info: &RequestInfo, ctx: &Target) -> LongRunningLabels {
    LongRunningLabels {
        verb: "WATCH",
        group: ctx.resource.labels.group.clone(),
        version: ctx.version().name.clone(),
        resource: ctx.resource.labels.plural.clone(),
        subresource: "",
        scope: clean_scope(info),
        component: "apiserver",
    }
}

/// kube's `CleanScope` for a watch.
fn clean_scope(info: &RequestInfo) -> &'static str {
    match (info.name.is_empty(), info.namespace.is_empty()) {
        (false, _) => "resource",
        (true, false) => "namespace",
        (true, true) => "cluster",
    }
}

/// A watch counted in `apiserver_longrunning_requests` until it is dropped.
pub(super) struct OpenWatch(Gauge);

impl OpenWatch {
    pub(super) fn new(gauge: Gauge) -> OpenWatch {
        gauge.inc();
        OpenWatch(gauge)
    }
}

impl Drop for OpenWatch {
    fn drop(&mut self) {
        self.0.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_scope_of_watches_as_kube() {
        let cases = [
            ("/apis/g/v1/namespaces/d/crontabs", "watch=1", "namespace"),
            ("/apis/g/v1/crontabs", "watch=1", "cluster"),
            (
                "/apis/g/v1/namespaces/d/crontabs",
                "watch=1&fieldSelector=metadata.name%3Dx",
                "resource",
            ),
            ("/apis/g/v1/watch/namespaces/d/crontabs/x", "", "resource"),
        ];
        for (path, query, want) in cases {
            let query = crate::request::query::Query::parse(query);
            let info = crate::request::info::parse("GET", path, &query);
            assert_eq!(
                info.verb,
                crate::request::info::Verb::Watch,
                "{path}?{query:?}"
            );
            assert_eq!(clean_scope(&info), want, "{path}?{query:?}");
        }
    }
}
