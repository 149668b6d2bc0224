//! MutatingAdmissionPolicy (kube's `admission/plugin/policy/mutating`): a policy's
//! mutations applied to the object (`patch`: ApplyConfiguration merged with server-side
//! apply's rules over the resource's schema, JSONPatch applied as kube applies it) and
//! the reinvocation bookkeeping of one request (`reinvocation`); a policy's mutations
//! compiled once (`compile`) and run in order for one invocation (`evaluate`); the
//! plugin's mutating phase over a request's invocations (`plugin`) and kube's metrics
//! (`metrics`).

pub mod compile;
pub mod evaluate;
pub mod metrics;
pub mod patch;
pub mod plugin;
pub mod reinvocation;

#[cfg(test)]
mod tests;
