//! The driver's test doubles: an in-memory host (CRDs, records, events; a record write
//! can "crash": never return) and steps that record their calls, fail on script, or
//! "crash" after a step; helpers to drive a driver until idle or until it crashes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionSpec,
    CustomResourceDefinitionVersion,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::super::*;
use crate::offload::Copied;
use crate::offload::record::ANNOTATION;

pub const GROUP: &str = "stable.example.com";

#[derive(Default)]
pub struct MemHost {
    pub crds: Mutex<BTreeMap<String, CustomResourceDefinition>>,
    pub events: Mutex<Vec<Notice>>,
    /// Record writes left before one never returns (a crash mid-records).
    pub crash_at_write: Mutex<Option<usize>>,
    pub version: Mutex<u64>,
}

impl MemHost {
    pub fn put(&self, crd: CustomResourceDefinition) {
        let name = crd.metadata.name.clone().unwrap();
        self.crds.lock().unwrap().insert(name, crd);
    }

    pub fn unit(&self) -> Vec<CustomResourceDefinition> {
        self.crds.lock().unwrap().values().cloned().collect()
    }

    pub fn edit(&self, name: &str, f: impl FnOnce(&mut CustomResourceDefinition)) {
        f(self.crds.lock().unwrap().get_mut(name).unwrap());
    }

    pub fn records(&self) -> Vec<Option<Record>> {
        self.unit()
            .iter()
            .map(|c| Record::read(c.metadata.annotations.as_ref()))
            .collect()
    }

    pub fn phases(&self) -> Vec<Option<(Direction, Phase)>> {
        self.records()
            .into_iter()
            .map(|r| r.map(|r| (r.direction, r.phase)))
            .collect()
    }

    pub fn reasons(&self, crd: &str) -> Vec<String> {
        let events = self.events.lock().unwrap();
        events
            .iter()
            .filter(|n| n.regarding.name.as_deref() == Some(crd))
            .map(|n| n.reason.clone())
            .collect()
    }
}

#[async_trait::async_trait]
impl Host for MemHost {
    async fn write_record(
        &self,
        crd: &CustomResourceDefinition,
        record: Option<&Record>,
    ) -> Result<CustomResourceDefinition, String> {
        let crash = {
            let mut left = self.crash_at_write.lock().unwrap();
            match left.as_mut() {
                Some(0) => {
                    *left = None;
                    true
                }
                Some(n) => {
                    *n -= 1;
                    false
                }
                None => false,
            }
        };
        if crash {
            std::future::pending::<()>().await;
        }
        let name = crd.metadata.name.clone().unwrap();
        let mut crds = self.crds.lock().unwrap();
        let stored = crds.get_mut(&name).ok_or("gone")?;
        let annotations = stored.metadata.annotations.get_or_insert_default();
        match record {
            Some(r) => {
                annotations.insert(ANNOTATION.to_string(), serde_json::to_string(r).unwrap());
            }
            None => {
                annotations.remove(ANNOTATION);
                annotations.remove(UNDO_ANNOTATION);
            }
        }
        let mut version = self.version.lock().unwrap();
        *version += 1;
        stored.metadata.resource_version = Some(version.to_string());
        Ok(stored.clone())
    }

    async fn emit(&self, notice: Notice) {
        self.events.lock().unwrap().push(notice);
    }
}

#[derive(Default)]
pub struct MemSteps {
    pub calls: Mutex<Vec<&'static str>>,
    /// The step after which the process "crashes" once (the call never returns).
    pub crash_after: Mutex<Option<&'static str>>,
    /// Scripted failures per step, used up in order.
    pub failures: Mutex<BTreeMap<&'static str, VecDeque<StepError>>>,
    /// `available` answers false this many times first.
    pub unavailable: Mutex<usize>,
    /// What `count_here` answers.
    pub here: Mutex<usize>,
}

impl MemSteps {
    pub async fn call(&self, name: &'static str) -> Result<(), StepError> {
        if let Some(e) = self
            .failures
            .lock()
            .unwrap()
            .get_mut(name)
            .and_then(|q| q.pop_front())
        {
            self.calls.lock().unwrap().push(name);
            return Err(e);
        }
        self.calls.lock().unwrap().push(name);
        let crash = {
            let mut at = self.crash_after.lock().unwrap();
            if *at == Some(name) {
                *at = None;
                true
            } else {
                false
            }
        };
        if crash {
            std::future::pending::<()>().await;
        }
        Ok(())
    }

    pub fn count(&self, name: &str) -> usize {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .filter(|c| **c == name)
            .count()
    }

