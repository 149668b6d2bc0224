//! kube's authorizer library (k8s.io/apiserver `pkg/cel/library/authz.go`, with the
//! `fieldSelector` and `labelSelector` builders of its 1.31 selectors library):
//! `authorizer.path(p)`, `authorizer.group(g).resource(r)` with `subresource`,
//! `namespace`, `name`, `fieldSelector` and `labelSelector`, `check(verb)`, and the
//! decision's `allowed`, `reason`, `errored` and `error`;
//! `authorizer.serviceAccount(namespace, name)`. The costs are kube's (`library/cost.go`:
//! a check 350000, the builders and accessors 1) and live with the other costs.

mod values;

#[cfg(test)]
mod tests;

use std::sync::Arc;

pub use values::{
    AUTHORIZER_TYPE, Answer, Attributes, Authorizer, AuthorizerVal, DECISION_TYPE, Decision,
    GROUP_CHECK_TYPE, PATH_CHECK_TYPE, RESOURCE_CHECK_TYPE, ResourceCheck, User,
};
use values::{DecisionVal, GroupCheck, PathCheck};

use super::argv;
use crate::cel::functions::{Decl, Impl, Library, Outcome};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, Value};
use crate::validation::{is_dns1123_label, is_dns1123_subdomain};

pub fn library() -> Library {
    let authorizer = || Type::Opaque(AUTHORIZER_TYPE);
    let path = || Type::Opaque(PATH_CHECK_TYPE);
    let group = || Type::Opaque(GROUP_CHECK_TYPE);
    let resource = || Type::Opaque(RESOURCE_CHECK_TYPE);
    let decision = || Type::Opaque(DECISION_TYPE);
    let builder = |id, name| Decl::member(id, name, vec![resource(), Type::String], resource());
    let accessor = |id, name, result| Decl::member(id, name, vec![decision()], result);
    Library {
        decls: vec![
            Decl::member(
                "authorizer_path",
                "path",
                vec![authorizer(), Type::String],
                path(),
            ),
            Decl::member(
                "authorizer_group",
                "group",
                vec![authorizer(), Type::String],
                group(),
            ),
            Decl::member(
                "authorizer_serviceaccount",
                "serviceAccount",
                vec![authorizer(), Type::String, Type::String],
                authorizer(),
            ),
            Decl::member(
                "groupcheck_resource",
                "resource",
                vec![group(), Type::String],
                resource(),
            ),
            builder("resourcecheck_subresource", "subresource"),
            builder("resourcecheck_namespace", "namespace"),
            builder("resourcecheck_name", "name"),
            Decl::member(
                "pathcheck_check",
                "check",
                vec![path(), Type::String],
                decision(),
            ),
            Decl::member(
                "resourcecheck_check",
                "check",
                vec![resource(), Type::String],
                decision(),
            ),
            accessor("decision_errored", "errored", Type::Bool),
            accessor("decision_error", "error", Type::String),
            accessor("decision_allowed", "allowed", Type::Bool),
            accessor("decision_reason", "reason", Type::String),
            builder("authorizer_fieldselector", "fieldSelector"),
            builder("authorizer_labelselector", "labelSelector"),
        ],
        impls: vec![
            ("authorizer_path", Impl::Binary(authorizer_path)),
            ("authorizer_group", Impl::Binary(authorizer_group)),
            ("authorizer_serviceaccount", Impl::Ternary(service_account)),
            ("groupcheck_resource", Impl::Binary(group_resource)),
            ("resourcecheck_subresource", Impl::Binary(subresource)),
            ("resourcecheck_namespace", Impl::Binary(namespace)),
            ("resourcecheck_name", Impl::Binary(name)),
            ("pathcheck_check", Impl::Binary(path_check)),
            ("resourcecheck_check", Impl::Binary(resource_check)),
            ("decision_errored", Impl::Unary(errored)),
            ("decision_error", Impl::Unary(error)),
            ("decision_allowed", Impl::Unary(allowed)),
            ("decision_reason", Impl::Unary(reason)),
            ("authorizer_fieldselector", Impl::Binary(field_selector)),
            ("authorizer_labelselector", Impl::Binary(label_selector)),
        ],
    }
}

/// The `authorizer` variable: checks made as `user`.
pub fn authorizer_value<'a>(user: User, authorizer: Arc<dyn Authorizer>) -> Value<'a> {
    argv::wrap(AuthorizerVal::new(user, authorizer))
}

/// The `authorizer.requestResource` variable: a resource check of the request's own
/// group, resource, subresource, namespace and name, made as `user`.
pub fn request_resource_value<'a>(
    user: User,
    authorizer: Arc<dyn Authorizer>,
    resource: [&str; 5],
) -> Value<'a> {
    let [group, resource, subresource, namespace, name] = resource;
    let authorizer = AuthorizerVal::new(user, authorizer);
    argv::wrap(ResourceCheck::for_request(
        authorizer,
        group,
        resource,
        subresource,
        namespace,
        name,
    ))
}

