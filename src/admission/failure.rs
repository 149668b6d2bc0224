//! kube's `failurePolicy` of webhooks and admission policies: whether an error of theirs
//! refuses the request (`Fail`, also when unset) or is dropped (`Ignore`).

/// `failurePolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailurePolicy {
    Fail,
    Ignore,
}

impl FailurePolicy {
    /// Unset and unknown values are `Fail`, as kube's dispatchers treat them.
    pub fn of(given: Option<&str>) -> FailurePolicy {
        match given {
            Some("Ignore") => FailurePolicy::Ignore,
            _ => FailurePolicy::Fail,
        }
    }
}
