//! The values of kube's authorizer library (`library/authz.go`): the authorizer bound to
//! a user, the path, group and resource checks built from it, and their decisions; and
//! the plain-data interface to the server's authorizer they call.

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::cel::value::{EvalError, Opaque};

pub const AUTHORIZER_TYPE: &str = "kubernetes.authorization.Authorizer";
pub const PATH_CHECK_TYPE: &str = "kubernetes.authorization.PathCheck";
pub const GROUP_CHECK_TYPE: &str = "kubernetes.authorization.GroupCheck";
pub const RESOURCE_CHECK_TYPE: &str = "kubernetes.authorization.ResourceCheck";
pub const DECISION_TYPE: &str = "kubernetes.authorization.Decision";

/// The user a check is made for (kube's `user.Info`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct User {
    pub name: String,
    pub uid: String,
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
}

/// What is asked (kube's `authorizer.AttributesRecord` as the library fills it): a
/// non-resource request (`path`) or a resource request (`resource_request`, group,
/// `api_version` `*`, resource, subresource, namespace, name, and the selectors as the
/// expression wrote them; empty when not set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attributes {
    pub user: User,
    pub verb: String,
    pub resource_request: bool,
    pub path: String,
    pub api_group: String,
    pub api_version: String,
    pub resource: String,
    pub subresource: String,
    pub namespace: String,
    pub name: String,
    pub field_selector: String,
    pub label_selector: String,
}

/// kube's `authorizer.Decision`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Deny,
    Allow,
    NoOpinion,
}

/// An authorizer's answer: its decision, reason and error (kube's `Authorize` results).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub decision: Decision,
    pub reason: String,
    pub error: Option<String>,
}

/// The server's authorizer, asked synchronously (an expression's `check`).
pub trait Authorizer {
    fn authorize(&self, attributes: &Attributes) -> Answer;
}

/// `authorizer` (bound to the requesting user, or to a service account).
#[derive(Clone)]
pub struct AuthorizerVal {
    pub(super) user: Arc<User>,
    pub(super) authorizer: Arc<dyn Authorizer>,
}

/// `authorizer.path(p)`.
#[derive(Clone, Debug)]
pub struct PathCheck {
    pub(super) authorizer: AuthorizerVal,
    pub(super) path: String,
}

/// `authorizer.group(g)`.
#[derive(Clone, Debug)]
pub struct GroupCheck {
    pub(super) authorizer: AuthorizerVal,
    pub(super) group: String,
}

/// `...resource(r)` and the builders after it; `authorizer.requestResource`.
#[derive(Clone, Debug)]
pub struct ResourceCheck {
    pub(super) group: GroupCheck,
    pub(super) resource: String,
    pub(super) subresource: String,
    pub(super) namespace: String,
    pub(super) name: String,
    pub(super) field_selector: String,
    pub(super) label_selector: String,
}

/// `...check(verb)`.
#[derive(Clone, Debug)]
pub struct DecisionVal(pub(super) Answer);

impl fmt::Debug for AuthorizerVal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthorizerVal")
            .field("user", &self.user)
            .finish()
    }
}

impl AuthorizerVal {
    pub fn new(user: User, authorizer: Arc<dyn Authorizer>) -> AuthorizerVal {
        AuthorizerVal {
            user: Arc::new(user),
            authorizer,
        }
    }
}

impl PathCheck {
    pub(super) fn authorize(&self, verb: &str) -> DecisionVal {
        let attributes = Attributes {
            user: (*self.authorizer.user).clone(),
            verb: verb.to_string(),
            path: self.path.clone(),
            ..Attributes::default()
        };
        DecisionVal(self.authorizer.authorizer.authorize(&attributes))
    }
}

impl GroupCheck {
    pub(super) fn resource(&self, resource: &str) -> ResourceCheck {
        ResourceCheck {
            group: self.clone(),
            resource: resource.to_string(),
            subresource: String::new(),
            namespace: String::new(),
            name: String::new(),
            field_selector: String::new(),
            label_selector: String::new(),
        }
    }
}

impl ResourceCheck {
    /// kube's `NewResourceAuthorizerVal`: the request's own group, resource,
    /// subresource, namespace and name.
    pub fn for_request(
        authorizer: AuthorizerVal,
        group: &str,
        resource: &str,
        subresource: &str,
        namespace: &str,
        name: &str,
    ) -> ResourceCheck {
        let group = GroupCheck {
            authorizer,
            group: group.to_string(),
        };
        ResourceCheck {
            subresource: subresource.to_string(),
            namespace: namespace.to_string(),
            name: name.to_string(),
            ..group.resource(resource)
        }
    }

    pub(super) fn authorize(&self, verb: &str) -> DecisionVal {
        let authorizer = &self.group.authorizer;
        let attributes = Attributes {
            user: (*authorizer.user).clone(),
            verb: verb.to_string(),
            resource_request: true,
            api_group: self.group.group.clone(),
            api_version: "*".to_string(),
            resource: self.resource.clone(),
            subresource: self.subresource.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            field_selector: self.field_selector.clone(),
            label_selector: self.label_selector.clone(),
            path: String::new(),
        };
        DecisionVal(authorizer.authorizer.authorize(&attributes))
    }
}

/// kube's `receiverOnlyObjectVal.Equal`: these values compare with nothing.
macro_rules! receiver_only {
    ($t:ty, $name:expr) => {
        impl Opaque for $t {
            fn type_name(&self) -> &'static str {
                $name
            }

            fn equals(&self, _other: &dyn Opaque) -> bool {
                false
            }

            fn as_any(&self) -> &dyn Any {
                self
            }

            fn try_equals(&self, _other: Option<&dyn Opaque>) -> Result<bool, EvalError> {
                Err(EvalError::new("no such overload"))
            }
        }
    };
}

receiver_only!(AuthorizerVal, AUTHORIZER_TYPE);
receiver_only!(PathCheck, PATH_CHECK_TYPE);
receiver_only!(GroupCheck, GROUP_CHECK_TYPE);
receiver_only!(ResourceCheck, RESOURCE_CHECK_TYPE);
receiver_only!(DecisionVal, DECISION_TYPE);
