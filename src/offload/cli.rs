//! `crd-apiserver offload status` (one row per host CRD with a record) and
//! `crd-apiserver offload --undo NAME` (asks for the CRD's group to be given back: the
//! undo annotation, which the leading replica's controller acts on).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ListParams, Patch, PatchParams};
use serde_json::json;

use super::record::Record;
use super::{FIELD_MANAGER, UNDO_ANNOTATION};
use crate::config::offload::{OffloadAction, OffloadCommand};

/// Why the command failed (printed after `crd-apiserver offload: `, exit 1).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Client(String),
    #[error("{0}")]
    Api(#[from] kube::Error),
    #[error(
        "customresourcedefinition {0:?} has no offload record: it was never taken over by crd-apiserver"
    )]
    NoRecord(String),
}

impl CliError {
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) => 64,
            _ => 1,
        }
    }
}

/// Runs the command; what it prints on success.
pub async fn run(command: OffloadCommand) -> Result<String, CliError> {
    let client = crate::cluster::client::command_client(command.kubeconfig.as_deref())
        .await
        .map_err(CliError::Client)?;
    let crds: Api<CustomResourceDefinition> = Api::all(client);
    match (command.action, command.undo) {
        (Some(OffloadAction::Status), None) => {
            let listed = crds.list(&ListParams::default()).await?;
            Ok(status_table(&listed.items))
        }
        (None, Some(name)) => undo(&crds, &name).await,
        _ => Err(CliError::Usage(
            "usage: crd-apiserver offload status | crd-apiserver offload --undo NAME".to_string(),
        )),
    }
}

async fn undo(crds: &Api<CustomResourceDefinition>, name: &str) -> Result<String, CliError> {
    let crd = crds.get(name).await?;
    if Record::read(crd.metadata.annotations.as_ref()).is_none() {
        return Err(CliError::NoRecord(name.to_string()));
    }
    let patch = json!({"metadata": {"annotations": {UNDO_ANNOTATION: "true"}}});
    let params = PatchParams {
        field_manager: Some(FIELD_MANAGER.to_string()),
        ..PatchParams::default()
    };
    crds.patch(name, &params, &Patch::Merge(&patch)).await?;
    Ok(format!(
        "customresourcedefinition.apiextensions.k8s.io/{name}: give-back of API group {:?} requested\n",
        crd.spec.group
    ))
}

const HEADERS: [&str; 7] = [
    "NAME",
    "GROUP",
    "DIRECTION",
    "PHASE",
    "SINCE",
    "OBJECTS",
    "MESSAGE",
];

/// kubectl's table: one row per CRD with a record, sorted by name, columns padded and
/// three spaces apart; `No resources found.` when none has one.
pub fn status_table(crds: &[CustomResourceDefinition]) -> String {
    let mut rows: Vec<[String; 7]> = crds
        .iter()
        .filter_map(|crd| {
            let record = Record::read(crd.metadata.annotations.as_ref())?;
            Some([
                crd.metadata.name.clone().unwrap_or_default(),
                crd.spec.group.clone(),
                record.direction.as_str().to_string(),
                record.phase.as_str().to_string(),
                record.since,
                record.objects.to_string(),
                record.message,
            ])
        })
        .collect();
    if rows.is_empty() {
        return "No resources found.\n".to_string();
    }
    rows.sort();
    let mut widths = HEADERS.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        format!("{}\n", padded.join("   ").trim_end())
    };
    let mut out = line(HEADERS.to_vec());
    for row in &rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

    use std::collections::BTreeMap;

    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;
    use crate::offload::record::ANNOTATION;

    fn crd(name: &str, group: &str, record: Option<&str>) -> CustomResourceDefinition {
        let mut crd = CustomResourceDefinition {
            metadata: ObjectMeta {
                name: Some(name.to_string()),
                annotations: record
                    .map(|r| BTreeMap::from([(ANNOTATION.to_string(), r.to_string())])),
                ..ObjectMeta::default()
            },
            ..CustomResourceDefinition::default()
        };
        crd.spec.group = group.to_string();
        crd
    }

    #[test]
    fn status_table_rows_for_recorded_crds_only() {
        let offloaded = r#"{"direction":"TakeOver","phase":"Offloaded","since":"2026-12-07T17:00:00Z","objects":12}"#;
        let failed = r#"{"direction":"TakeOver","phase":"Failed","since":"2026-12-07T17:01:00Z","message":"uid clash"}"#;
        let cases: Vec<(Vec<CustomResourceDefinition>, &str)> = vec![
            (
                vec![crd("plain.example.com", "example.com", None)],
                "No resources found.\n",
            ),
            (
                vec![
                    crd("widgets.b.example.com", "b.example.com", Some(failed)),
                    crd("plain.example.com", "example.com", None),
                    crd("crontabs.a.example.com", "a.example.com", Some(offloaded)),
                ],
                "NAME                     GROUP           DIRECTION   PHASE       SINCE                  OBJECTS   MESSAGE\n\
                 crontabs.a.example.com   a.example.com   TakeOver    Offloaded   2026-12-07T17:00:00Z   12\n\
                 widgets.b.example.com    b.example.com   TakeOver    Failed      2026-12-07T17:01:00Z   0         uid clash\n",
            ),
        ];
        for (crds, expected) in cases {
            assert_eq!(status_table(&crds), expected);
        }
    }
}
