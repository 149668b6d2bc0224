//! The parameters of custom resource operations: `pretty`, the path parameters, and the
//! query options of each action as k8s.io/apiserver's `AddObjectParams` publishes them
//! (`GetOptions`, `ListOptions`, `CreateOptions`, `UpdateOptions`, `PatchOptions`,
//! `DeleteOptions`: one query parameter per field, described by the field's swagger doc).

/// Where a parameter goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Location {
    Path,
    Query,
}

impl Location {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Location::Path => "path",
            Location::Query => "query",
        }
    }
}

/// A non-body parameter (always a single value: kube publishes `uniqueItems: true`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Param {
    pub name: &'static str,
    pub location: Location,
    pub description: String,
    /// `string`, `integer` or `boolean`.
    pub type_: &'static str,
}

impl Param {
    /// Path parameters are required, query parameters are not.
    pub(super) fn required(&self) -> bool {
        self.location == Location::Path
    }

    /// kube-openapi's order of parameters: by name, then location.
    pub(super) fn sort_key(&self) -> (&str, &str) {
        (self.name, self.location.as_str())
    }
}

const PRETTY: &str = "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).";
const DRY_RUN: &str = "When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed";
const FIELD_MANAGER: &str = "fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.";
const FIELD_VALIDATION: &str = "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will ignore all but the last duplicate field that the decoder encounters. This is the default behavior prior to v1.23. - Warn: This will send a warning via the standard warning response header for each unknown field that is dropped from the object, and for each duplicate field that is encountered. The request will still succeed if there are no other errors, and will only persist the last of any duplicate fields. This is the default in v1.23+ - Strict: This will fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present. The error returned from the server will contain all unknown and duplicate fields encountered.";
const RESOURCE_VERSION: &str = "resourceVersion sets a constraint on what resource versions a request may be served from. See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset";

const LIST_OPTIONS: [(&str, &str, &str); 10] = [
    (
        "labelSelector",
        "string",
        "A selector to restrict the list of returned objects by their labels. Defaults to everything.",
    ),
    (
        "fieldSelector",
        "string",
        "A selector to restrict the list of returned objects by their fields. Defaults to everything.",
    ),
    (
        "watch",
        "boolean",
        "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.",
    ),
    (
        "allowWatchBookmarks",
        "boolean",
        "allowWatchBookmarks requests watch events with type \"BOOKMARK\". Servers that do not implement bookmarks may ignore this flag and bookmarks are sent at the server's discretion. Clients should not assume bookmarks are returned at any specific interval, nor may they assume the server will send any BOOKMARK event during a session. If this is not a watch, this field is ignored.",
    ),
    ("resourceVersion", "string", RESOURCE_VERSION),
    (
        "resourceVersionMatch",
        "string",
        "resourceVersionMatch determines how resourceVersion is applied to list calls. It is highly recommended that resourceVersionMatch be set for list calls where resourceVersion is set See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset",
    ),
    (
        "timeoutSeconds",
        "integer",
        "Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity.",
    ),
    (
        "limit",
        "integer",
        "limit is a maximum number of responses to return for a list call. If more items exist, the server will set the `continue` field on the list metadata to a value that can be used with the same initial query to retrieve the next set of results. Setting a limit may return fewer than the requested amount of items (up to zero items) in the event all requested objects are filtered out and clients should only use the presence of the continue field to determine whether more results are available. Servers may choose not to support the limit argument and will return all of the available results. If limit is specified and the continue field is empty, clients may assume that no more results are available. This field is not supported if watch is true.\n\nThe server guarantees that the objects returned when using continue will be identical to issuing a single list call without a limit - that is, no objects created, modified, or deleted after the first request is issued will be included in any subsequent continued requests. This is sometimes referred to as a consistent snapshot, and ensures that a client that is using limit to receive smaller chunks of a very large result can ensure they see all possible objects. If objects are updated during a chunked list the version of the object that was present at the time the first list result was calculated is returned.",
    ),
    (
        "continue",
        "string",
        "The continue option should be set when retrieving more results from the server. Since this value is server defined, clients may only use the continue value from a previous query result with identical query parameters (except for the value of continue) and the server may reject a continue value it does not recognize. If the specified continue value is no longer valid whether due to expiration (generally five to fifteen minutes) or a configuration change on the server, the server will respond with a 410 ResourceExpired error together with a continue token. If the client needs a consistent list, it must restart their list without the continue field. Otherwise, the client may send another list request with the token received with the 410 error, the server will respond with a list starting from the next key, but from the latest snapshot, which is inconsistent from the previous list results - objects that are created, modified, or deleted after the first list request will be included in the response, as long as their keys are after the \"next key\".\n\nThis field is not supported when watch is true. Clients may start a watch from the last resourceVersion value returned by the server and not miss any modifications.",
    ),
    (
        "sendInitialEvents",
        "boolean",
        "`sendInitialEvents=true` may be set together with `watch=true`. In that case, the watch stream will begin with synthetic events to produce the current state of objects in the collection. Once all such events have been sent, a synthetic \"Bookmark\" event  will be sent. The bookmark will report the ResourceVersion (RV) corresponding to the set of objects, and be marked with `\"k8s.io/initial-events-end\": \"true\"` annotation. Afterwards, the watch stream will proceed as usual, sending watch events corresponding to changes (subsequent to the RV) to objects watched.\n\nWhen `sendInitialEvents` option is set, we require `resourceVersionMatch` option to also be set. The semantic of the watch request is as following: - `resourceVersionMatch` = NotOlderThan\n  is interpreted as \"data at least as new as the provided `resourceVersion`\"\n  and the bookmark event is send when the state is synced\n  to a `resourceVersion` at least as fresh as the one provided by the ListOptions.\n  If `resourceVersion` is unset, this is interpreted as \"consistent read\" and the\n  bookmark event is send when the state is synced at least to the moment\n  when request started being processed.\n- `resourceVersionMatch` set to any other value or unset\n  Invalid error is returned.\n\nDefaults to true if `resourceVersion=\"\"` or `resourceVersion=\"0\"` (for backward compatibility reasons) and to false otherwise.",
    ),
];

