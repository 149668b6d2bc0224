//! managedFields on writes: the request's manager recorded by the field manager over the
//! served resource's types, as kube's handlers call `FieldManager.UpdateNoErrors`.

use serde_json::Value;

use crate::fieldmanager::managed::manager_or_user_agent;
use crate::fieldmanager::manager::FieldManager;
use crate::handlers::Call;
use crate::handlers::context::Target;
use crate::request::options::WriteOptions;

/// Which endpoint writes with the object's field manager: the main resource or
/// `/status` (`/scale` writes run the Scale's own, see `handlers::scale`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Main,
    Status,
}

impl Scope {
    fn subresource(self) -> &'static str {
        match self {
            Scope::Main => "",
            Scope::Status => "status",
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

/// The field manager of a write to `scope` at `api_version` (the target's).
pub fn field_manager<'a>(ctx: &'a Target, scope: Scope, api_version: &'a str) -> FieldManager<'a> {
    let reset_fields = match scope {
        Scope::Main => &ctx.version().main_reset,
        Scope::Status => &ctx.resource.status_reset,
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
    let fm = field_manager(ctx, scope, &api_version);
    if let Err(e) = fm.update(live, new, manager, jiff::Timestamp::now()) {
        tracing::warn!(error = %e, "managedFields not recorded: the object is stored without them");
    }
}
