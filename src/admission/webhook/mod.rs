//! kube's webhook admission (MutatingAdmissionWebhook, ValidatingAdmissionWebhook).

pub mod review;
pub mod transport;