const DELETE_OPTIONS: [(&str, &str, &str); 5] = [
    (
        "gracePeriodSeconds",
        "integer",
        "The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately. If this value is nil, the default grace period for the specified type will be used. Defaults to a per object value if not specified. zero means delete immediately.",
    ),
    (
        "orphanDependents",
        "boolean",
        "Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned. If true/false, the \"orphan\" finalizer will be added to/removed from the object's finalizers list. Either this field or PropagationPolicy may be set, but not both.",
    ),
    (
        "propagationPolicy",
        "string",
        "Whether and how garbage collection will be performed. Either this field or OrphanDependents may be set, but not both. The default policy is decided by the existing finalizer set in the metadata.finalizers and the resource-specific default policy. Acceptable values are: 'Orphan' - orphan the dependents; 'Background' - allow the garbage collector to delete the dependents in the background; 'Foreground' - a cascading policy that deletes all dependents in the foreground.",
    ),
    ("dryRun", "string", DRY_RUN),
    (
        "ignoreStoreReadErrorWithClusterBreakingPotential",
        "boolean",
        "if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error. A resource is considered corrupt if it can not be retrieved from the underlying storage successfully because of a) its data can not be transformed e.g. decryption failure, or b) it fails to decode into an object. NOTE: unsafe deletion ignores finalizer constraints, skips precondition checks, and removes the object from the storage. WARNING: This may potentially break the cluster if the workload associated with the resource being unsafe-deleted relies on normal deletion flow. Use only if you REALLY know what you are doing. The default value is false, and the user must opt in to enable it",
    ),
];

const PATCH_FIELD_MANAGER: &str = "fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint. This field is required for apply requests (application/apply-patch) but optional for non-apply patch types (JsonPatch, MergePatch, StrategicMergePatch).";
const FORCE: &str = "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.";

fn query(name: &'static str, type_: &'static str, description: &str) -> Param {
    Param {
        name,
        location: Location::Query,
        description: description.to_string(),
        type_,
    }
}

/// `pretty`, on every operation.
pub(super) fn pretty() -> Param {
    query("pretty", "string", PRETTY)
}

/// The `{namespace}` path parameter.
pub(super) fn namespace() -> Param {
    Param {
        name: "namespace",
        location: Location::Path,
        description: "object name and auth scope, such as for teams and projects".into(),
        type_: "string",
    }
}

/// The `{name}` path parameter, described with the kind.
pub(super) fn name(kind: &str) -> Param {
    Param {
        name: "name",
        location: Location::Path,
        description: format!("name of the {kind}"),
        type_: "string",
    }
}

/// The query options of an action (`x-kubernetes-action`).
pub(super) fn options(action: &str) -> Vec<Param> {
    let table = |rows: &[(&'static str, &'static str, &str)]| -> Vec<Param> {
        rows.iter().map(|(n, t, d)| query(n, t, d)).collect()
    };
    match action {
        "get" => table(&[("resourceVersion", "string", RESOURCE_VERSION)]),
        "list" | "deletecollection" => table(&LIST_OPTIONS),
        "post" | "put" => table(&[
            ("dryRun", "string", DRY_RUN),
            ("fieldManager", "string", FIELD_MANAGER),
            ("fieldValidation", "string", FIELD_VALIDATION),
        ]),
        "patch" => table(&[
            ("dryRun", "string", DRY_RUN),
            ("force", "boolean", FORCE),
            ("fieldManager", "string", PATCH_FIELD_MANAGER),
            ("fieldValidation", "string", FIELD_VALIDATION),
        ]),
        "delete" => table(&DELETE_OPTIONS),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_each_action_lists_kube_fields() {
        let cases: [(&str, &[&str]); 6] = [
            ("get", &["resourceVersion"]),
            ("post", &["dryRun", "fieldManager", "fieldValidation"]),
            ("put", &["dryRun", "fieldManager", "fieldValidation"]),
            (
                "patch",
                &["dryRun", "force", "fieldManager", "fieldValidation"],
            ),
            (
                "delete",
                &[
                    "gracePeriodSeconds",
                    "orphanDependents",
                    "propagationPolicy",
                    "dryRun",
                    "ignoreStoreReadErrorWithClusterBreakingPotential",
                ],
            ),
            ("watch", &[]),
        ];
        for (action, want) in cases {
            let got: Vec<&str> = options(action).iter().map(|p| p.name).collect();
            assert_eq!(got, want, "{action}");
        }
        assert_eq!(options("list").len(), 10);
        assert_eq!(options("deletecollection"), options("list"));
    }

    #[test]
    fn required_path_parameters_only() {
        assert!(namespace().required());
        assert!(name("CronTab").required());
        assert!(!pretty().required());
        assert_eq!(name("CronTab").description, "name of the CronTab");
    }
}
