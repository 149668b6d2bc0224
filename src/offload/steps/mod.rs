//! The real [`Steps`](super::Steps): each phase's side effects against the host cluster
//! (through the one kube client) and our own store and catalog, each idempotent, one
//! file per family:
//! - [`fence`]: the ValidatingAdmissionPolicy + binding put in place and taken away;
//!   [`probe`]: whether it is in effect (at the host; here too when we serve the group).
//! - [`copy`]: the host's objects restored here, pass after pass until nothing changes.
//! - [`switch`]: the unit's APIServices pointed at us and back, and their availability.
//! - [`sync_back`]: give-back's writes of our objects to the host.
//! - [`host`] and [`here`]: the raw requests to the host and the reads and restores here.

pub mod copy;
pub mod fence;
pub mod here;
pub mod host;
pub mod probe;
pub mod switch;
pub mod sync_back;

use std::sync::Arc;

use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use kube::api::{Api, PostParams};

use super::{Copied, StepError, Steps, Unit};
use crate::handlers::AppState;
use crate::register::desired::Desired;
use host::HostResource;

/// The steps as this server does them.
pub struct Mover {
    client: kube::Client,
    /// Our username at the host (the fence exempts our own writes).
    username: String,
    /// Our serving state: its store (restores, reads), admission (the fence here) and
    /// live definitions (serve, stop serving).
    state: Arc<AppState>,
    desired: Desired,
}

impl Mover {
    /// Asks the host who we are (a SelfSubjectReview, `authentication.k8s.io/v1`).
    pub async fn new(
        client: kube::Client,
        state: Arc<AppState>,
        desired: Desired,
    ) -> Result<Mover, StepError> {
        let username = whoami(&client).await?;
        Ok(Mover {
            client,
            username,
            state,
            desired,
        })
    }

    /// Our username at the host.
    pub fn username(&self) -> &str {
        &self.username
    }

    fn names(unit: &Unit) -> Vec<String> {
        unit.crds
            .iter()
            .filter_map(|crd| crd.metadata.name.clone())
            .collect()
    }

    /// The unit's resources in the catalog we serve now (none before `serve`).
    fn served(&self, unit: &Unit) -> Vec<Arc<crate::crd::catalog::ServedResource>> {
        let names = Mover::names(unit);
        let catalog = self.state.catalog();
        catalog
            .resources()
            .iter()
            .filter(|r| names.contains(&r.crd_name))
            .cloned()
            .collect()
    }
}

/// Our username at the host, from a SelfSubjectReview.
pub async fn whoami(client: &kube::Client) -> Result<String, StepError> {
    let api: Api<SelfSubjectReview> = Api::all(client.clone());
    let review = api
        .create(&PostParams::default(), &SelfSubjectReview::default())
        .await
        .map_err(|e| host::transient("SelfSubjectReview at the host", e))?;
    review
        .status
        .and_then(|s| s.user_info)
        .and_then(|u| u.username)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| StepError::Transient("SelfSubjectReview: no username".to_string()))
}

/// Runs a change of the live definitions (compiled synchronously, schemas and CEL,
/// under a lock) off the runtime's workers; a refused definition refuses the move.
async fn blocking<E: std::fmt::Display + Send + 'static>(
    change: impl FnOnce() -> Result<(), E> + Send + 'static,
) -> Result<(), StepError> {
    match tokio::task::spawn_blocking(change).await {
        Ok(result) => result.map_err(|e| StepError::Refused(e.to_string())),
        Err(e) => Err(StepError::Transient(format!(
            "changing the served definitions: {e}"
        ))),
    }
}

#[async_trait::async_trait]
impl Steps for Mover {
    async fn fence(&self, unit: &Unit) -> Result<(), StepError> {
        let resources = HostResource::all(&unit.crds)?;
        fence::put(&self.client, &unit.group, &self.username).await?;
        let denial = fence::denial(&unit.group);
        probe::at_host(&self.client, &resources, &denial).await?;
        let served = self.served(unit);
        if !served.is_empty() {
            probe::here(&self.state, &served, &denial).await?;
        }
        Ok(())
    }

    async fn lift_fence(&self, unit: &Unit) -> Result<(), StepError> {
        fence::lift(&self.client, &unit.group).await
    }

    async fn copy(&self, unit: &Unit) -> Result<Copied, StepError> {
        copy::copy(&self.client, &self.state, unit).await
    }

    async fn serve(&self, unit: &Unit) -> Result<(), StepError> {
        let (state, crds) = (self.state.clone(), unit.crds.clone());
        blocking(move || state.definitions.serve(&crds)).await
    }

    async fn stop_serving(&self, unit: &Unit) -> Result<(), StepError> {
        let (state, names) = (self.state.clone(), Mover::names(unit));
        blocking(move || state.definitions.stop_serving(&names)).await
    }

    async fn switch(&self, unit: &Unit) -> Result<(), StepError> {
        let names = unit.apiservice_names();
        switch::to_us(&self.client, &self.desired, &unit.group, &names).await
    }

    async fn available(&self, unit: &Unit) -> Result<bool, StepError> {
        let names = unit.apiservice_names();
        switch::all_available(&self.client, &self.desired, &unit.group, &names).await
    }

    async fn switch_back(&self, unit: &Unit) -> Result<(), StepError> {
        let names = unit.apiservice_names();
        switch::to_host(&self.client, &self.desired, &names).await
    }

    async fn sync_back(&self, unit: &Unit) -> Result<Copied, StepError> {
        sync_back::sync_back(&self.client, &self.state, unit).await
    }

    async fn count_here(&self, unit: &Unit) -> Result<usize, StepError> {
        let mut count = 0;
        for resource in HostResource::all(&unit.crds)? {
            count += here::list(&self.state, &resource.group, &resource.plural)
                .await?
                .len();
        }
        Ok(count)
    }
}
