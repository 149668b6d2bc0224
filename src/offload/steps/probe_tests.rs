//! How a probe's answer is judged.

use kube::core::Status;

use super::*;
use crate::error::GroupResource;

fn status(code: u16, reason: &str, message: &str) -> Status {
    Status::failure(message, reason).with_code(code)
}

const DENIAL: &str = "ValidatingAdmissionPolicy 'f' with binding 'f' denied request: moving";

#[test]
fn judge_table() {
    let fenced = status(
        403,
        "Forbidden",
        &format!("widgets.g \"a\" is forbidden: {DENIAL}"),
    );
    let rbac = status(
        403,
        "Forbidden",
        "widgets.g \"a\" is forbidden: User \"x\" cannot update",
    );
    let schema = status(
        422,
        "Invalid",
        "Widget.g \"p\" is invalid: spec: Required value",
    );
    let conflict = status(409, "Conflict", "the object has been modified");
    let missing_ns = status(404, "NotFound", "namespaces \"default\" not found");
    let cases: Vec<(Result<(), &Status>, bool, Verdict)> = vec![
        (Err(&fenced), false, Verdict::InEffect),
        (Err(&fenced), true, Verdict::InEffect),
        (
            Ok(()),
            false,
            Verdict::NotYet("a dry-run write was accepted".into()),
        ),
        (
            Err(&rbac),
            false,
            Verdict::NotYet(format!("403 Forbidden: {}", rbac.message)),
        ),
        (
            Err(&schema),
            true,
            Verdict::Unprobeable(format!("422 Invalid: {}", schema.message)),
        ),
        (
            Err(&schema),
            false,
            Verdict::NotYet(format!("422 Invalid: {}", schema.message)),
        ),
        (
            Err(&conflict),
            false,
            Verdict::NotYet(format!("409 Conflict: {}", conflict.message)),
        ),
        (
            Err(&missing_ns),
            true,
            Verdict::Unprobeable(format!("404 NotFound: {}", missing_ns.message)),
        ),
    ];
    for (answer, create, want) in cases {
        assert_eq!(
            judge(answer, DENIAL, create),
            want,
            "{answer:?} create={create}"
        );
    }
}

#[test]
fn judge_here_table() {
    let forbidden = |message: &str| ApiError::Forbidden {
        message: message.to_string(),
        resource: Some(GroupResource::new("g", "widgets")),
        name: "p".into(),
    };
    let fenced = judge_here(
        Some(Err(forbidden(&format!(
            "widgets.g \"p\" is forbidden: {DENIAL}"
        )))),
        DENIAL,
    );
    assert_eq!(fenced.unwrap(), Verdict::InEffect);
    let admitted = judge_here(Some(Ok(())), DENIAL);
    assert_eq!(admitted.unwrap(), Verdict::NotYet("admitted here".into()));
    let other = judge_here(
        Some(Err(forbidden("widgets.g \"p\" is forbidden: other"))),
        DENIAL,
    );
    assert!(matches!(other.unwrap(), Verdict::NotYet(m) if m.contains("other")));
    let off = judge_here(None, DENIAL);
    assert!(
        matches!(off, Err(StepError::Transient(m)) if m.contains("ValidatingAdmissionPolicy admission plugin is not enabled"))
    );
}

#[test]
fn probe_object_is_minimal_and_namespaced_in_default() {
    let mut resource = HostResource {
        crd_name: "widgets.g".into(),
        group: "g".into(),
        plural: "widgets".into(),
        kind: "Widget".into(),
        version: "v1".into(),
        namespaced: true,
        status: false,
    };
    assert_eq!(
        probe_object(&resource),
        json!({"apiVersion": "g/v1", "kind": "Widget",
            "metadata": {"name": "crd-apiserver-fence-probe", "namespace": "default"}})
    );
    resource.namespaced = false;
    assert_eq!(
        probe_object(&resource)["metadata"],
        json!({"name": "crd-apiserver-fence-probe"})
    );
}
