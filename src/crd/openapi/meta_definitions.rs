//! The metadata definitions every custom resource document references (`ObjectMeta`,
//! `ListMeta`, `ManagedFieldsEntry`, `OwnerReference`, `Time`, `FieldsV1`, `TypeMeta`), as
//! k8s.io/apimachinery's generated OpenAPI definitions state them (v1.33), and the lookup of
//! every library definition by model name.
//!
//! References are written `#/definitions/<model>` and defaults are kept: the v2 and v3
//! builders rewrite or prune them.

use serde_json::{Value, json};

use super::status_definitions as status;

pub(super) const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
pub(super) const LIST_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
pub(super) const STATUS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
pub(super) const DELETE_OPTIONS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
pub(super) const PATCH: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";
pub(super) const SCALE: &str = "io.k8s.api.autoscaling.v1.Scale";
const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.";
const AUTOSCALING: &str = "io.k8s.api.autoscaling.v1.";

/// A library definition: its schema and the definitions it depends on (kube-openapi's
/// `OpenAPIDefinition.Dependencies`, which decide what a document includes).
pub(super) struct Definition {
    pub schema: Value,
    pub dependencies: &'static [&'static str],
}

/// The library definition of a model name, with the `x-kubernetes-group-version-kind`
/// extension kube's definition namer adds to kinds registered in client-go's scheme.
pub(super) fn lookup(name: &str) -> Option<Definition> {
    let (mut schema, dependencies) = match name.strip_prefix(META) {
        Some(short) => meta(short)?,
        None => autoscaling(name.strip_prefix(AUTOSCALING)?)?,
    };
    if let Some(gvks) = status::registered_kinds(name) {
        schema["x-kubernetes-group-version-kind"] = gvks;
    }
    Some(Definition {
        schema,
        dependencies,
    })
}

type Entry = (Value, &'static [&'static str]);

/// `io.k8s.apimachinery.pkg.apis.meta.v1.<short>`.
fn meta(short: &str) -> Option<Entry> {
    Some(match short {
        "ObjectMeta" => (
            object_meta(),
            &[
                "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
                "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference",
                "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
            ],
        ),
        "ManagedFieldsEntry" => (
            managed_fields_entry(),
            &[
                "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
                "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
            ],
        ),
        "OwnerReference" => (owner_reference(), &[]),
        "Time" => (time(), &[]),
        "FieldsV1" => (fields_v1(), &[]),
        "ListMeta" => (list_meta(), &[]),
        "Status" => (
            status::status(),
            &[
                LIST_META,
                "io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails",
            ],
        ),
        "StatusDetails" => (
            status::status_details(),
            &["io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause"],
        ),
        "StatusCause" => (status::status_cause(), &[]),
        "DeleteOptions" => (
            status::delete_options(),
            &["io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions"],
        ),
        "Preconditions" => (status::preconditions(), &[]),
        "Patch" => (status::patch(), &[]),
        _ => return None,
    })
}

/// `io.k8s.api.autoscaling.v1.<short>`.
fn autoscaling(short: &str) -> Option<Entry> {
    Some(match short {
        "Scale" => (
            status::scale(),
            &[
                "io.k8s.api.autoscaling.v1.ScaleSpec",
                "io.k8s.api.autoscaling.v1.ScaleStatus",
                OBJECT_META,
            ],
        ),
        "ScaleSpec" => (status::scale_spec(), &[]),
        "ScaleStatus" => (status::scale_status(), &[]),
        _ => return None,
    })
}

/// `TypeMeta.apiVersion`, the published `apiVersion` of every custom resource and list.
pub(super) fn api_version_property() -> Value {
    type_meta()["properties"]["apiVersion"].clone()
}

/// `TypeMeta.kind`, the published `kind` of every custom resource and list.
pub(super) fn kind_property() -> Value {
    type_meta()["properties"]["kind"].clone()
}

