//! ObjectMeta rules: what kube sets, keeps and checks in `metadata` on create, update and
//! delete (uid, creationTimestamp, generation, generateName, finalizers, deletionTimestamp),
//! and kube's ObjectMeta validation.

pub mod lifecycle;
pub mod names;
pub mod object;
pub mod validation;
