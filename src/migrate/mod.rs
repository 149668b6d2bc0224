//! `crd-apiserver migrate`: rewrites every object of a resource at its storage version
//! through a live server, as kube's StorageVersionMigration controller does, so a version
//! no longer stored can be dropped from the definition.
//!
//! Which objects are still at an old version? A list answers in the version asked for,
//! not the stored one, and `/storedversions` gives counts, not names. So every object is
//! sent the migration request once: for an object already at the storage version the
//! server finds the re-encoded bytes equal to the stored ones and writes nothing (no new
//! resourceVersion, no watch event), so the cost of "all" over "the old ones" is one
//! request per current object, never a write. When `/storedversions` can be read (the
//! server directly, not through the aggregator, which proxies only `/apis/<group>/...`),
//! a resource with nothing stored at another version is skipped outright (unless
//! `--rewrite-all`: objects read with an encryption key writes no longer use are
//! rewritten too, kube's stale values), and the final counts are printed from it.
//!
//! A 409 (the object changed, or was deleted: the uid precondition) is answered by reading
//! the object again and retrying with its new uid and resourceVersion; a 404 there means it
//! is gone. Requests are paced by `--qps`; the position is checkpointed after each object.

pub mod api;
pub mod checkpoint;
pub mod progress;

use std::time::Duration;

use crate::config::migrate::MigrateFlags;
use api::{Item, Resource};
use checkpoint::{Checkpoint, File, Position, Tally};
use progress::Progress;

/// Tries per object before it counts as contended.
const ATTEMPTS: usize = 5;
/// How long the final counts may take to show the run's writes (the watch cache applies
/// them just after each write is answered).
const SETTLE: Duration = Duration::from_secs(5);

/// Why a run stopped early; `exit_code` as the server's (64 = bad input).
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("{0}")]
    Usage(String),
    #[error("connecting: {0}")]
    Client(String),
    #[error("{what}: {source}")]
    Api { what: String, source: kube::Error },
    #[error("{0}")]
    Checkpoint(String),
}

impl MigrateError {
    pub fn exit_code(&self) -> i32 {
        match self {
            MigrateError::Usage(_) => 64,
            _ => 1,
        }
    }
}

fn api_error(what: impl Into<String>) -> impl FnOnce(kube::Error) -> MigrateError {
    let what = what.into();
    move |source| MigrateError::Api { what, source }
}

/// Runs the migration the flags ask for.
pub async fn run(flags: MigrateFlags) -> Result<(), MigrateError> {
    let client = client(&flags).await?;
    let names = resource_names(&client, &flags).await?;
    let mut resources = Vec::new();
    for name in &names {
        let found = api::discover(&client, name)
            .await
            .map_err(api_error(format!("discovering {name}")))?;
        let found = found.ok_or_else(|| {
            MigrateError::Usage(format!("the server does not serve the resource {name:?}"))
        })?;
        resources.push(found);
    }
    let file = File::at(&flags.checkpoint_path());
    let mut checkpoint = file.load().map_err(MigrateError::Checkpoint)?;
    let mut run = Run {
        client: &client,
        flags: &flags,
        file: &file,
        progress: Progress::detect(),
        pace: Pace::new(flags.qps),
        left: (flags.limit > 0).then_some(flags.limit),
    };
    for resource in &resources {
        if !run.resource(resource, &mut checkpoint).await? {
            return Ok(());
        }
    }
    for resource in &resources {
        let entry = settled(&client, resource).await;
        run.progress.stored(&resource.name, entry.as_ref());
    }
    let finished = names
        .iter()
        .all(|n| checkpoint.resources.get(n).is_some_and(|p| p.done));
    if finished {
        file.remove().map_err(MigrateError::Checkpoint)?;
    }
    Ok(())
}

/// The client of `--kubeconfig`, else kube's inference (KUBECONFIG, ~/.kube/config,
/// in-cluster).
async fn client(flags: &MigrateFlags) -> Result<kube::Client, MigrateError> {
    crate::cluster::client::command_client(flags.kubeconfig.as_deref())
        .await
        .map_err(MigrateError::Client)
}

/// `--resource` names, or with `--all` every resource `/storedversions` lists.
async fn resource_names(
    client: &kube::Client,
    flags: &MigrateFlags,
) -> Result<Vec<String>, MigrateError> {
    if !flags.all {
        return Ok(flags.resources.clone());
    }
    let listed = api::stored_versions(client, None).await.ok_or_else(|| {
        MigrateError::Usage(
            "--all needs the server's /storedversions (connect to the server itself, not through the aggregator), or name each --resource".into(),
        )
    })?;
    let entries = listed["resources"].as_array().into_iter().flatten();
    Ok(entries
        .filter_map(|e| e["resource"].as_str().map(str::to_string))
        .collect())
}

