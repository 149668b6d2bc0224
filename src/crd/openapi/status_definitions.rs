//! The definitions custom resource operations answer or read besides the kind itself
//! (`Status`, `DeleteOptions`, `Patch`, autoscaling/v1 `Scale`), as the generated OpenAPI
//! definitions of k8s.io/apimachinery and k8s.io/api state them (v1.33), and the kinds
//! client-go's scheme registers them under.

use serde_json::{Value, json};

/// The group/versions of client-go's scheme (v1.33): every one registers `DeleteOptions`.
const SCHEME_GROUP_VERSIONS: [(&str, &[&str]); 22] = [
    ("", &["v1"]),
    (
        "admissionregistration.k8s.io",
        &["v1", "v1alpha1", "v1beta1"],
    ),
    ("apps", &["v1", "v1beta1", "v1beta2"]),
    ("authentication.k8s.io", &["v1", "v1alpha1", "v1beta1"]),
    ("authorization.k8s.io", &["v1", "v1beta1"]),
    ("autoscaling", &["v1", "v2", "v2beta1", "v2beta2"]),
    ("batch", &["v1", "v1beta1"]),
    ("certificates.k8s.io", &["v1", "v1alpha1", "v1beta1"]),
    ("coordination.k8s.io", &["v1", "v1alpha2", "v1beta1"]),
    ("discovery.k8s.io", &["v1", "v1beta1"]),
    ("events.k8s.io", &["v1", "v1beta1"]),
    ("extensions", &["v1beta1"]),
    (
        "flowcontrol.apiserver.k8s.io",
        &["v1", "v1beta1", "v1beta2", "v1beta3"],
    ),
    ("internal.apiserver.k8s.io", &["v1alpha1"]),
    ("networking.k8s.io", &["v1", "v1alpha1", "v1beta1"]),
    ("node.k8s.io", &["v1", "v1alpha1", "v1beta1"]),
    ("policy", &["v1", "v1beta1"]),
    ("rbac.authorization.k8s.io", &["v1", "v1alpha1", "v1beta1"]),
    ("resource.k8s.io", &["v1alpha3", "v1beta1", "v1beta2"]),
    ("scheduling.k8s.io", &["v1", "v1alpha1", "v1beta1"]),
    ("storage.k8s.io", &["v1", "v1alpha1", "v1beta1"]),
    ("storagemigration.k8s.io", &["v1alpha1"]),
];

/// The `x-kubernetes-group-version-kind` kube's definition namer gives a definition: the
/// kinds client-go's scheme registers its type under, sorted by group, version, kind.
pub(super) fn registered_kinds(name: &str) -> Option<Value> {
    let gvk = |g: &str, v: &str, k: &str| json!({"group": g, "version": v, "kind": k});
    match name {
        super::meta_definitions::STATUS => Some(json!([gvk("", "v1", "Status")])),
        super::meta_definitions::SCALE => Some(json!([gvk("autoscaling", "v1", "Scale")])),
        super::meta_definitions::DELETE_OPTIONS => {
            let all: Vec<Value> = SCHEME_GROUP_VERSIONS
                .iter()
                .flat_map(|(g, vs)| vs.iter().map(move |v| gvk(g, v, "DeleteOptions")))
                .collect();
            Some(Value::Array(all))
        }
        _ => None,
    }
}

/// `Status`.
pub(super) fn status() -> Value {
    json!({"description": "Status is a return value for calls that don't return other objects.", "type": "object", "properties": {
        "kind": {"description": "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds", "type": "string"},
        "apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources", "type": "string"},
        "metadata": {"description": "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds", "default": {}, "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"},
        "status": {"description": "Status of the operation. One of: \"Success\" or \"Failure\". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status", "type": "string"},
        "message": {"description": "A human-readable description of the status of this operation.", "type": "string"},
        "reason": {"description": "A machine-readable description of why this operation is in the \"Failure\" status. If this value is empty there is no information available. A Reason clarifies an HTTP status code but does not override it.", "type": "string"},
        "details": {"description": "Extended data associated with the reason.  Each reason may define its own extended details. This field is optional and the data returned is not guaranteed to conform to any schema except that defined by the reason type.", "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails", "x-kubernetes-list-type": "atomic"},
        "code": {"description": "Suggested HTTP return code for this status, 0 if not set.", "type": "integer", "format": "int32"}
    }})
}

/// `StatusDetails`.
pub(super) fn status_details() -> Value {
    json!({"description": "StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response. The Reason field of a Status object defines what attributes will be set. Clients must ignore fields that do not match the defined type of each attribute, and should assume that any attribute may be empty, invalid, or under defined.", "type": "object", "properties": {
        "name": {"description": "The name attribute of the resource associated with the status StatusReason (when there is a single name which can be described).", "type": "string"},
        "group": {"description": "The group attribute of the resource associated with the status StatusReason.", "type": "string"},
        "kind": {"description": "The kind attribute of the resource associated with the status StatusReason. On some operations may differ from the requested resource Kind. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds", "type": "string"},
        "uid": {"description": "UID of the resource. (when there is a single resource which can be described). More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids", "type": "string"},
        "causes": {"description": "The Causes array includes more details associated with the StatusReason failure. Not all StatusReasons may provide detailed causes.", "type": "array", "items": {"default": {}, "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause"}, "x-kubernetes-list-type": "atomic"},
        "retryAfterSeconds": {"description": "If specified, the time in seconds before the operation should be retried. Some errors may indicate the client must take an alternate action - for those errors this field may indicate how long to wait before taking the alternate action.", "type": "integer", "format": "int32"}
    }})
}

