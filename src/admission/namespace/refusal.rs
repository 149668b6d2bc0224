//! NamespaceLifecycle's refusals as kube's admission words them: 403 Forbidden with
//! kube's admission message, 404 for the namespace, or the NamespaceTerminating cause.

use super::decision::Refusal;
use crate::admission::Attributes;
use crate::error::{ApiError, GroupResource};

/// A refusal as kube's admission words it for the write `attributes` describe.
pub fn refused(
    refusal: Refusal,
    attributes: &Attributes<'_>,
    object: Option<&serde_json::Value>,
) -> ApiError {
    let resource = GroupResource::new(attributes.group, attributes.resource);
    let (name, namespace) = (attributes.shown_name(object), attributes.namespace);
    match refusal {
        Refusal::NotReady => {
            crate::admission::forbidden(attributes, object, "not yet ready to handle request")
        }
        Refusal::NotFound => ApiError::NotFound {
            resource: GroupResource::new("", "namespaces"),
            name: namespace.to_string(),
        },
        Refusal::Terminating => ApiError::NamespaceTerminating {
            resource,
            name: name.to_string(),
            namespace: namespace.to_string(),
        },
        Refusal::LookupFailed(message) => ApiError::Internal(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::{Kind, Operation, Options, Recorder};
    use crate::request::user::UserInfo;
    use serde_json::Value;

    fn status(refusal: Refusal) -> Value {
        let crontabs = GroupResource::new("stable.example.com", "crontabs");
        let (user, recorder) = (UserInfo::anonymous(), Recorder::default());
        let attributes = Attributes {
            operation: Operation::Create,
            namespace: "doomed",
            name: "c1",
            group: &crontabs.group,
            resource: &crontabs.resource,
            version: "v1",
            kind: Kind {
                group: &crontabs.group,
                version: "v1",
                kind: "CronTab",
            },
            subresource: "",
            dry_run: false,
            user: &user,
            options: Options::None,
            old_object: None,
            served: None,
            recorder: &recorder,
            deadline: None,
        };
        refused(refusal, &attributes, None).to_status()
    }

    #[test]
    fn refused_terminating_is_kubes_forbidden_with_cause() {
        let want = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "reason": "Forbidden", "code": 403,
            "message": "crontabs.stable.example.com \"c1\" is forbidden: unable to create new content in namespace doomed because it is being terminated",
            "details": {"name": "c1", "group": "stable.example.com", "kind": "crontabs",
                "causes": [{"reason": "NamespaceTerminating",
                    "message": "namespace doomed is being terminated", "field": "metadata.namespace"}]}});
        assert_eq!(status(Refusal::Terminating), want);
    }

    #[test]
    fn refused_not_found_names_the_namespace_without_group() {
        let want = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "reason": "NotFound", "code": 404,
            "message": "namespaces \"doomed\" not found",
            "details": {"name": "doomed", "kind": "namespaces"}});
        assert_eq!(status(Refusal::NotFound), want);
    }

    #[test]
    fn refused_not_ready_is_kubes_admission_forbidden() {
        let want = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "reason": "Forbidden", "code": 403,
            "message": "crontabs.stable.example.com \"c1\" is forbidden: not yet ready to handle request",
            "details": {"name": "c1", "group": "stable.example.com", "kind": "crontabs"}});
        assert_eq!(status(Refusal::NotReady), want);
    }
}