/// `ObjectMeta`.
pub(super) fn object_meta() -> Value {
    json!({"description": "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.", "type": "object", "properties": {
        "name": {"description": "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names", "type": "string"},
        "generateName": {"description": "GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided. If this field is used, the name returned to the client will be different than the name passed. This value will also be combined with a unique suffix. The provided value has the same validation rules as the Name field, and may be truncated by the length of the suffix required to make the value unique on the server.\n\nIf this field is specified and the generated name exists, the server will return a 409.\n\nApplied only if Name is not specified. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#idempotency", "type": "string"},
        "namespace": {"description": "Namespace defines the space within which each name must be unique. An empty namespace is equivalent to the \"default\" namespace, but \"default\" is the canonical representation. Not all objects are required to be scoped to a namespace - the value of this field for those objects will be empty.\n\nMust be a DNS_LABEL. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces", "type": "string"},
        "selfLink": {"description": "Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.", "type": "string"},
        "uid": {"description": "UID is the unique in time and space value for this object. It is typically generated by the server on successful creation of a resource and is not allowed to change on PUT operations.\n\nPopulated by the system. Read-only. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids", "type": "string"},
        "resourceVersion": {"description": "An opaque value that represents the internal version of this object that can be used by clients to determine when objects have changed. May be used for optimistic concurrency, change detection, and the watch operation on a resource or set of resources. Clients must treat these values as opaque and passed unmodified back to the server. They may only be valid for a particular resource or set of resources.\n\nPopulated by the system. Read-only. Value must be treated as opaque by clients and . More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency", "type": "string"},
        "generation": {"description": "A sequence number representing a specific generation of the desired state. Populated by the system. Read-only.", "type": "integer", "format": "int64"},
        "creationTimestamp": {"description": "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata", "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time"},
        "deletionTimestamp": {"description": "DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted. This field is set by the server when a graceful deletion is requested by the user, and is not directly settable by a client. The resource is expected to be deleted (no longer visible from resource lists, and not reachable by name) after the time in this field, once the finalizers list is empty. As long as the finalizers list contains items, deletion is blocked. Once the deletionTimestamp is set, this value may not be unset or be set further into the future, although it may be shortened or the resource may be deleted prior to this time. For example, a user may request that a pod is deleted in 30 seconds. The Kubelet will react by sending a graceful termination signal to the containers in the pod. After that 30 seconds, the Kubelet will send a hard termination signal (SIGKILL) to the container and after cleanup, remove the pod from the API. In the presence of network partitions, this object may still exist after this timestamp, until an administrator or automated process can determine the resource is fully terminated. If not set, graceful deletion of the object has not been requested.\n\nPopulated by the system when a graceful deletion is requested. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata", "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time"},
        "deletionGracePeriodSeconds": {"description": "Number of seconds allowed for this object to gracefully terminate before it will be removed from the system. Only set when deletionTimestamp is also set. May only be shortened. Read-only.", "type": "integer", "format": "int64"},
        "labels": {"description": "Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels", "type": "object", "additionalProperties": {"default": "", "type": "string"}},
        "annotations": {"description": "Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations", "type": "object", "additionalProperties": {"default": "", "type": "string"}},
        "ownerReferences": {"description": "List of objects depended by this object. If ALL objects in the list have been deleted, this object will be garbage collected. If this object is managed by a controller, then an entry in this list will point to this controller, with the controller field set to true. There cannot be more than one managing controller.", "type": "array", "items": {"default": {}, "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"}, "x-kubernetes-list-map-keys": ["uid"], "x-kubernetes-list-type": "map", "x-kubernetes-patch-merge-key": "uid", "x-kubernetes-patch-strategy": "merge"},
        "finalizers": {"description": "Must be empty before the object is deleted from the registry. Each entry is an identifier for the responsible component that will remove the entry from the list. If the deletionTimestamp of the object is non-nil, entries in this list can only be removed. Finalizers may be processed and removed in any order.  Order is NOT enforced because it introduces significant risk of stuck finalizers. finalizers is a shared field, any actor with permission can reorder it. If the finalizer list is processed in order, then this can lead to a situation in which the component responsible for the first finalizer in the list is waiting for a signal (field value, external system, or other) produced by a component responsible for a finalizer later in the list, resulting in a deadlock. Without enforced ordering finalizers are free to order amongst themselves and are not vulnerable to ordering changes in the list.", "type": "array", "items": {"default": "", "type": "string"}, "x-kubernetes-list-type": "set", "x-kubernetes-patch-strategy": "merge"},
        "managedFields": {"description": "ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow. This is mostly for internal housekeeping, and users typically shouldn't need to set or understand this field. A workflow can be the user's name, a controller's name, or the name of a specific apply path like \"ci-cd\". The set of fields is always in the version that the workflow used when modifying the object.", "type": "array", "items": {"default": {}, "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry"}, "x-kubernetes-list-type": "atomic"}
    }})
}

/// `ManagedFieldsEntry`.
pub(super) fn managed_fields_entry() -> Value {
    json!({"description": "ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.", "type": "object", "properties": {
        "manager": {"description": "Manager is an identifier of the workflow managing these fields.", "type": "string"},
        "operation": {"description": "Operation is the type of operation which lead to this ManagedFieldsEntry being created. The only valid values for this field are 'Apply' and 'Update'.", "type": "string"},
        "apiVersion": {"description": "APIVersion defines the version of this resource that this field set applies to. The format is \"group/version\" just like the top-level APIVersion field. It is necessary to track the version of a field set because it cannot be automatically converted.", "type": "string"},
        "time": {"description": "Time is the timestamp of when the ManagedFields entry was added. The timestamp will also be updated if a field is added, the manager changes any of the owned fields value or removes a field. The timestamp does not update when a field is removed from the entry because another manager took it over.", "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time"},
        "fieldsType": {"description": "FieldsType is the discriminator for the different fields format and version. There is currently only one possible value: \"FieldsV1\"", "type": "string"},
        "fieldsV1": {"description": "FieldsV1 holds the first JSON version format as described in the \"FieldsV1\" type.", "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"},
        "subresource": {"description": "Subresource is the name of the subresource used to update that object, or empty string if the object was updated through the main resource. The value of this field is used to distinguish between managers, even if they share the same name. For example, a status update will be distinct from a regular update using the same manager name. Note that the APIVersion field is not related to the Subresource field and it always corresponds to the version of the main resource.", "type": "string"}
    }})
}

