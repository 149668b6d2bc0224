//! The audit Policy (`audit.k8s.io/v1`, `--audit-policy-file`): read and checked at
//! start-up with kube's texts, then evaluated per request (the first matching rule wins).

mod file;
mod rule;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_load;
mod validate;

use std::path::Path;

use super::{Level, Stage};
use crate::error::aggregate;
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;
use file::{RawPolicy, RawRule};
use rule::{GroupResources, Names, Rule, UrlPattern};

/// What the policy decided for one request (kube's `RequestAuditConfig`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestAuditConfig {
    pub level: Level,
    /// The policy's omitStages and the matching rule's, together.
    pub omit_stages: Vec<Stage>,
    /// The rule's `omitManagedFields`, else the policy's.
    pub omit_managed_fields: bool,
}

/// A checked, compiled policy. The default policy has no rules: every request is `None`.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    rules: Vec<Rule>,
    omit_stages: Vec<Stage>,
    omit_managed_fields: bool,
}

impl Policy {
    /// Reads and checks `--audit-policy-file`. The error is the whole text kube's server
    /// fails with (`loading audit policy file: …: from file <path>`); apiextensions-apiserver
    /// logs it as `"command failed" err="<text>"` and exits 1.
    pub fn load(path: impl AsRef<Path>) -> Result<Policy, String> {
        let path = path.as_ref();
        let shown = path.display();
        let bytes = std::fs::read(path).map_err(|e| {
            format!(
                "loading audit policy file: failed to read file path {}: {}",
                crate::gofmt::quote(&shown.to_string()),
                go_read_error(path, &e)
            )
        })?;
        Policy::from_bytes(&bytes)
            .map_err(|e| format!("loading audit policy file: {e}: from file {shown}"))
    }

    /// kube's `LoadPolicyFromBytes`: decoded (unknown fields skipped with a warning),
    /// validated, at least one rule.
    pub fn from_bytes(bytes: &[u8]) -> Result<Policy, String> {
        let decoded = file::decode(bytes)?;
        if !decoded.strict_errors.is_empty() {
            tracing::warn!(
                "Audit policy contains errors, falling back to lenient decoding: strict decoding error: {}",
                decoded.strict_errors.join(", ")
            );
        }
        let errors = validate::validate(&decoded.policy);
        if !errors.is_empty() {
            return Err(aggregate(&errors));
        }
        if decoded.policy.rules.is_empty() {
            return Err("loaded illegal policy with 0 rules".into());
        }
        Ok(compile(&decoded.policy))
    }

    /// The level, stages and managed-fields choice for a request by `user` (kube's
    /// `EvaluatePolicyRule`): the first matching rule's, else `None` with the policy's.
    pub fn evaluate(&self, user: &UserInfo, info: &RequestInfo) -> RequestAuditConfig {
        match self.rules.iter().find(|r| r.matches(user, info)) {
            Some(rule) => RequestAuditConfig {
                level: rule.level,
                omit_stages: rule.omit_stages.clone(),
                omit_managed_fields: rule.omit_managed_fields.unwrap_or(self.omit_managed_fields),
            },
            None => RequestAuditConfig {
                level: Level::None,
                omit_stages: self.omit_stages.clone(),
                omit_managed_fields: self.omit_managed_fields,
            },
        }
    }
}

/// Go's `os.ReadFile` error text for the common failures (`open /x: no such file or
/// directory`).
fn go_read_error(path: &Path, e: &std::io::Error) -> String {
    let shown = path.display();
    match e.raw_os_error() {
        Some(2) => format!("open {shown}: no such file or directory"),
        Some(13) => format!("open {shown}: permission denied"),
        Some(20) => format!("open {shown}: not a directory"),
        Some(21) => format!("read {shown}: is a directory"),
        _ => format!("open {shown}: {e}"),
    }
}

/// The validated policy into its matching form; each rule carries the union of the
/// policy's and its own omitStages (policy's first, no repeats).
fn compile(raw: &RawPolicy) -> Policy {
    let omit_stages = stages(&raw.omit_stages, &[]);
    Policy {
        rules: raw
            .rules
            .iter()
            .map(|r| compile_rule(r, &omit_stages))
            .collect(),
        omit_stages,
        omit_managed_fields: raw.omit_managed_fields,
    }
}

fn compile_rule(raw: &RawRule, policy_stages: &[Stage]) -> Rule {
    Rule {
        level: level(&raw.level),
        users: Names::new(&raw.users),
        user_groups: Names::new(&raw.user_groups),
        verbs: Names::new(&raw.verbs),
        resources: raw
            .resources
            .iter()
            .map(|gr| GroupResources {
                group: (gr.group != "*").then(|| gr.group.clone()),
                resources: gr.resources.clone(),
                resource_names: Names::new(&gr.resource_names),
            })
            .collect(),
        namespaces: Names::new(&raw.namespaces),
        non_resource_urls: raw
            .non_resource_urls
            .iter()
            .map(|u| UrlPattern::new(u))
            .collect(),
        omit_stages: stages(&raw.omit_stages, policy_stages),
        omit_managed_fields: raw.omit_managed_fields,
    }
}

/// `first` followed by the stages named in `names` it lacks.
fn stages(names: &[String], first: &[Stage]) -> Vec<Stage> {
    let mut out = first.to_vec();
    for stage in names.iter().filter_map(|n| stage(n)) {
        if !out.contains(&stage) {
            out.push(stage);
        }
    }
    out
}

fn stage(name: &str) -> Option<Stage> {
    Some(match name {
        "RequestReceived" => Stage::RequestReceived,
        "ResponseStarted" => Stage::ResponseStarted,
        "ResponseComplete" => Stage::ResponseComplete,
        "Panic" => Stage::Panic,
        _ => return None,
    })
}

/// A validated level (validation refused every other text).
fn level(name: &str) -> Level {
    match name {
        "Metadata" => Level::Metadata,
        "Request" => Level::Request,
        "RequestResponse" => Level::RequestResponse,
        _ => Level::None,
    }
}
