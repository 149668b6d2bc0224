//! What an admission plugin is told about a write (kube's `admission.Attributes`).

/// The admission operation of a request (kube's `admission.Operation`), as
/// k8s.io/apiserver's handlers name it: `POST` and a server-side apply to a missing
/// object are Create; every other update or patch (`/status` and `/scale` too) is
/// Update; a delete is Delete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
    Delete,
}

/// One write as the plugins see it.
#[derive(Clone, Copy, Debug)]
pub struct Attributes<'a> {
    pub operation: Operation,
    /// The object's namespace; empty for a cluster-scoped resource.
    pub namespace: &'a str,
    /// The name admission's refusals show (kube's `extractResourceName`): the object's
    /// name, else its `generateName` (admission runs before a name is generated), else
    /// `Unknown`.
    pub name: &'a str,
    /// The resource's API group and plural name.
    pub group: &'a str,
    pub resource: &'a str,
    /// `""`, `status` or `scale`.
    pub subresource: &'a str,
    pub dry_run: bool,
}