/// `OwnerReference`.
pub(super) fn owner_reference() -> Value {
    json!({"description": "OwnerReference contains enough information to let you identify an owning object. An owning object must be in the same namespace as the dependent, or be cluster-scoped, so there is no namespace field.", "type": "object", "required": ["apiVersion", "kind", "name", "uid"], "x-kubernetes-map-type": "atomic", "properties": {
        "apiVersion": {"description": "API version of the referent.", "default": "", "type": "string"},
        "kind": {"description": "Kind of the referent. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds", "default": "", "type": "string"},
        "name": {"description": "Name of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names", "default": "", "type": "string"},
        "uid": {"description": "UID of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids", "default": "", "type": "string"},
        "controller": {"description": "If true, this reference points to the managing controller.", "type": "boolean"},
        "blockOwnerDeletion": {"description": "If true, AND if the owner has the \"foregroundDeletion\" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed. See https://kubernetes.io/docs/concepts/architecture/garbage-collection/#foreground-deletion for how the garbage collector interacts with this field and enforces the foreground deletion. Defaults to false. To set this field, a user needs \"delete\" permission of the owner, otherwise 422 (Unprocessable Entity) will be returned.", "type": "boolean"}
    }})
}

/// `Time`.
pub(super) fn time() -> Value {
    json!({"description": "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided for many of the factory methods that the time package offers.", "type": "string", "format": "date-time"})
}

/// `FieldsV1`.
pub(super) fn fields_v1() -> Value {
    json!({"description": "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.\n\nEach key is either a '.' representing the field itself, and will always map to an empty set, or a string representing a sub-field or item. The string will follow one of these four formats: 'f:<name>', where <name> is the name of a field in a struct, or key in a map 'v:<value>', where <value> is the exact json formatted value of a list item 'i:<index>', where <index> is position of a item in a list 'k:<keys>', where <keys> is a map of  a list item's key fields to their unique values If a key maps to an empty Fields value, the field that key represents is part of the set.\n\nThe exact format is defined in sigs.k8s.io/structured-merge-diff", "type": "object"})
}

/// `ListMeta`.
pub(super) fn list_meta() -> Value {
    json!({"description": "ListMeta describes metadata that synthetic resources must have, including lists and various status objects. A resource may have only one of {ObjectMeta, ListMeta}.", "type": "object", "properties": {
        "selfLink": {"description": "Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.", "type": "string"},
        "resourceVersion": {"description": "String that identifies the server's internal version of this object that can be used by clients to determine when objects have changed. Value must be treated as opaque by clients and passed unmodified back to the server. Populated by the system. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency", "type": "string"},
        "continue": {"description": "continue may be set if the user set a limit on the number of items returned, and indicates that the server has more data available. The value is opaque and may be used to issue another request to the endpoint that served this list to retrieve the next set of available objects. Continuing a consistent list may not be possible if the server configuration has changed or more than a few minutes have passed. The resourceVersion field returned when using this continue value will be identical to the value in the first response, unless you have received this token from an error message.", "type": "string"},
        "remainingItemCount": {"description": "remainingItemCount is the number of subsequent items in the list which are not included in this list response. If the list request contained label or field selectors, then the number of remaining items is unknown and the field will be left unset and omitted during serialization. If the list is complete (either because it is not chunking or because this is the last chunk), then there are no more remaining items and this field will be left unset and omitted during serialization. Servers older than v1.15 do not set this field. The intended use of the remainingItemCount is *estimating* the size of a collection. Clients should not rely on the remainingItemCount to be set or to be exact.", "type": "integer", "format": "int64"}
    }})
}

/// `TypeMeta`: the source of every published `apiVersion` and `kind` property.
fn type_meta() -> Value {
    json!({"description": "TypeMeta describes an individual object in an API response or request with strings representing the type of the object and its API schema version. Structures that are versioned or persisted should inline TypeMeta.", "type": "object", "properties": {
        "kind": {"description": "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds", "type": "string"},
        "apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources", "type": "string"}
    }})
}
