//! Self-registration in the host cluster: our APIServices kept reconciled
//! (`--register-apiservices`), our own serving CA in a Secret (`--serving-ca-secret`),
//! and `crd-apiserver unregister`.

pub mod ca_contents;
pub mod ca_file;
pub mod ca_secret;
pub mod desired;
pub mod pki;
pub mod plan;
pub mod reconcile;
pub mod rotation;
pub mod unregister;

/// The label on every APIService we own (its value: the Service `<namespace>.<name>`);
/// APIServices without it are never touched, except a take-over's switch in offload mode.
pub const OWNER_LABEL: &str = "crd-apiserver.io/service";
/// The field manager of our server-side applies to the host.
pub const FIELD_MANAGER: &str = "crd-apiserver";
