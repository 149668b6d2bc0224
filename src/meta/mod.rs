//! ObjectMeta rules: what kube sets, keeps and checks in `metadata` on create, update and
//! delete (uid, creationTimestamp, generation, generateName, finalizers, deletionTimestamp).

pub mod lifecycle;
pub mod names;
pub mod object;
