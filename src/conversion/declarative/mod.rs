//! PLACEHOLDER for helper cdecl: the declarative converter (annotation
//! `conversion.crd-apiserver.io/declarative`). cdecl replaces this file; the factory
//! (`conversion::Factory`) calls [`converter`] first for every definition.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::crd::conversion::Conversion;

/// HOOK: `None` when `crd` has no declarative annotation; else its compiled converter or
/// the refusal text. cdecl fills this in.
pub fn converter(_crd: &CustomResourceDefinition) -> Option<Result<Conversion, String>> {
    None
}
