//! One unit's move, one decision at a time: reads the unit's host CRDs into the machine's
//! view, does the step [`machine::decide`] names through [`Steps`], then writes the record
//! CRD by CRD, emits the events and moves the metrics. A refused take-over step rolls back.
//! Also follows the unit's CRDs deleted at the host while we serve them.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use super::events::Notice;
use super::host::Host;
use super::machine::{self, CrdState, Decision, Step, Then};
use super::metrics::OffloadMetrics;
use super::record::{Direction, Phase, Record};
use super::{StepError, Steps, UNDO_ANNOTATION, Unit};
use crate::selector::label::LabelSelector;

/// How one call of [`Driver::advance`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A step was done and recorded: call again at once.
    Progressed,
    /// Nothing to do until the CRDs change.
    Idle,
    /// Not yet (the APIServices are not Available): call again shortly.
    NotYet,
    /// A transient failure: call again after a back-off.
    Retry(String),
}

/// The move of one unit (an API group), as one task drives it.
pub struct Driver {
    pub group: String,
    steps: Arc<dyn Steps>,
    host: Arc<dyn Host>,
    metrics: OffloadMetrics,
    selector: LabelSelector,
    /// The definitions this process serves, by name, as served.
    served: BTreeMap<String, CustomResourceDefinition>,
    /// The last refusal emitted, so it is said once per change.
    refusal: Option<String>,
    /// The last warning about deleted definitions kept, likewise.
    kept: Option<String>,
    /// Rolling back after a refused step: a step of the roll back refused in turn is
    /// retried later, never rolled back again (no recursion, no hot loop).
    rolling_back: bool,
}

fn key(crd: &CustomResourceDefinition) -> (Option<&String>, Option<i64>) {
    (crd.metadata.uid.as_ref(), crd.metadata.generation)
}

impl Driver {
    pub fn new(
        group: String,
        steps: Arc<dyn Steps>,
        host: Arc<dyn Host>,
        metrics: OffloadMetrics,
        selector: LabelSelector,
    ) -> Driver {
        Driver {
            group,
            steps,
            host,
            metrics,
            selector,
            served: BTreeMap::new(),
            refusal: None,
            rolling_back: false,
            kept: None,
        }
    }

    /// Whether definitions deleted at the host are still served (kept for their objects).
    pub fn keeps_deleted(&self, crds: &[CustomResourceDefinition]) -> bool {
        self.served
            .keys()
            .any(|name| !crds.iter().any(|c| c.metadata.name.as_ref() == Some(name)))
    }

    fn view(&self, crds: &[CustomResourceDefinition]) -> Vec<CrdState> {
        crds.iter()
            .map(|crd| {
                let meta = &crd.metadata;
                let name = meta.name.clone().unwrap_or_default();
                let empty = BTreeMap::new();
                let labels = meta.labels.as_ref().unwrap_or(&empty);
                CrdState {
                    served: self.served.get(&name).is_some_and(|s| key(s) == key(crd)),
                    name,
                    generation: meta.generation.unwrap_or(0),
                    selected: self.selector.matches_btree(labels),
                    undo: meta
                        .annotations
                        .as_ref()
                        .and_then(|a| a.get(UNDO_ANNOTATION))
                        .is_some_and(|v| v == "true"),
                    record: Record::read(meta.annotations.as_ref()),
                }
            })
            .collect()
    }

    /// One decision for the unit whose host CRDs are `crds` (sorted by name). A replica
    /// that does not lead only serves what the records say is served.
    pub async fn advance(&mut self, crds: &[CustomResourceDefinition], leader: bool) -> Outcome {
        if let Some(outcome) = self.follow_deleted(crds).await {
            return outcome;
        }
        if crds.is_empty() {
            return Outcome::Idle;
        }
        let view = self.view(crds);
        if !leader {
            return self.follow(crds, &view).await;
        }
        match machine::decide(&view) {
            Decision::Idle => {
                self.refusal = None;
                Outcome::Idle
            }
            Decision::Refuse(message) => {
                self.refuse(crds, message).await;
                Outcome::Idle
            }
            Decision::Act { steps, then } => {
                self.refusal = None;
                self.act(crds, &view, steps, then).await
            }
        }
    }

