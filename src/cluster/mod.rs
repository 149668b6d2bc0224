//! The one client to the host cluster: which kubeconfig (or in-cluster service account)
//! it comes from, how one review call is bounded and retried ([`client`]), and the
//! time-to-live cache of the TokenReview and SubjectAccessReview answers ([`cache`]).
//! Authentication, authorization and NamespaceLifecycle all reach the cluster through it.

pub mod cache;
pub mod client;
