//! `FieldManager.Apply` and the apply half of the chain: versionCheck,
//! lastAppliedUpdater / lastAppliedManager, skipNonApplied (`before-first-apply`),
//! buildManagerInfo, managedFieldsUpdater, stripMeta and structuredMerge.

use jiff::Timestamp;
use serde_json::Value;

use super::error::{gvk_string, object_gvknn, type_meta};
use super::lastapplied::{build_last_applied, disallowed_conflicts, has_last_applied};
use super::{BEFORE_FIRST_APPLY, Error, FieldManager, KUBECTL, remove_managed_fields};
use crate::fieldmanager::fieldpath::{ManagedFields, Path};
use crate::fieldmanager::managed::{
    Managed, Operation, conflict_causes, conflict_message, decode_managed_fields,
    encode_managed_fields, entries_of, finish_apply, manager_info, set_entries, strip_fields,
};
use crate::fieldmanager::merge::{self, Conflicts};
use crate::fieldmanager::typed;

/// How the apply chain fails: conflicts stay structured until the top, where the
/// last-applied step may still forgive them.
enum Failure {
    Conflicts(Conflicts),
    Error(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Error(e)
    }
}

impl FieldManager<'_> {
    /// The object after `manager` applies `patch` to `live` (`None`: create), with its
    /// managedFields. Fails with kube's 409 on conflicts (unless `force`), its 400s for
    /// a patch of another type or carrying managedFields, and plain errors otherwise.
    pub fn apply(
        &self,
        live: Option<&Value>,
        patch: &Value,
        manager: &str,
        force: bool,
        now: Timestamp,
    ) -> Result<Value, Error> {
        let empty = self.empty_object();
        let live = live.unwrap_or(&empty);
        let managed = decode_managed_fields(&entries_of(live).unwrap_or_default())
            .map_err(|e| Error::Internal(format!("failed to decode managed fields: {e}")))?;
        self.version_check(patch)?;
        let (mut object, managed) =
            match self.apply_chain(live, patch, &managed, manager, force, now) {
                Ok(done) => done,
                Err(Failure::Conflicts(c)) => {
                    self.last_applied_manager(live, patch, &managed, manager, now, c)?
                }
                Err(Failure::Error(e)) => return Err(e),
            };
        if manager == KUBECTL && has_last_applied(&object) {
            super::set_last_applied(&mut object, &build_last_applied(patch));
        }
        set_entries(&mut object, &encode_managed_fields(&managed));
        Ok(object)
    }

    /// `versionCheckManager.Apply`: the patch must be of the scope's group, version and kind.
    fn version_check(&self, patch: &Value) -> Result<(), Error> {
        let (api_version, kind) = type_meta(patch);
        let got = gvk_string(api_version, kind);
        if got != gvk_string(self.api_version, self.kind) {
            return Err(Error::BadRequest(format!("invalid object type: {got}")));
        }
        Ok(())
    }

    /// `lastAppliedManager.Apply` after conflicts: the `kubectl` applier may take over
    /// what its last client-side apply set and the object still holds (a forced apply);
    /// any other conflict stands.
    fn last_applied_manager(
        &self,
        live: &Value,
        patch: &Value,
        managed: &Managed,
        manager: &str,
        now: Timestamp,
        conflicts: Conflicts,
    ) -> Result<(Value, Managed), Error> {
        let allowed = (manager == KUBECTL)
            .then(|| self.allowed_conflicts_from_last_applied(live))
            .flatten();
        let Some(allowed) = allowed else {
            return Err(conflict_error(&conflicts));
        };
        if let Some(rest) = disallowed_conflicts(&conflicts, &allowed) {
            return Err(conflict_error(&rest));
        }
        match self.apply_chain(live, patch, managed, manager, true, now) {
            Ok(done) => Ok(done),
            Err(Failure::Conflicts(c)) => Err(conflict_error(&c)),
            Err(Failure::Error(e)) => Err(e),
        }
    }

    /// skipNonApplied down to structuredMerge. An object without managedFields first
    /// gets what it holds recorded as `before-first-apply`'s update.
    fn apply_chain(
        &self,
        live: &Value,
        patch: &Value,
        managed: &Managed,
        manager: &str,
        force: bool,
        now: Timestamp,
    ) -> Result<(Value, Managed), Failure> {
        let mut managed = managed.clone();
        if managed.fields.is_empty() {
            let (api_version, kind) = type_meta(patch);
            let empty = serde_json::json!({"apiVersion": api_version, "kind": kind});
            managed = self
                .tracked_update(&empty, live, managed, BEFORE_FIRST_APPLY, now)
                .map_err(|e| {
                    Error::Internal(format!("failed to create manager for existing fields: {e}"))
                })?;
        }
        let id = manager_info(
            manager,
            Operation::Apply,
            self.api_version,
            self.subresource,
        );
        let fields = std::mem::take(&mut managed.fields);
        let (object, fields) = self.structured_apply(live, patch, fields, &id, force)?;
        managed.fields = fields;
        strip_fields(&mut managed, &id);
        let object = match object {
            Some(object) => {
                finish_apply(&mut managed, &id, true, now);
                object
            }
            None => {
                let mut object = live.clone();
                remove_managed_fields(&mut object);
                object
            }
        };
        Ok((object, managed))
    }

    /// `structuredMergeManager.Apply`: the patch must carry no managedFields and be valid
    /// for the type without duplicate items; the updater merges and assigns ownership.
    fn structured_apply(
        &self,
        live: &Value,
        patch: &Value,
        fields: ManagedFields,
        manager: &str,
        force: bool,
    ) -> Result<(Option<Value>, ManagedFields), Failure> {
        let (patch_version, _) = type_meta(patch);
        if patch_version != self.api_version {
            return Err(Error::BadRequest(format!(
                "Incorrect version specified in apply patch. Specified patch version: {patch_version}, expected: {}",
                self.api_version
            ))
            .into());
        }
        if entries_of(patch).is_some() {
            return Err(Error::BadRequest("metadata.managedFields must be nil".into()).into());
        }
        let typed_err = |which: &str, obj: &Value, e: String| {
            Error::Internal(format!(
                "failed to create typed {which} object ({}): {e}",
                object_gvknn(obj)
            ))
        };
        let ty = self.type_ref().map_err(|e| typed_err("patch", patch, e))?;
        typed::validate(ty, patch, false).map_err(|e| typed_err("patch", patch, e.to_string()))?;
        typed::validate(ty, live, true).map_err(|e| typed_err("live", live, e.to_string()))?;
        self.updater()
            .apply(live, patch, self.api_version, fields, manager, force)
            .map_err(|e| match e {
                merge::Error::Conflicts(c) => Failure::Conflicts(c),
                merge::Error::Failed(text) => Failure::Error(Error::Internal(text)),
            })
    }
}

/// `NewConflictError`.
fn conflict_error(conflicts: &Conflicts) -> Error {
    let pairs: Vec<(String, Path)> = conflicts
        .iter()
        .map(|c| (c.manager.clone(), c.path.clone()))
        .collect();
    Error::Conflict {
        message: conflict_message(&pairs),
        causes: conflict_causes(&pairs),
    }
}
