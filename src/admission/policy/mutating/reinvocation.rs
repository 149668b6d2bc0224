//! kube's `policyReinvokeContext` (`mutating/reinvocationcontext.go`): per request, the
//! policies with `reinvocationPolicy: IfNeeded` that ran, and those to run again when a
//! later plugin changed the object.

use std::collections::BTreeSet;

use serde_json::Value as Json;

/// A namespaced name (`types.NamespacedName`); cluster-scoped objects have no namespace.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct NamespacedName {
    pub namespace: String,
    pub name: String,
}

/// kube's invocation `key`: the policy, the binding and the param (empty without one).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub policy: NamespacedName,
    pub binding: NamespacedName,
    pub param: NamespacedName,
}

/// The plugin's state across the invocations of one request.
#[derive(Debug, Default)]
pub struct ReinvokeContext {
    /// The object as the plugin's last invocation left it.
    last_output: Option<Json>,
    previously_invoked: BTreeSet<Key>,
    reinvoke: BTreeSet<Key>,
}

impl ReinvokeContext {
    /// `ShouldReinvoke`: on a reinvocation, only the policies marked run again.
    pub fn should_reinvoke(&self, key: &Key) -> bool {
        self.reinvoke.contains(key)
    }

    /// `IsOutputChangedSinceLastPolicyInvocation`.
    pub fn output_changed_since_last_invocation(&self, object: Option<&Json>) -> bool {
        self.last_output.as_ref() != object
    }

    /// `SetLastPolicyInvocationOutput`.
    pub fn set_last_invocation_output(&mut self, object: Option<&Json>) {
        self.last_output = object.cloned();
    }

    /// `AddReinvocablePolicyToPreviouslyInvoked` (an `IfNeeded` policy that ran).
    pub fn add_reinvocable(&mut self, key: Key) {
        self.previously_invoked.insert(key);
    }

    /// `RequireReinvokingPreviouslyInvokedPlugins`: every `IfNeeded` policy that ran so far
    /// runs again on the reinvocation.
    pub fn require_reinvoking_previously_invoked(&mut self) {
        let invoked = std::mem::take(&mut self.previously_invoked);
        self.reinvoke.extend(invoked);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use serde_json::json;

    use super::*;

    fn key(policy: &str) -> Key {
        Key {
            policy: NamespacedName {
                namespace: String::new(),
                name: policy.to_string(),
            },
            ..Key::default()
        }
    }

    #[test]
    fn reinvocation_if_needed_policies_marked_once_required() {
        let mut ctx = ReinvokeContext::default();
        ctx.add_reinvocable(key("a"));
        assert!(!ctx.should_reinvoke(&key("a")), "not before a later change");
        ctx.require_reinvoking_previously_invoked();
        assert!(ctx.should_reinvoke(&key("a")));
        assert!(
            !ctx.should_reinvoke(&key("b")),
            "a Never policy is not reinvoked"
        );
        // The previously invoked set is consumed: a policy added later waits for the
        // next requirement.
        ctx.add_reinvocable(key("b"));
        assert!(!ctx.should_reinvoke(&key("b")));
    }

    #[test]
    fn reinvocation_output_change_compared_to_last_invocation() {
        let mut ctx = ReinvokeContext::default();
        let before = json!({"spec": {"a": 1}});
        let after = json!({"spec": {"a": 2}});
        assert!(ctx.output_changed_since_last_invocation(Some(&before)));
        ctx.set_last_invocation_output(Some(&before));
        assert!(!ctx.output_changed_since_last_invocation(Some(&before)));
        assert!(ctx.output_changed_since_last_invocation(Some(&after)));
        assert!(ctx.output_changed_since_last_invocation(None));
    }
}
