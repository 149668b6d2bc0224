//! Admission policies (issue 31) compared request for request with the reference
//! apiextensions-apiserver 0.36.4 running kube's ValidatingAdmissionPolicy and
//! MutatingAdmissionPolicy plugins; and the fake core API serving policies, bindings and
//! params (fake_core.rs).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "policy_compare/fake_core.rs"]
mod fake_core;
#[path = "common/fake_kube.rs"]
mod fake_kube;
