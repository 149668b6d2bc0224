//! The Kubernetes CEL libraries and the cel-go extensions kube enables for CRD rules.

mod argv;
pub mod authz;
pub mod cidr;
pub mod comprehensions;
mod elems;
mod extlists;
pub mod format;
pub mod ip;
pub mod jsonpatch;
#[cfg(test)]
mod kube_part1_e2e;
#[cfg(test)]
mod kube_part2_e2e;
mod lists;
mod quantity;
pub mod regex;
mod semver;
mod sets;
pub mod strings;
pub mod urls;

use super::functions::Library;

/// Every library kube enables for stored CRD expressions.
pub fn library() -> Library {
    let mut library = Library::default();
    library.extend(ip::library());
    library.extend(cidr::library());
    library.extend(urls::library());
    library.extend(format::library());
    library.extend(regex::library());
    library.extend(strings::library());
    library.extend(quantity::library());
    library.extend(semver::library());
    library.extend(lists::library());
    library.extend(authz::library());
    library.extend(sets::library());
    library.extend(extlists::library());
    library.extend(comprehensions::library());
    library
}
