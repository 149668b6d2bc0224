//! CustomResourceDefinitions: loading manifests, checking them as kube does, and the
//! served catalog derived from them once at start-up.

pub mod catalog;
pub mod check;
pub mod conversion;
pub mod labels;
pub mod live;
pub mod load;
pub mod openapi;
pub mod priority;
pub mod served;
