//! Leaf validators shared by definition checks at load and request-time checks of objects,
//! selectors and names (apimachinery's `util/validation`); they depend on nothing else here.

pub mod dns;

pub use dns::{is_dns1035_label, is_dns1123_label, is_dns1123_subdomain};