/// `StatusCause`.
pub(super) fn status_cause() -> Value {
    json!({"description": "StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered.", "type": "object", "properties": {
        "reason": {"description": "A machine-readable description of the cause of the error. If this value is empty there is no information available.", "type": "string"},
        "message": {"description": "A human-readable description of the cause of the error.  This field may be presented as-is to a reader.", "type": "string"},
        "field": {"description": "The field of the resource that has caused this error, as named by its JSON serialization. May include dot and postfix notation for nested attributes. Arrays are zero-indexed.  Fields may appear more than once in an array of causes due to fields having multiple errors. Optional.\n\nExamples:\n  \"name\" - the field \"name\" on the current resource\n  \"items[0].name\" - the field \"name\" on the first array entry in \"items\"", "type": "string"}
    }})
}

/// `DeleteOptions`.
pub(super) fn delete_options() -> Value {
    json!({"description": "DeleteOptions may be provided when deleting an API object.", "type": "object", "properties": {
        "kind": {"description": "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds", "type": "string"},
        "apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources", "type": "string"},
        "gracePeriodSeconds": {"description": "The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately. If this value is nil, the default grace period for the specified type will be used. Defaults to a per object value if not specified. zero means delete immediately.", "type": "integer", "format": "int64"},
        "preconditions": {"description": "Must be fulfilled before a deletion is carried out. If not possible, a 409 Conflict status will be returned.", "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions"},
        "orphanDependents": {"description": "Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned. If true/false, the \"orphan\" finalizer will be added to/removed from the object's finalizers list. Either this field or PropagationPolicy may be set, but not both.", "type": "boolean"},
        "propagationPolicy": {"description": "Whether and how garbage collection will be performed. Either this field or OrphanDependents may be set, but not both. The default policy is decided by the existing finalizer set in the metadata.finalizers and the resource-specific default policy. Acceptable values are: 'Orphan' - orphan the dependents; 'Background' - allow the garbage collector to delete the dependents in the background; 'Foreground' - a cascading policy that deletes all dependents in the foreground.", "type": "string"},
        "dryRun": {"description": "When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed", "type": "array", "items": {"default": "", "type": "string"}, "x-kubernetes-list-type": "atomic"},
        "ignoreStoreReadErrorWithClusterBreakingPotential": {"description": "if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error. A resource is considered corrupt if it can not be retrieved from the underlying storage successfully because of a) its data can not be transformed e.g. decryption failure, or b) it fails to decode into an object. NOTE: unsafe deletion ignores finalizer constraints, skips precondition checks, and removes the object from the storage. WARNING: This may potentially break the cluster if the workload associated with the resource being unsafe-deleted relies on normal deletion flow. Use only if you REALLY know what you are doing. The default value is false, and the user must opt in to enable it", "type": "boolean"}
    }})
}

/// `Preconditions`.
pub(super) fn preconditions() -> Value {
    json!({"description": "Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.", "type": "object", "properties": {
        "uid": {"description": "Specifies the target UID.", "type": "string"},
        "resourceVersion": {"description": "Specifies the target ResourceVersion", "type": "string"}
    }})
}

/// `Patch`.
pub(super) fn patch() -> Value {
    json!({"description": "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.", "type": "object"})
}

/// autoscaling/v1 `Scale`.
pub(super) fn scale() -> Value {
    json!({"description": "Scale represents a scaling request for a resource.", "type": "object", "properties": {
        "kind": {"description": "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds", "type": "string"},
        "apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources", "type": "string"},
        "metadata": {"description": "Standard object metadata; More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata.", "default": {}, "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
        "spec": {"description": "spec defines the behavior of the scale. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status.", "default": {}, "$ref": "#/definitions/io.k8s.api.autoscaling.v1.ScaleSpec"},
        "status": {"description": "status is the current status of the scale. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status. Read-only.", "default": {}, "$ref": "#/definitions/io.k8s.api.autoscaling.v1.ScaleStatus"}
    }})
}

/// autoscaling/v1 `ScaleSpec`.
pub(super) fn scale_spec() -> Value {
    json!({"description": "ScaleSpec describes the attributes of a scale subresource.", "type": "object", "properties": {
        "replicas": {"description": "replicas is the desired number of instances for the scaled object.", "type": "integer", "format": "int32"}
    }})
}

/// autoscaling/v1 `ScaleStatus`.
pub(super) fn scale_status() -> Value {
    json!({"description": "ScaleStatus represents the current status of a scale subresource.", "type": "object", "required": ["replicas"], "properties": {
        "replicas": {"description": "replicas is the actual number of observed instances of the scaled object.", "default": 0, "type": "integer", "format": "int32"},
        "selector": {"description": "selector is the label query over pods that should match the replicas count. This is same as the label selector but in the string format to avoid introspection by clients. The string will be in the same format as the query-param syntax. More info about label selectors: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/", "type": "string"}
    }})
}
