//! `metadata.managedFields` as kube's apiserver-side field manager handles it
//! (k8s.io/apimachinery/pkg/util/managedfields/internal), minus the schema-driven merge.
//!
//! # Layout
//!
//! - `entry`: [`ManagedFieldsEntry`] read from / written to an object, and `metav1.Time`.
//! - `identifier`: manager identifiers (`BuildManagerIdentifier`), the request's manager
//!   name (`fieldManager` or the User-Agent's prefix) and `ValidateFieldManager`.
//! - `decode`: [`Managed`] from entries and back (validation, sorting), the reset rule
//!   and `decodeLiveOrNew`.
//! - `cap`: the 10-entry cap on `Update` entries (`ancient-changes`).
//! - `conflict`: the 409 message and causes of apply conflicts.
//! - `updater`: the time rule (`current-operation`) and the stripped metadata fields.
//!
//! The order kube runs them in for a write (`NewDefaultFieldManager`): decode
//! (`decode_live_or_new` for updates, `decode_managed_fields` of the live object for
//! applies), the merge under [`manager_info`]'s identifier ([`CURRENT_OPERATION`] for
//! updates), [`strip_fields`], [`finish_update`] / [`finish_apply`],
//! [`cap_update_managers`] (updates only), then [`encode_managed_fields`] into the object.

mod cap;
mod conflict;
mod decode;
mod entry;
mod identifier;
mod updater;

#[cfg(test)]
mod cap_tests;
#[cfg(test)]
mod decode_tests;
#[cfg(test)]
mod sort_tests;

pub use cap::{ANCIENT_CHANGES, DEFAULT_MAX_UPDATE_MANAGERS, cap_update_managers};
pub use conflict::{ConflictCause, conflict_causes, conflict_message, print_manager};
pub use decode::{
    Managed, decode_live_or_new, decode_managed_fields, encode_managed_fields,
    is_reset_managed_fields, sort_entries,
};
pub use entry::{
    ManagedFieldsEntry, Operation, entries_of, format_time, parse_time, set_entries, unix_seconds,
};
pub use identifier::{
    FIELD_MANAGER_MAX_LENGTH, FieldManagerError, build_manager_identifier, manager_info,
    manager_or_user_agent, parse_manager_identifier, prefix_from_user_agent,
    validate_field_manager,
};
pub use updater::{CURRENT_OPERATION, finish_apply, finish_update, strip_fields, strip_set};
