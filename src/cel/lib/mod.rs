//! The Kubernetes CEL libraries and the cel-go extensions kube enables for CRD rules.

mod argv;
mod cidr;
mod ip;

use super::functions::Library;

/// Every library kube enables for stored CRD expressions.
pub fn library() -> Library {
    let mut library = Library::default();
    library.extend(ip::library());
    library.extend(cidr::library());
    library
}