    async fn refuse(&mut self, crds: &[CustomResourceDefinition], message: String) {
        if self.refusal.as_ref() == Some(&message) {
            return;
        }
        tracing::warn!(group = %self.group, "offload refused: {message}");
        for crd in crds {
            let notice = Notice::refused(crd, Direction::TakeOver, message.clone());
            self.host.emit(notice).await;
        }
        self.refusal = Some(message);
    }

    async fn act(
        &mut self,
        crds: &[CustomResourceDefinition],
        view: &[CrdState],
        steps: Vec<Step>,
        then: Then,
    ) -> Outcome {
        let unit = Unit {
            group: self.group.clone(),
            crds: crds.to_vec(),
        };
        let mut objects = view
            .iter()
            .filter_map(|c| c.record.as_ref().map(|r| r.objects))
            .max()
            .unwrap_or(0);
        for step in steps {
            match self.run(&unit, step).await {
                Ok(Some(n)) => objects = n,
                Ok(None) => {}
                // "Not yet Available" is a wait, not a failure.
                Err(StepError::Transient(message)) if message.is_empty() => {
                    return Outcome::NotYet;
                }
                Err(StepError::Transient(message)) => {
                    self.metrics.failure(&self.group);
                    return Outcome::Retry(message);
                }
                Err(StepError::Refused(message)) if self.rolling_back => {
                    self.metrics.failure(&self.group);
                    return Outcome::Retry(message);
                }
                Err(StepError::Refused(message)) => {
                    self.metrics.failure(&self.group);
                    return self.refused(crds, view, message).await;
                }
            }
        }
        match self.record(crds, &then, objects).await {
            Ok(()) => Outcome::Progressed,
            Err(e) => Outcome::Retry(e),
        }
    }

    /// A refused step: roll back, or say so and stay.
    async fn refused(
        &mut self,
        crds: &[CustomResourceDefinition],
        view: &[CrdState],
        message: String,
    ) -> Outcome {
        tracing::warn!(group = %self.group, "offload step refused: {message}");
        match machine::refused(view, message) {
            Decision::Act { steps, then } => {
                self.rolling_back = true;
                let outcome = Box::pin(self.act(crds, view, steps, then)).await;
                self.rolling_back = false;
                outcome
            }
            Decision::Refuse(message) => {
                self.refuse(crds, message).await;
                Outcome::Idle
            }
            Decision::Idle => Outcome::Idle,
        }
    }

    /// Does `step`; the objects it moved, for a copy or a sync. An empty transient
    /// message means "not yet".
    async fn run(&mut self, unit: &Unit, step: Step) -> Result<Option<usize>, StepError> {
        tracing::info!(group = %self.group, ?step, "offload step");
        let steps = self.steps.clone();
        match step {
            Step::Fence => steps.fence(unit).await,
            Step::LiftFence => steps.lift_fence(unit).await,
            Step::Switch => steps.switch(unit).await,
            Step::SwitchBack => steps.switch_back(unit).await,
            Step::Serve => {
                steps.serve(unit).await?;
                for crd in &unit.crds {
                    let name = crd.metadata.name.clone().unwrap_or_default();
                    self.served.insert(name, crd.clone());
                }
                Ok(())
            }
            Step::StopServing => {
                steps.stop_serving(unit).await?;
                for crd in &unit.crds {
                    self.served
                        .remove(crd.metadata.name.as_deref().unwrap_or_default());
                }
                Ok(())
            }
            Step::AwaitAvailable => match steps.available(unit).await? {
                true => Ok(()),
                false => Err(StepError::Transient(String::new())),
            },
            Step::Copy => {
                let copied = steps.copy(unit).await?;
                self.metrics.copied(&self.group, copied.written);
                return Ok(Some(copied.listed));
            }
            Step::SyncBack => return Ok(Some(steps.sync_back(unit).await?.written)),
        }?;
        Ok(None)
    }

