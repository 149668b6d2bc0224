//! The process's open-files limit, raised for the connections the limits allow.

/// Raises the soft open-files limit to the hard one (as Go does since 1.19): the
/// default soft limit of 1024 would cap connections long before their own limit.
pub fn raise_limit(max_connections: u32) {
    // The connections, the handshakes and the newcomers waiting for a connection slot,
    // with room for the store and the cluster clients.
    let wanted = [
        max_connections,
        super::accept::MAX_HANDSHAKES,
        super::accept::MAX_WAITING,
    ]
    .iter()
    .map(|n| u64::from(*n))
    .sum::<u64>()
        + 512;
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let raised = rustix::process::Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    let soft = match setrlimit(Resource::Nofile, raised) {
        Ok(()) => limit.maximum,
        Err(e) => {
            tracing::warn!(error = %e, "cannot raise the open-files limit");
            limit.current
        }
    };
    if let Some(soft) = soft.filter(|s| *s < wanted) {
        tracing::warn!(
            limit = soft,
            wanted,
            "open-files limit is below what the connection limits need; accepts may fail"
        );
    }
}
