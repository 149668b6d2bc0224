//! kube's webhook admission (MutatingAdmissionWebhook, ValidatingAdmissionWebhook).

pub mod conditions;
