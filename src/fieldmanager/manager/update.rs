//! `FieldManager.Update` (through `UpdateNoErrors`) and the update half of the chain:
//! skipNonApplied, capManagers, buildManagerInfo, managedFieldsUpdater, stripMeta and
//! structuredMerge.

use jiff::Timestamp;
use serde_json::Value;

use super::error::object_gvknn;
use super::{Error, FieldManager, remove_managed_fields};
use crate::fieldmanager::fieldpath::ManagedFields;
use crate::fieldmanager::managed::{
    CURRENT_OPERATION, DEFAULT_MAX_UPDATE_MANAGERS, Managed, Operation, cap_update_managers,
    decode_live_or_new, encode_managed_fields, entries_of, finish_update, manager_info,
    set_entries, strip_fields,
};
use crate::fieldmanager::typed;

impl FieldManager<'_> {
    /// Records `manager`'s write of `new` over `live` (`None` for a create) in
    /// `new`'s `metadata.managedFields`. The managedFields start from the request's own
    /// (unless a subresource write or undecodable), `[]`/`[{}]` clear them, and an
    /// existing object without any is not tracked. On error `new` is left without
    /// managedFields, as `UpdateNoErrors` leaves it; kube logs the error and goes on.
    pub fn update(
        &self,
        live: Option<&Value>,
        new: &mut Value,
        manager: &str,
        now: Timestamp,
    ) -> Result<(), Error> {
        let empty = self.empty_object();
        let live = live.unwrap_or(&empty);
        let live_entries = entries_of(live);
        let new_entries = entries_of(new);
        let managed = decode_live_or_new(
            live_entries.as_deref(),
            new_entries.as_deref(),
            !self.subresource.is_empty(),
        );
        remove_managed_fields(new);
        let managed = if skip_non_applied(live, &managed) {
            managed
        } else {
            self.tracked_update(live, new, managed, manager, now)?
        };
        set_entries(new, &encode_managed_fields(&managed));
        Ok(())
    }

    /// The objects [`FieldManager::update`] hands the merge, which it converts to the
    /// version of every other manager: `live` and `new` without managedFields.
    pub fn update_inputs(live: Option<&Value>, new: &Value) -> Vec<Value> {
        let mut new = new.clone();
        remove_managed_fields(&mut new);
        live.cloned().into_iter().chain([new]).collect()
    }

    /// The chain below skipNonApplied for an update by `manager` (a name).
    pub(super) fn tracked_update(
        &self,
        live: &Value,
        new: &Value,
        mut managed: Managed,
        manager: &str,
        now: Timestamp,
    ) -> Result<Managed, Error> {
        let id = manager_info(
            manager,
            Operation::Update,
            self.api_version,
            self.subresource,
        );
        let fields = std::mem::take(&mut managed.fields);
        managed.fields = self.structured_update(live, new, fields, CURRENT_OPERATION)?;
        strip_fields(&mut managed, CURRENT_OPERATION);
        finish_update(&mut managed, &id, now);
        cap_update_managers(&mut managed, DEFAULT_MAX_UPDATE_MANAGERS);
        Ok(managed)
    }

    /// `structuredMergeManager.Update`: both objects must be valid for the type (live
    /// objects may hold duplicate items), then the updater assigns ownership.
    fn structured_update(
        &self,
        live: &Value,
        new: &Value,
        fields: ManagedFields,
        manager: &str,
    ) -> Result<ManagedFields, Error> {
        let typed_err = |which: &str, obj: &Value, e: String| {
            Error::Internal(format!(
                "failed to convert {which} object ({}) to smd typed: {e}",
                object_gvknn(obj)
            ))
        };
        let ty = self.type_ref().map_err(|e| typed_err("new", new, e))?;
        typed::validate(ty, new, true).map_err(|e| typed_err("new", new, e.to_string()))?;
        typed::validate(ty, live, true).map_err(|e| typed_err("live", live, e.to_string()))?;
        self.updater()
            .update(live, new, self.api_version, fields, manager)
            .map_err(|e| {
                Error::Internal(format!(
                    "failed to update ManagedFields ({}): {e}",
                    object_gvknn(new)
                ))
            })
    }
}

/// `skipNonAppliedManager.Update`: an object that exists (has a uid) without
/// managedFields stays untracked; new objects are always tracked (the probability is 1).
fn skip_non_applied(live: &Value, managed: &Managed) -> bool {
    let uid = live
        .get("metadata")
        .and_then(|m| m.get("uid"))
        .and_then(Value::as_str)
        .unwrap_or("");
    managed.fields.is_empty() && !uid.is_empty()
}
