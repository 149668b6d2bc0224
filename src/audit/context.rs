//! One request's audit (kube's `AuditContext`): the event the chain, authorization,
//! admission and the handlers record into, and its stages handed to the backend. A
//! request the policy does not audit (no policy, or level `None`) carries a disabled
//! context: every call on it returns at once, and it allocates nothing.

use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;

use super::auditor::Auditor;
use super::event::{Event, Level, ObjectReference, Stage, UserInfo};
use super::policy::RequestAuditConfig;
use super::request;

/// The audit of one request; [`Context::disabled`] when it is not audited.
#[derive(Default)]
pub struct Context(Option<Box<Active>>);

struct Active {
    config: RequestAuditConfig,
    auditor: Arc<Auditor>,
    event: Mutex<Event>,
}

impl Context {
    /// A request that is not audited.
    pub const fn disabled() -> Context {
        Context(None)
    }

    /// The audit of a request at `config`'s level, its event started with `event`'s
    /// metadata (kube's `LogRequestMetadata`); disabled at level `None`.
    pub fn new(auditor: Arc<Auditor>, config: RequestAuditConfig, mut event: Event) -> Context {
        if config.level == Level::None {
            return Context(None);
        }
        event.level = config.level;
        Context(Some(Box::new(Active {
            config,
            auditor,
            event: Mutex::new(event),
        })))
    }

    /// Whether anything is recorded.
    pub fn enabled(&self) -> bool {
        self.0.is_some()
    }

    /// The event's level (`None` when disabled).
    pub fn level(&self) -> Level {
        self.0.as_ref().map_or(Level::None, |a| a.config.level)
    }

    /// Whether managed fields are left out of the logged objects.
    pub fn omit_managed_fields(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|a| a.config.omit_managed_fields)
    }

    /// kube's `AddAuditAnnotation`: a key set once keeps its first value.
    pub fn annotate(&self, key: &str, value: &str) {
        self.visit(|e| {
            e.annotations
                .entry(key.to_owned())
                .or_insert_with(|| value.to_owned());
        });
    }

    /// Annotations recorded at `level` or below it, for an event at least that level
    /// (admission's `AddAnnotationWithLevel`).
    pub fn annotate_at(&self, level: Level, key: &str, value: &str) {
        if self.level() >= level {
            self.annotate(key, value);
        }
    }

    /// kube's `LogImpersonatedUser`.
    pub fn log_impersonated_user(&self, user: UserInfo) {
        self.visit(|e| e.impersonated_user = Some(user));
    }

    /// kube's `LogRequestObject` for a decoded request object (`object` encoded as JSON):
    /// the object reference completed from its metadata at Metadata level and above, the
    /// object itself at Request level and above.
    pub fn log_request_object(&self, object: &Value) {
        let Some(active) = &self.0 else { return };
        let encoded = match active.config.level {
            Level::Request | Level::RequestResponse => {
                request::encode(object, active.config.omit_managed_fields)
            }
            _ => None,
        };
        self.visit(|e| {
            let reference = e.object_ref.get_or_insert_with(ObjectReference::default);
            request::complete_reference(reference, object);
            if encoded.is_some() {
                e.request_object = encoded;
            }
        });
    }

    /// kube's `LogRequestPatch`: the patch as sent, at Request level and above.
    pub fn log_request_patch(&self, patch: &[u8]) {
        if self.level() < Level::Request {
            return;
        }
        let Some(raw) = request::raw_json(patch) else {
            return;
        };
        self.visit(|e| e.request_object = Some(raw));
    }

    /// kube's `LogResponseObject`: a Status answer's fields as the response status, and at
    /// RequestResponse level the object served.
    pub fn log_response_object(&self, object: &Value) {
        let Some(active) = &self.0 else { return };
        let status = request::status_of(object);
        let encoded = match active.config.level {
            Level::RequestResponse => request::encode(object, active.config.omit_managed_fields),
            _ => None,
        };
        self.visit(|e| {
            if status.is_some() {
                e.response_status = status;
            }
            if encoded.is_some() {
                e.response_object = encoded;
            }
        });
    }

    /// At RequestResponse level, an answer already encoded as JSON (`served` bytes).
    pub fn log_response_bytes(&self, served: &[u8]) {
        let Some(active) = &self.0 else { return };
        if active.config.level < Level::RequestResponse {
            return;
        }
        let raw = match active.config.omit_managed_fields {
            true => serde_json::from_slice::<Value>(served)
                .ok()
                .and_then(|v| request::encode(&v, true)),
            false => request::raw_json(served),
        };
        self.visit(|e| e.response_object = raw);
    }

    /// Whether the response status is set yet (kube's `GetEventResponseStatus != nil`).
    pub fn has_response_status(&self) -> bool {
        let mut set = false;
        self.visit(|e| set = e.response_status.is_some());
        set
    }

    /// Sets the whole response status (kube's `SetEventResponseStatus`).
    pub fn set_response_status(&self, status: Value) {
        self.visit(|e| e.response_status = Some(status));
    }

    /// kube's `SetEventResponseStatusCode`: the code into the status, created if absent.
    pub fn set_response_code(&self, code: u16) {
        self.visit(|e| {
            let status = e
                .response_status
                .get_or_insert_with(|| serde_json::json!({"metadata": {}}));
            status["code"] = Value::from(code);
        });
    }

    /// kube's `ProcessEventStage`: the event at `stage` to the backend, unless the policy
    /// omits the stage; false when the backend could not take it.
    pub async fn process_stage(&self, stage: Stage) -> bool {
        let Some(active) = &self.0 else { return true };
        if active.config.omit_stages.contains(&stage) {
            return true;
        }
        let event = {
            let mut e = active.lock();
            e.stage = stage;
            e.stage_timestamp = match stage {
                Stage::RequestReceived => e.request_received_timestamp.clone(),
                _ => super::event::time::stamp(jiff::Timestamp::now()),
            };
            Arc::new(e.clone())
        };
        active.auditor.observe_event();
        active.auditor.backend.process_events(&[event]).await
    }

    fn visit(&self, f: impl FnOnce(&mut Event)) {
        if let Some(active) = &self.0 {
            f(&mut active.lock());
        }
    }
}

impl Active {
    fn lock(&self) -> MutexGuard<'_, Event> {
        self.event.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
