//! What a match condition sees of the request: kube's `CreateAdmissionRequest`
//! (`pkg/admission/plugin/cel/condition.go`) as Go serializes it into the `request`
//! variable (omitted empty fields absent), and the user as the authorizer library
//! asks with it.

use serde_json::{Map, Value as Json, json};

use crate::cel::lib::authz::User;
use crate::request::user::UserInfo;

pub use crate::admission::webhook::review::{Gvk, Gvr};

/// The request a webhook's conditions are evaluated for, with the objects in the
/// version the webhook is called with.
#[derive(Clone, Copy, Debug)]
pub struct ConditionInput<'a> {
    /// The kind the webhook is called with (kube's `VersionedKind`: under
    /// `matchPolicy: Equivalent`, the equivalent kind).
    pub kind: Gvk<'a>,
    pub request_kind: Gvk<'a>,
    /// `request.resource`: the request's own resource for webhooks (kube puts it there
    /// rather than the equivalent one), the matched resource for admission policies.
    pub resource: Gvr<'a>,
    /// The request's resource. kube puts it in `request.resource` too (not the
    /// equivalent one), and `authorizer.requestResource` checks it.
    pub request_resource: Gvr<'a>,
    pub sub_resource: &'a str,
    pub name: &'a str,
    pub namespace: &'a str,
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: &'a str,
    pub user: &'a UserInfo,
    pub dry_run: bool,
    /// The operation's options object (Create/Update/Patch/DeleteOptions), if any.
    pub options: Option<&'a Json>,
    pub object: Option<&'a Json>,
    pub old_object: Option<&'a Json>,
}

/// The `request` variable: `AdmissionRequest` without `uid`, `object` and `oldObject`,
/// its `omitempty` fields left out when empty.
pub fn request_json(input: &ConditionInput<'_>) -> Json {
    let mut request = Map::new();
    request.insert("kind".into(), gvk(input.kind));
    request.insert("resource".into(), gvr(input.resource));
    put_nonempty(&mut request, "subResource", input.sub_resource);
    request.insert("requestKind".into(), gvk(input.request_kind));
    request.insert("requestResource".into(), gvr(input.request_resource));
    put_nonempty(&mut request, "requestSubResource", input.sub_resource);
    put_nonempty(&mut request, "name", input.name);
    put_nonempty(&mut request, "namespace", input.namespace);
    request.insert("operation".into(), Json::from(input.operation));
    request.insert("userInfo".into(), user_info(input.user));
    request.insert("dryRun".into(), Json::Bool(input.dry_run));
    request.insert(
        "options".into(),
        input.options.cloned().unwrap_or(Json::Null),
    );
    Json::Object(request)
}

/// The user the authorizer library checks as.
pub fn authz_user(user: &UserInfo) -> User {
    User {
        name: user.name.clone(),
        uid: user.uid.clone(),
        groups: user.groups.clone(),
        extra: user.extra.clone(),
    }
}

fn gvk(k: Gvk<'_>) -> Json {
    json!({"group": k.group, "version": k.version, "kind": k.kind})
}

fn gvr(r: Gvr<'_>) -> Json {
    json!({"group": r.group, "version": r.version, "resource": r.resource})
}

fn put_nonempty(map: &mut Map<String, Json>, key: &str, value: &str) {
    if !value.is_empty() {
        map.insert(key.into(), Json::from(value));
    }
}

/// `authenticationv1.UserInfo`: every field `omitempty`.
fn user_info(user: &UserInfo) -> Json {
    let mut info = Map::new();
    put_nonempty(&mut info, "username", &user.name);
    put_nonempty(&mut info, "uid", &user.uid);
    if !user.groups.is_empty() {
        info.insert("groups".into(), json!(user.groups));
    }
    if !user.extra.is_empty() {
        info.insert("extra".into(), json!(user.extra));
    }
    Json::Object(info)
}
