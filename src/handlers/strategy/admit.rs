//! The write path's calls into the admission chain, where kube's handlers and store make
//! them: the mutating phase on the object about to be validated (a create's decoded
//! object; an update's or patch's new object on each attempt, with the stored one as the
//! old object; nothing on a delete), the validating phase after validation, and the
//! warnings the plugins recorded added to the request's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde_json::Value;

use crate::admission::{Attributes, Kind, Operation, Options, Recorder};
use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::handlers::{AppState, Call};
use crate::request::user::UserInfo;
use crate::schema::prune;

/// One request's admission: what every phase is told, and its recorder.
pub struct Admitting<'a> {
    state: &'a AppState,
    ctx: &'a Target,
    user: &'a UserInfo,
    /// When the request must be done: no webhook call outlives it.
    deadline: Option<Instant>,
    operation: Operation,
    subresource: &'a str,
    options: Options<'a>,
    dry_run: bool,
    /// The admitted object's kind when it is not the resource's (a `/scale` write's Scale).
    kind: Option<Kind<'static>>,
    /// Whether a mutating plugin changed the object (which is then pruned after the
    /// validating phase, as kube's storage encoding prunes it).
    mutated: AtomicBool,
    recorder: Recorder,
    /// The request's audit, which the recorder's annotations go to after each phase.
    audit: &'a crate::audit::Context,
}

impl<'a> Admitting<'a> {
    pub fn new(
        state: &'a AppState,
        ctx: &'a Target,
        call: &'a Call,
        operation: Operation,
        subresource: &'a str,
        options: Options<'a>,
        dry_run: bool,
    ) -> Self {
        Admitting {
            state,
            ctx,
            user: &call.user,
            deadline: call.deadline,
            operation,
            subresource,
            options,
            dry_run,
            kind: None,
            mutated: AtomicBool::new(false),
            recorder: Recorder::default(),
            audit: &call.audit,
        }
    }

    /// Admission of objects of another kind than the resource's (a `/scale` write's Scale).
    pub fn with_kind(self, group: &'static str, version: &'static str, kind: &'static str) -> Self {
        Admitting {
            kind: Some(Kind {
                group,
                version,
                kind,
            }),
            ..self
        }
    }

    pub fn operation(&self) -> Operation {
        self.operation
    }

    pub fn dry_run(&self) -> bool {
        self.dry_run
    }

    /// The same request's admission for another operation with its options (an apply
    /// that creates: kube's `patchToCreateOptions`).
    pub fn as_operation(&self, operation: Operation, options: Options<'a>) -> Admitting<'a> {
        Admitting {
            operation,
            options,
            mutated: AtomicBool::new(false),
            recorder: Recorder::default(),
            ..*self
        }
    }

    /// What the plugins are told about a write of `name` (empty for a create by
    /// `generateName`) over `old`.
    pub fn attributes<'b>(&'b self, name: &'b str, old: Option<&'b Value>) -> Attributes<'b> {
        let ctx = self.ctx;
        Attributes {
            operation: self.operation,
            namespace: ctx.namespace.as_deref().unwrap_or_default(),
            name,
            group: &ctx.resource.group,
            resource: &ctx.resource.plural,
            version: &ctx.version().name,
            kind: self.kind.unwrap_or(Kind {
                group: &ctx.resource.group,
                version: &ctx.version().name,
                kind: &ctx.resource.kind,
            }),
            subresource: self.subresource,
            dry_run: self.dry_run,
            user: self.user,
            options: self.options,
            old_object: old,
            served: Some(&ctx.resource),
            recorder: &self.recorder,
            deadline: self.deadline,
        }
    }

    /// The mutating phase on `object` (absent on a delete) over `old`; the plugins'
    /// warnings go to `warnings`, a refusal's too.
    pub async fn mutate(
        &self,
        name: &str,
        object: Option<&mut Value>,
        old: Option<&Value>,
        warnings: &mut Vec<String>,
    ) -> Result<(), ApiError> {
        let attributes = self.attributes(name, old);
        let result = self.state.admission.admit(&attributes, object).await;
        warnings.extend(self.recorder.take_warnings());
        self.log_annotations();
        if result? {
            self.mutated.store(true, Ordering::Relaxed);
        }
        Ok(())
    }

    /// The validating phase on `object` (absent on a delete) over `old`. An object a
    /// mutating plugin changed is then pruned by its schema, as kube's storage encoding
    /// prunes what a webhook added (validation and the validating plugins saw it whole).
    pub async fn validate(
        &self,
        name: &str,
        object: Option<&mut Value>,
        old: Option<&Value>,
        warnings: &mut Vec<String>,
    ) -> Result<(), ApiError> {
        let attributes = self.attributes(name, old);
        let result = self
            .state
            .admission
            .validate(&attributes, object.as_deref())
            .await;
        warnings.extend(self.recorder.take_warnings());
        self.log_annotations();
        result?;
        if let Some(object) = object
            && self.kind.is_none()
            && self.mutated.load(Ordering::Relaxed)
        {
            prune::prune_silently(object, &self.ctx.version().structural);
        }
        Ok(())
    }

    /// kube's admission audit handler: after each phase, the annotations recorded at or
    /// below the event's level go into the request's audit event.
    fn log_annotations(&self) {
        if !self.audit.enabled() {
            return;
        }
        for (key, value) in self.recorder.annotations_at(self.audit.level()) {
            self.audit.annotate(&key, &value);
        }
    }

    /// The audit annotations recorded so far (for the audit log).
    pub fn annotations(&self) -> std::collections::BTreeMap<String, String> {
        self.recorder.annotations()
    }
}