/// The resource's `/storedversions` entry once nothing but the storage version is stored
/// (or after [`SETTLE`]); `None` when it cannot be read.
async fn settled(client: &kube::Client, resource: &Resource) -> Option<serde_json::Value> {
    let deadline = tokio::time::Instant::now() + SETTLE;
    loop {
        let entry = api::stored_versions(client, Some(&resource.name)).await?;
        if only_storage_version(&entry) || tokio::time::Instant::now() >= deadline {
            return Some(entry);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Whether a `/storedversions` entry has objects at no version but the storage version.
fn only_storage_version(entry: &serde_json::Value) -> bool {
    let storage = entry["storageVersion"].as_str().unwrap_or_default();
    let objects = entry["objects"].as_object().into_iter().flatten();
    objects
        .into_iter()
        .all(|(version, n)| version == storage || n == 0)
}

/// Paces requests at `--qps`.
struct Pace {
    every: Option<Duration>,
    next: tokio::time::Instant,
}

impl Pace {
    fn new(qps: f64) -> Pace {
        let every = (qps > 0.0).then(|| Duration::from_secs_f64(1.0 / qps));
        Pace {
            every,
            next: tokio::time::Instant::now(),
        }
    }

    async fn wait(&mut self) {
        let Some(every) = self.every else { return };
        tokio::time::sleep_until(self.next).await;
        self.next = self.next.max(tokio::time::Instant::now()) + every;
    }
}

/// What happened to one object.
enum Outcome {
    Rewritten,
    Current,
    Gone,
    Contended,
}

/// One run's state.
struct Run<'a> {
    client: &'a kube::Client,
    flags: &'a MigrateFlags,
    file: &'a File,
    progress: Progress,
    pace: Pace,
    /// Objects this run may still handle (`--limit`).
    left: Option<u64>,
}

impl Run<'_> {
    /// Migrates one resource from its checkpointed position; false when `--limit` stopped
    /// the run.
    async fn resource(
        &mut self,
        resource: &Resource,
        checkpoint: &mut Checkpoint,
    ) -> Result<bool, MigrateError> {
        let name = resource.name.clone();
        let mut position = checkpoint.resources.get(&name).cloned().unwrap_or_default();
        if position.done {
            self.progress.step("done", &name, &position.tally);
            return Ok(true);
        }
        let status = api::stored_versions(self.client, Some(&name)).await;
        if !self.flags.rewrite_all && status.as_ref().is_some_and(only_storage_version) {
            position.done = true;
            self.save(checkpoint, &name, &position)?;
            self.progress.step("done", &name, &position.tally);
            return Ok(true);
        }
        let total = status.as_ref().map(|s| {
            let objects = s["objects"].as_object().into_iter().flatten();
            objects.filter_map(|(_, n)| n.as_u64()).sum::<u64>()
        });
        self.progress.start(&name, total, &position.tally);
        while !position.done {
            let page = match resource
                .list(self.client, self.flags.page_size, position.page.as_deref())
                .await
            {
                Err(e) if api::code(&e) == 410 => {
                    // The continue token expired (compaction): start over; objects done
                    // before are current now, and cost no write.
                    position.restart();
                    continue;
                }
                other => other.map_err(api_error(format!("listing {name}")))?,
            };
            for item in page.items {
                if position.handled(&item.key()) {
                    continue;
                }
                if self.left == Some(0) {
                    self.progress.step("limit", &name, &position.tally);
                    return Ok(false);
                }
                let key = item.key();
                let outcome = self.object(resource, item).await?;
                count(&mut position.tally, outcome);
                position.after = Some(key);
                self.left = self.left.map(|n| n - 1);
                self.save(checkpoint, &name, &position)?;
                self.progress.object(&position.tally);
            }
            position.turn_page(page.next);
            self.save(checkpoint, &name, &position)?;
            let event = if position.done { "done" } else { "page" };
            self.progress.step(event, &name, &position.tally);
        }
        Ok(true)
    }

    /// One object's migration request, re-read and retried on conflicts.
    async fn object(
        &mut self,
        resource: &Resource,
        mut item: Item,
    ) -> Result<Outcome, MigrateError> {
        let what = format!("migrating {} {}", resource.name, item.key());
        for _ in 0..ATTEMPTS {
            self.pace.wait().await;
            let err = match resource.migrate(self.client, &item).await {
                Ok(rv) if rv == item.resource_version => return Ok(Outcome::Current),
                Ok(_) => return Ok(Outcome::Rewritten),
                Err(e) if api::code(&e) == 404 => return Ok(Outcome::Gone),
                Err(e) => e,
            };
            if api::code(&err) != 409 {
                return Err(api_error(what)(err));
            }
            self.pace.wait().await;
            let fresh = resource.get(self.client, &item).await;
            match fresh.map_err(api_error(what.clone()))? {
                Some(fresh) => item = fresh,
                None => return Ok(Outcome::Gone),
            }
        }
        Ok(Outcome::Contended)
    }

    fn save(
        &self,
        checkpoint: &mut Checkpoint,
        name: &str,
        position: &Position,
    ) -> Result<(), MigrateError> {
        checkpoint
            .resources
            .insert(name.to_string(), position.clone());
        self.file.save(checkpoint).map_err(MigrateError::Checkpoint)
    }
}

fn count(tally: &mut Tally, outcome: Outcome) {
    match outcome {
        Outcome::Rewritten => tally.rewritten += 1,
        Outcome::Current => tally.current += 1,
        Outcome::Gone => tally.gone += 1,
        Outcome::Contended => tally.contended += 1,
    }
}
