//! crd-apiserver: a Kubernetes aggregated apiserver that serves CRD-defined resources
//! from its own storage.
//!
//! # Layout
//!
//! The modules in the order a request meets them, then the libraries they stand on. A
//! module imports only modules listed after it (test code aside); `tests/layering.rs`
//! holds this order as a table and fails on an import against it.
//!
//! - [`server`]: the TLS accept loop (client certificate captured), connections, the
//!   filter chain (`server::chain`: request info → deadline → authentication →
//!   impersonation → max-in-flight → authorization → dispatch, in kube's order),
//!   start-up wiring, shutdown, dev PKI.
//! - [`migrate`]: the `migrate` command, a client of a running server that rewrites
//!   objects at their storage version (kube's StorageVersionMigration request).
//! - [`offload`]: offload mode, the host cluster's selected CRDs taken over (fenced,
//!   copied with their uids, APIServices switched to us) and given back.
//! - [`register`]: self-registration: our APIServices kept in the host cluster, our own
//!   serving CA in a Secret, `crd-apiserver unregister`.
//! - [`authn`]: who is asking (front proxy, x509 client certificates, TokenReview).
//! - [`authz`]: may they (always-allow paths and groups, then SubjectAccessReview), and
//!   impersonation, which is checked with the authorizer.
//! - [`handlers`]: an authorized request dispatched to its verb (one module per verb
//!   family, discovery, OpenAPI, health, status and scale), the write strategy
//!   (`handlers::strategy`: decode, change, managedFields, the one write loop) and the
//!   wire encoding (`handlers::wire`: replies, served and stored bytes, splicing).
//! - [`admission`]: kube's admission chain, run by the write path after decode and
//!   before storage (NamespaceLifecycle, fed by the host cluster's namespaces; the
//!   mutating and validating admission webhooks, fed by its webhook configurations).
//! - [`conversion`]: custom resources converted between their versions (kube's CRD
//!   conversion): the webhook converter, the declarative converter, and the factory the
//!   catalog makes each resource's conversion with.
//! - [`webhook`]: the pooled HTTPS client every webhook is called through (admission
//!   webhooks and conversion webhooks).
//! - [`config`]: command-line flags into a validated configuration.
//! - [`watch`]: turns storage events into `{"type","object"}` watch events, queued per
//!   watcher under a byte budget, with the per-user watch limit.
//! - [`crd`]: loading and checking CustomResourceDefinitions into the served catalog.
//! - [`table`]: server-side printing.
//! - [`meta`]: ObjectMeta rules applied on create, update and delete.
//! - [`schema`]: the compiled structural schema of each served version: structural
//!   check at load, pruning, defaulting, validation with ratcheting, the CEL validation
//!   rules (`schema::rules`, with the adaptor to CEL's schema trait) and the schema as
//!   field management's type (`schema::typed`).
//! - [`cel`]: the CEL engine those rules run on (parser, checker, cost model, evaluator,
//!   Kubernetes libraries), matching kube's environment, costs and texts. It sees a
//!   schema only through its own trait (`cel::schema`).
//! - [`storage`]: the revisioned key/value [`storage::Store`], its backends and the watch
//!   cache (whose metrics live with it).
//! - [`inflight`]: the in-flight request budgets (kube's max-in-flight), drawn on by the
//!   chain and by a watch's initial list.
//! - [`audit`]: kube's auditing: the policy, the per-request context every stage records
//!   into, `audit.k8s.io/v1` events and the log and webhook backends.
//! - [`cluster`]: the one client to the host cluster (kubeconfig or in-cluster, bounded
//!   review calls, the TokenReview/SubjectAccessReview answer cache).
//! - [`request`]: request info (verb, group, version, resource, ...), query options,
//!   body decoding and content negotiation — pure parsers — and the user a request runs
//!   as (`request::user`).
//! - [`selector`]: label and field selectors.
//! - [`telemetry`]: request tracing (`--tracing-config-file`): OpenTelemetry spans over
//!   OTLP, W3C `traceparent` continued and passed on to webhooks.
//! - [`metrics`]: Prometheus metrics on `/metrics`, a leaf the stages count and register
//!   into (a request's labels are taken by `crd::labels`, from the served catalog).
//! - [`error`]: the one `ApiError` and its conversion into `metav1.Status`.
//! - [`fieldmanager`]: managedFields and server-side apply (field paths and sets, their
//!   `FieldsV1` encoding, managedFields entries), mirroring structured-merge-diff.
//! - [`formats`]: leaf text checks shared by `schema` and `cel`: Go's regexp syntax,
//!   Go patterns for the `regex` crate, and the OpenAPI string and number formats.
//! - [`gofmt`]: Go's text for values in messages and cells (`%q`, `%v`, `json.Marshal`).
//! - [`validation`]: leaf validators (DNS labels and subdomains) shared by load-time and
//!   request-time checks.

pub mod admission;
pub mod audit;
pub mod authn;
pub mod authz;
pub mod cel;
pub mod cluster;
pub mod config;
pub mod conversion;
pub mod crd;
pub mod error;
pub mod fieldmanager;
pub mod formats;
pub mod gofmt;
pub mod handlers;
pub mod inflight;
pub mod meta;
pub mod metrics;
pub mod migrate;
pub mod offload;
pub mod register;
pub mod request;
pub mod schema;
pub mod selector;
pub mod server;
pub mod storage;
pub mod table;
pub mod telemetry;
pub mod validation;
pub mod watch;
pub mod webhook;
