//! The one client to the host cluster: which kubeconfig (or in-cluster service account)
//! it comes from, how one review call is bounded and retried ([`client`]), and the
//! time-to-live cache of the TokenReview and SubjectAccessReview answers ([`cache`]),
//! and the list+watch loop that follows a kind of the cluster's objects ([`informer`]).
//! Authentication, authorization, NamespaceLifecycle and webhook admission all reach the
//! cluster through it.

pub mod cache;
pub mod client;
pub mod informer;
