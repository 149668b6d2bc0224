//! Field management: which manager owns which fields of an object, as kube's
//! server-side apply records it in `metadata.managedFields`.
//!
//! # Layout
//!
//! The modules mirror upstream's package boundaries (sigs.k8s.io/structured-merge-diff
//! and k8s.io/apimachinery/pkg/util/managedfields/internal) so each is tested against
//! upstream's own test tables:
//!
//! - [`value`]: the total order, equality and `ToString` of JSON values that path
//!   elements carry (structured-merge-diff `value`).
//! - [`fieldpath`]: path elements, paths, sets of paths, the `FieldsV1` encoding and the
//!   per-manager [`fieldpath::ManagedFields`] (structured-merge-diff `fieldpath`).
//! - [`managed`]: `metadata.managedFields` entries: decoding, validation and reset,
//!   manager identifiers, the 10-entry cap and the time rule (apimachinery's
//!   `managedfields/internal`).
//! - [`typed`]: objects walked by the CRD's schema (field sets, compare) (structured-merge-diff
//!   `typed`).
//! - [`merge`]: the update/apply algorithm with ownership and conflicts
//!   (structured-merge-diff `merge`).
//! - [`manager`]: the apiserver-side field manager around them: `update` / `apply` of a
//!   request, conflicts as kube's 409, last-applied migration, reset fields.

pub mod fieldpath;
pub mod managed;
pub mod manager;
pub mod merge;
pub mod typed;
pub mod value;
