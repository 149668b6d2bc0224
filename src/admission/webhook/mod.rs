//! kube's webhook admission (MutatingAdmissionWebhook, ValidatingAdmissionWebhook).

pub mod hook;
pub mod matching;
pub mod rules;
pub mod transport;