fn authorizer_path<'a>(target: &Value<'a>, path: &Value<'a>) -> Outcome<'a> {
    let authorizer = argv::opaque::<AuthorizerVal>(target)?;
    let path = argv::string(path)?;
    if path.trim().is_empty() {
        return Err(EvalError::new("path must not be empty"));
    }
    Ok(argv::wrap(PathCheck {
        authorizer: authorizer.clone(),
        path: path.to_string(),
    }))
}

fn authorizer_group<'a>(target: &Value<'a>, group: &Value<'a>) -> Outcome<'a> {
    let authorizer = argv::opaque::<AuthorizerVal>(target)?;
    Ok(argv::wrap(GroupCheck {
        authorizer: authorizer.clone(),
        group: argv::string(group)?.to_string(),
    }))
}

/// kube's `serviceAccount`: the name a DNS subdomain, the namespace a DNS label; the
/// checks are then made as `system:serviceaccount:<namespace>:<name>`.
fn service_account<'a>(target: &Value<'a>, namespace: &Value<'a>, name: &Value<'a>) -> Outcome<'a> {
    let authorizer = argv::opaque::<AuthorizerVal>(target)?;
    let (namespace, name) = (argv::string(namespace)?, argv::string(name)?);
    if !is_dns1123_subdomain(name).is_empty() {
        return Err(EvalError::new("Invalid service account name"));
    }
    if !is_dns1123_label(namespace).is_empty() {
        return Err(EvalError::new("Invalid service account namespace"));
    }
    let user = User {
        name: format!("system:serviceaccount:{namespace}:{name}"),
        groups: vec![
            "system:serviceaccounts".to_string(),
            format!("system:serviceaccounts:{namespace}"),
        ],
        ..User::default()
    };
    Ok(argv::wrap(AuthorizerVal::new(
        user,
        Arc::clone(&authorizer.authorizer),
    )))
}

fn group_resource<'a>(target: &Value<'a>, resource: &Value<'a>) -> Outcome<'a> {
    let group = argv::opaque::<GroupCheck>(target)?;
    let resource = argv::string(resource)?;
    if resource.trim().is_empty() {
        return Err(EvalError::new("resource must not be empty"));
    }
    Ok(argv::wrap(group.resource(resource)))
}

/// A resource check with one more attribute set.
fn with<'a>(
    target: &Value<'a>,
    value: &Value<'a>,
    set: fn(&mut ResourceCheck, String),
) -> Outcome<'a> {
    let mut check = argv::opaque::<ResourceCheck>(target)?.clone();
    set(&mut check, argv::string(value)?.to_string());
    Ok(argv::wrap(check))
}

fn subresource<'a>(target: &Value<'a>, value: &Value<'a>) -> Outcome<'a> {
    with(target, value, |c, v| c.subresource = v)
}

fn namespace<'a>(target: &Value<'a>, value: &Value<'a>) -> Outcome<'a> {
    with(target, value, |c, v| c.namespace = v)
}

fn name<'a>(target: &Value<'a>, value: &Value<'a>) -> Outcome<'a> {
    with(target, value, |c, v| c.name = v)
}

fn field_selector<'a>(target: &Value<'a>, value: &Value<'a>) -> Outcome<'a> {
    with(target, value, |c, v| c.field_selector = v)
}

fn label_selector<'a>(target: &Value<'a>, value: &Value<'a>) -> Outcome<'a> {
    with(target, value, |c, v| c.label_selector = v)
}

fn path_check<'a>(target: &Value<'a>, verb: &Value<'a>) -> Outcome<'a> {
    let check = argv::opaque::<PathCheck>(target)?;
    Ok(argv::wrap(check.authorize(argv::string(verb)?)))
}

fn resource_check<'a>(target: &Value<'a>, verb: &Value<'a>) -> Outcome<'a> {
    let check = argv::opaque::<ResourceCheck>(target)?;
    Ok(argv::wrap(check.authorize(argv::string(verb)?)))
}

fn answer<'v>(value: &'v Value<'_>) -> Result<&'v Answer, EvalError> {
    argv::opaque::<DecisionVal>(value).map(|d| &d.0)
}

fn errored<'a>(decision: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(answer(decision)?.error.is_some()))
}

fn error<'a>(decision: &Value<'a>) -> Outcome<'a> {
    Ok(Value::string(
        answer(decision)?.error.as_deref().unwrap_or_default(),
    ))
}

fn allowed<'a>(decision: &Value<'a>) -> Outcome<'a> {
    Ok(Value::Bool(answer(decision)?.decision == Decision::Allow))
}

fn reason<'a>(decision: &Value<'a>) -> Outcome<'a> {
    Ok(Value::string(answer(decision)?.reason.as_str()))
}