    /// Writes what `then` says on every CRD, one by one, with an event each.
    async fn record(
        &mut self,
        crds: &[CustomResourceDefinition],
        then: &Then,
        objects: usize,
    ) -> Result<(), String> {
        let since = jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        let (direction, phase, message, pin) = match then {
            Then::Nothing => return Ok(()),
            Then::Clear => {
                for crd in crds {
                    self.host.write_record(crd, None).await?;
                }
                return Ok(());
            }
            Then::Phase(direction, phase) => (*direction, *phase, String::new(), false),
            Then::Failed { message, pin } => {
                (Direction::TakeOver, Phase::Failed, message.clone(), *pin)
            }
        };
        for crd in crds {
            let record = Record {
                direction,
                phase,
                since: since.clone(),
                objects,
                message: message.clone(),
                generation: pin.then_some(crd.metadata.generation.unwrap_or(0)),
            };
            let written = self.host.write_record(crd, Some(&record)).await?;
            let note = note(&self.group, direction, phase, objects, &message);
            self.host
                .emit(Notice::reached(&written, direction, phase, note))
                .await;
        }
        self.metrics.reached(&self.group, phase);
        Ok(())
    }

    /// Not leading: serve the unit when its records say it is served, else stop.
    async fn follow(&mut self, crds: &[CustomResourceDefinition], view: &[CrdState]) -> Outcome {
        let unit = Unit {
            group: self.group.clone(),
            crds: crds.to_vec(),
        };
        let step = match (machine::serves(view), view.iter().all(|c| c.served)) {
            (true, false) => Step::Serve,
            (false, _) if view.iter().any(|c| self.served.contains_key(&c.name)) => {
                Step::StopServing
            }
            _ => return Outcome::Idle,
        };
        match self.run(&unit, step).await {
            Ok(_) => Outcome::Progressed,
            Err(e) => Outcome::Retry(e.to_string()),
        }
    }

    /// Definitions we serve that the host deleted: kept while objects remain here (with a
    /// Warning), else no longer served.
    async fn follow_deleted(&mut self, crds: &[CustomResourceDefinition]) -> Option<Outcome> {
        let gone: Vec<CustomResourceDefinition> = self
            .served
            .iter()
            .filter(|(name, _)| !crds.iter().any(|c| c.metadata.name.as_ref() == Some(*name)))
            .map(|(_, crd)| crd.clone())
            .collect();
        for crd in gone {
            let name = crd.metadata.name.clone().unwrap_or_default();
            let unit = Unit {
                group: self.group.clone(),
                crds: vec![crd.clone()],
            };
            match self.steps.count_here(&unit).await {
                Ok(0) => {
                    if let Err(e) = self.steps.stop_serving(&unit).await {
                        return Some(Outcome::Retry(e.to_string()));
                    }
                    self.served.remove(&name);
                }
                Ok(n) => {
                    let message = format!(
                        "{n} objects would be lost: {name} was deleted at the host while offloaded; crd-apiserver keeps serving its last definition until they are deleted here"
                    );
                    if self.kept.as_ref() != Some(&message) {
                        tracing::warn!(group = %self.group, "{message}");
                        let notice = Notice::refused(&crd, Direction::GiveBack, message.clone());
                        self.host.emit(notice).await;
                        self.kept = Some(message);
                    }
                }
                Err(e) => return Some(Outcome::Retry(e.to_string())),
            }
        }
        None
    }
}

/// An event's note for `phase` reached.
fn note(group: &str, direction: Direction, phase: Phase, objects: usize, message: &str) -> String {
    match (direction, phase) {
        (_, Phase::Failed) => {
            format!("take-over of API group {group:?} failed and was rolled back: {message}")
        }
        (Direction::TakeOver, Phase::Copied) => {
            format!("API group {group:?}: {objects} objects copied from the host")
        }
        (Direction::GiveBack, Phase::Synced) => {
            format!("API group {group:?}: {objects} objects written back to the host")
        }
        (Direction::TakeOver, Phase::Offloaded) => {
            format!("API group {group:?} is served by crd-apiserver")
        }
        (Direction::GiveBack, Phase::Returned) => {
            format!("API group {group:?} is served by the host again")
        }
        (direction, phase) => format!(
            "API group {group:?}: {} reached {}",
            direction.as_str(),
            phase.as_str()
        ),
    }
}

#[cfg(test)]
#[path = "driver_tests.rs"]
mod tests;