    pub fn fail(&self, name: &'static str, errors: Vec<StepError>) {
        self.failures.lock().unwrap().insert(name, errors.into());
    }
}

#[async_trait::async_trait]
impl Steps for MemSteps {
    async fn fence(&self, _: &Unit) -> Result<(), StepError> {
        self.call("fence").await
    }
    async fn lift_fence(&self, _: &Unit) -> Result<(), StepError> {
        self.call("lift_fence").await
    }
    async fn copy(&self, _: &Unit) -> Result<Copied, StepError> {
        self.call("copy").await?;
        Ok(Copied {
            listed: 7,
            written: 7,
            ..Copied::default()
        })
    }
    async fn serve(&self, _: &Unit) -> Result<(), StepError> {
        self.call("serve").await
    }
    async fn stop_serving(&self, _: &Unit) -> Result<(), StepError> {
        self.call("stop_serving").await
    }
    async fn switch(&self, _: &Unit) -> Result<(), StepError> {
        self.call("switch").await
    }
    async fn available(&self, _: &Unit) -> Result<bool, StepError> {
        self.call("available").await?;
        let mut left = self.unavailable.lock().unwrap();
        if *left > 0 {
            *left -= 1;
            return Ok(false);
        }
        Ok(true)
    }
    async fn switch_back(&self, _: &Unit) -> Result<(), StepError> {
        self.call("switch_back").await
    }
    async fn sync_back(&self, _: &Unit) -> Result<Copied, StepError> {
        self.call("sync_back").await?;
        Ok(Copied {
            listed: 5,
            written: 5,
            ..Copied::default()
        })
    }
    async fn count_here(&self, _: &Unit) -> Result<usize, StepError> {
        Ok(*self.here.lock().unwrap())
    }
}

pub fn crd(plural: &str) -> CustomResourceDefinition {
    CustomResourceDefinition {
        metadata: ObjectMeta {
            name: Some(format!("{plural}.{GROUP}")),
            uid: Some(format!("uid-{plural}")),
            generation: Some(1),
            resource_version: Some("1".to_string()),
            labels: Some(BTreeMap::from([(
                "crd-apiserver.io/offload".to_string(),
                "true".to_string(),
            )])),
            ..ObjectMeta::default()
        },
        spec: CustomResourceDefinitionSpec {
            group: GROUP.to_string(),
            names: CustomResourceDefinitionNames {
                plural: plural.to_string(),
                kind: plural.to_string(),
                ..Default::default()
            },
            scope: "Namespaced".to_string(),
            versions: vec![CustomResourceDefinitionVersion {
                name: "v1".to_string(),
                served: true,
                storage: true,
                ..Default::default()
            }],
            ..Default::default()
        },
        status: None,
    }
}

pub fn host() -> Arc<MemHost> {
    let host = Arc::new(MemHost::default());
    host.put(crd("crontabs"));
    host.put(crd("widgets"));
    host
}

pub fn driver(host: &Arc<MemHost>, steps: &Arc<MemSteps>) -> Driver {
    let selector = LabelSelector::parse("crd-apiserver.io/offload=true").unwrap();
    Driver::new(
        GROUP.to_string(),
        steps.clone(),
        host.clone(),
        OffloadMetrics::default(),
        selector,
    )
}

/// Advances until idle; the outcomes seen.
pub async fn settle(driver: &mut Driver, host: &MemHost, leader: bool) -> Vec<Outcome> {
    let mut seen = Vec::new();
    for _ in 0..60 {
        let outcome = driver.advance(&host.unit(), leader).await;
        if outcome == Outcome::Idle {
            return seen;
        }
        seen.push(outcome);
    }
    panic!("did not settle: {seen:?}");
}

/// Runs `d` until it "crashes" (its future never ends); the caller then drops it.
pub async fn crash(d: &mut Driver, host: &Arc<MemHost>) {
    let run = tokio::time::timeout(Duration::from_secs(60), settle(d, host, true));
    assert!(run.await.is_err(), "the driver should have crashed");
}

pub const TAKE_OVER: [&str; 6] = [
    "fence",
    "serve",
    "copy",
    "switch",
    "available",
    "lift_fence",
];
pub const OFFLOADED: Option<(Direction, Phase)> = Some((Direction::TakeOver, Phase::Offloaded));

pub fn counts(steps: &MemSteps, names: &[&'static str]) -> Vec<(&'static str, usize)> {
    names.iter().map(|n| (*n, steps.count(n))).collect()
}
