//! Custom resources converted between their versions (kube's apiextensions-apiserver
//! `pkg/apiserver/conversion`): the webhook converter, the declarative converter, and
//! the factory the catalog makes each resource's [`crate::crd::conversion::Conversion`]
//! with. The contract itself lives below, in `crd::conversion`.

pub mod declarative;
