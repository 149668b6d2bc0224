//! managedFields on writes: the request's manager recorded by the field manager over the
//! served resource's types, as kube's handlers call `FieldManager.UpdateNoErrors`, with
//! objects converted to the versions other managers are recorded at through the
//! resource's converter (kube's `NewCRDStructuredMergeManager`, hub = the request's
//! version; `strategy: None` only sets `apiVersion`, without any table).

use serde_json::Value;

use crate::crd::conversion::{Conversion, Convert};
use crate::fieldmanager::managed::manager_or_user_agent;
use crate::fieldmanager::manager::{FieldManager, converge};
use crate::fieldmanager::merge::Converter;
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

/// The field manager of a write to `scope` at `api_version` (the target's), converting
/// with `converter`.
fn field_manager<'a>(
    ctx: &'a Target,
    scope: Scope,
    api_version: &'a str,
    converter: &'a dyn Converter,
) -> FieldManager<'a> {
    let reset_fields = match scope {
        Scope::Main => &ctx.version().main_reset,
        Scope::Status => &ctx.resource.status_reset,
    };
    FieldManager {
        converter,
        api_version,
        kind: &ctx.resource.kind,
        subresource: scope.subresource(),
        reset_fields,
    }
}

/// `run` over the field manager of a write to `scope` at the target's version. With a
/// converter, `run` may run a few times (see `fieldmanager::manager::converge`): each
/// run must start from the same inputs; `seeds` makes the objects it converts for sure
/// (converted together, see `converge`), only then.
pub async fn with_field_manager<T>(
    ctx: &Target,
    scope: Scope,
    seeds: impl FnOnce() -> Vec<Value>,
    run: impl Fn(&FieldManager<'_>) -> T,
) -> T {
    let api_version = ctx.api_version();
    let types = &ctx.resource.field_types;
    match &ctx.resource.conversion {
        Conversion::None => run(&field_manager(ctx, scope, &api_version, types)),
        Conversion::Converter(converter) => {
            let converter: &dyn Convert = &**converter;
            let made = |c: &dyn Converter| run(&field_manager(ctx, scope, &api_version, c));
            let convert = move |objects: Vec<Value>, to: String| async move {
                converter.convert(objects, &to).await
            };
            converge(types, &api_version, &seeds(), made, convert).await
        }
    }
}

/// Records `manager`'s write of `new` over `live` (`None`: a create) in `new`'s
/// managedFields. A failure leaves `new` without managedFields and is only logged, as
/// kube's `UpdateNoErrors` does (a failed conversion included).
pub async fn record_update(
    ctx: &Target,
    scope: Scope,
    live: Option<&Value>,
    new: &mut Value,
    manager: &str,
) {
    let now = jiff::Timestamp::now();
    let recorded = match ctx.resource.conversion {
        Conversion::None => {
            let api_version = ctx.api_version();
            let types = &ctx.resource.field_types;
            field_manager(ctx, scope, &api_version, types).update(live, new, manager, now)
        }
        Conversion::Converter(_) => {
            let original = &*new;
            let seeds = || FieldManager::update_inputs(live, original);
            let (recorded, updated) = with_field_manager(ctx, scope, seeds, |fm| {
                let mut updated = original.clone();
                (fm.update(live, &mut updated, manager, now), updated)
            })
            .await;
            *new = updated;
            recorded
        }
    };
    if let Err(e) = recorded {
        tracing::warn!(error = %e, "managedFields not recorded: the object is stored without them");
    }
}
