//! managedFields on writes: the request's manager recorded by the field manager over the
//! served resource's types, as kube's handlers call `FieldManager.UpdateNoErrors`.

use serde_json::Value;

use crate::fieldmanager::managed::manager_or_user_agent;
use crate::fieldmanager::manager::{FieldManager, ResetFields};
use crate::handlers::Call;
use crate::handlers::context::Target;
use crate::request::options::WriteOptions;

/// Which endpoint writes: the main resource, `/status` or `/scale`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Main,
    Status,
    Scale,
}

impl Scope {
    fn subresource(self) -> &'static str {
        match self {
            Scope::Main => "",
            Scope::Status => "status",
            Scope::Scale => "scale",
        }
    }
}

/// `managerOrUserAgent`: `?fieldManager=`, else the User-Agent's prefix.
pub fn manager_name(call: &Call, options: &WriteOptions) -> String {
    manager_or_user_agent(
        &options.field_manager,
        call.header("user-agent").unwrap_or_default(),
    )
}

/// The field manager of a write to `scope` at `api_version` (the target's);
/// `none` stands for a scope without reset fields.
pub fn field_manager<'a>(
    ctx: &'a Target,
    scope: Scope,
    api_version: &'a str,
    none: &'a ResetFields,
) -> FieldManager<'a> {
    let reset_fields = match scope {
        Scope::Main => &ctx.version().main_reset,
        Scope::Status => &ctx.resource.status_reset,
        Scope::Scale => none,
    };
    FieldManager {
        converter: &ctx.resource.field_types,
        api_version,
        kind: &ctx.resource.kind,
        subresource: scope.subresource(),
        reset_fields,
    }
}

/// Records `manager`'s write of `new` over `live` (`None`: a create) in `new`'s
/// managedFields. A failure leaves `new` without managedFields and is only logged, as
/// kube's `UpdateNoErrors` does.
pub fn record_update(
    ctx: &Target,
    scope: Scope,
    live: Option<&Value>,
    new: &mut Value,
    manager: &str,
) {
    let api_version = ctx.api_version();
    let none = ResetFields::new();
    let fm = field_manager(ctx, scope, &api_version, &none);
    if let Err(e) = fm.update(live, new, manager, jiff::Timestamp::now()) {
        tracing::warn!(error = %e, "managedFields not recorded: the object is stored without them");
    }
}
