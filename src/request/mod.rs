//! Request vocabulary: pure parsing of what a request asks for, before authn/authz, and
//! the user it runs as ([`user`]).

pub mod body;
pub mod continuation;
pub mod gojson;
pub mod info;
pub mod negotiate;
pub mod options;
pub mod query;
pub mod strict;
pub mod user;
pub mod yaml_json;
pub mod yamlerr;
