//! The `events.k8s.io/v1` Events offload emits on a host CRD: one per phase reached
//! (`reason` = `Offload<Phase>`), and Warnings for refusals and failures.

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};

use super::record::{Direction, Phase};

/// The events' `reportingController`.
pub const REPORTING_CONTROLLER: &str = "crd-apiserver.io/offload";
/// kube's limit on an event's note (`validation.NoteLengthLimit`).
const NOTE_LIMIT: usize = 1024;

/// `Normal` or `Warning`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Normal,
    Warning,
}

/// What an event says, about which CRD.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub regarding: ObjectReference,
    pub reason: String,
    pub kind: Kind,
    pub note: String,
    pub action: Direction,
}

impl Notice {
    /// The phase `phase` reached on `crd`.
    pub fn reached(
        crd: &CustomResourceDefinition,
        action: Direction,
        phase: Phase,
        note: String,
    ) -> Notice {
        let kind = match phase {
            Phase::Failed => Kind::Warning,
            _ => Kind::Normal,
        };
        Notice::new(
            crd,
            format!("Offload{}", phase.as_str()),
            kind,
            note,
            action,
        )
    }

    /// A move refused (nothing changes): Warning `OffloadRefused`.
    pub fn refused(crd: &CustomResourceDefinition, action: Direction, note: String) -> Notice {
        Notice::new(
            crd,
            "OffloadRefused".to_string(),
            Kind::Warning,
            note,
            action,
        )
    }

    fn new(
        crd: &CustomResourceDefinition,
        reason: String,
        kind: Kind,
        note: String,
        action: Direction,
    ) -> Notice {
        let meta = &crd.metadata;
        Notice {
            regarding: ObjectReference {
                api_version: Some("apiextensions.k8s.io/v1".to_string()),
                kind: Some("CustomResourceDefinition".to_string()),
                name: meta.name.clone(),
                uid: meta.uid.clone(),
                resource_version: meta.resource_version.clone(),
                ..ObjectReference::default()
            },
            reason,
            kind,
            note,
            action,
        }
    }

    /// The Event, named as kube's recorder names them (`<regarding name>.<nanoseconds in hex>`).
    pub fn event(&self, instance: &str, now: jiff::Timestamp) -> Event {
        let name = self.regarding.name.clone().unwrap_or_default();
        Event {
            metadata: ObjectMeta {
                name: Some(format!("{name}.{:x}", now.as_nanosecond())),
                namespace: Some("default".to_string()),
                labels: Some(std::collections::BTreeMap::from([(
                    super::MANAGED_BY_LABEL.to_string(),
                    super::MANAGED_BY.to_string(),
                )])),
                ..ObjectMeta::default()
            },
            event_time: Some(MicroTime(now)),
            regarding: Some(self.regarding.clone()),
            reason: Some(self.reason.clone()),
            type_: Some(
                match self.kind {
                    Kind::Normal => "Normal",
                    Kind::Warning => "Warning",
                }
                .to_string(),
            ),
            note: Some(truncate(&self.note, NOTE_LIMIT)),
            action: Some(self.action.as_str().to_string()),
            reporting_controller: Some(REPORTING_CONTROLLER.to_string()),
            reporting_instance: Some(instance.to_string()),
            ..Event::default()
        }
    }
}

/// `text` cut to at most `limit` bytes, on a character boundary.
fn truncate(text: &str, limit: usize) -> String {
    let mut end = text.len().min(limit);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}
