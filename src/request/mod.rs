//! Request stage: pure parsing of what a request asks for, before authn/authz.

pub mod body;
pub mod continuation;
pub mod gojson;
pub mod info;
pub mod negotiate;
pub mod options;
pub mod query;
pub mod strict;
pub mod yaml_json;
pub mod yamlerr;
