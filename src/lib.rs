//! crd-apiserver: a Kubernetes aggregated apiserver that serves CRD-defined resources
//! from its own storage.
//!
//! # Layout
//!
//! The modules follow the request path:
//!
//! - [`server`]: TLS accept loop (client certificate captured), router, shutdown, dev PKI.
//! - [`request`]: request info (verb, group, version, resource, ...), query options,
//!   body decoding and content negotiation — pure parsers — and the user a request runs
//!   as (`request::user`).
//! - [`authn`]: who is asking (front proxy, x509 client certificates, TokenReview).
//! - [`authz`]: may they (always-allow paths and groups, then SubjectAccessReview), and
//!   impersonation, which is checked with the authorizer.
//! - [`cluster`]: the one client to the host cluster (kubeconfig or in-cluster, bounded
//!   review calls, the TokenReview/SubjectAccessReview answer cache).
//! - [`metrics`]: Prometheus metrics on `/metrics`, a leaf the stages count and register
//!   into (a request's labels are taken by `server::labels`).
//! - [`namespaces`]: the host cluster's namespaces, followed for kube's NamespaceLifecycle
//!   admission (writes into missing or terminating namespaces refused).
//! - [`handlers`]: one module per verb, discovery, health, status and scale subresources.
//! - [`meta`]: ObjectMeta rules applied on create, update and delete.
//! - [`schema`]: the compiled structural schema of each served version: structural
//!   check at load, pruning, defaulting, validation with ratcheting, and the CEL
//!   validation rules (`schema::rules`) compiled at load and run after validation.
//! - [`cel`]: the CEL engine those rules run on (parser, checker, cost model, evaluator,
//!   Kubernetes libraries), matching kube's environment, costs and texts. It sees a
//!   schema only through its own trait (`cel::schema`); `schema::rules` adapts to it.
//! - [`fieldmanager`]: managedFields and server-side apply (field paths and sets, their
//!   `FieldsV1` encoding, managedFields entries), mirroring structured-merge-diff.
//! - [`storage`]: the revisioned key/value [`storage::Store`] and its backends.
//! - [`watch`]: turns storage events into `{"type","object"}` watch events, queued per
//!   watcher under a byte budget, with the per-user watch limit.
//! - [`selector`], [`table`]: label/field selectors and server-side printing.
//! - [`crd`]: loading and checking CustomResourceDefinitions into the served catalog.
//! - [`config`]: command-line flags into a validated configuration.
//! - [`error`]: the one `ApiError` and its conversion into `metav1.Status`.
//! - [`validation`]: leaf validators (DNS labels and subdomains) shared by load-time and
//!   request-time checks.
//! - [`formats`]: leaf text checks shared by `schema` and `cel`: Go's regexp syntax,
//!   Go patterns for the `regex` crate, and the OpenAPI string and number formats.
//! - [`gofmt`]: Go's text for values in messages and cells (`%q`, `%v`, `json.Marshal`).

pub mod admission;
pub mod authn;
pub mod authz;
pub mod cel;
pub mod cluster;
pub mod config;
pub mod crd;
pub mod error;
pub mod fieldmanager;
pub mod formats;
pub mod gofmt;
pub mod handlers;
pub mod inflight;
pub mod meta;
pub mod metrics;
pub mod request;
pub mod schema;
pub mod selector;
pub mod server;
pub mod storage;
pub mod table;
pub mod validation;
pub mod watch;
