#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::admission::attributes::{Kind, Options, Recorder};
use crate::admission::policy::generic::hooks::PolicyHook;
use crate::admission::policy::generic::params::{ParamKindRef, ParamStore};
use crate::admission::policy::generic::testing::{Counted, MemoryStore, binding, policy};
use crate::admission::webhook::matching::{Equivalent, NamespaceLabels};
use crate::admission::{Attributes, Operation};
use crate::request::user::UserInfo;

const GROUP: &str = "stable.example.com";

/// A hook of `policy` with `bindings`, params from `store`.
fn hook(
    p: k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicy,
    bindings: Vec<k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicyBinding>,
    store: Option<Arc<MemoryStore>>,
) -> Arc<PolicyHook<Counted>> {
    let bindings = bindings
        .into_iter()
        .map(|b| Arc::new(BindingHook::compile(Arc::new(b))))
        .collect();
    let params = move |_: &ParamKindRef| -> Arc<dyn ParamStore> {
        store.expect("a store for a policy with paramKind")
    };
    Arc::new(PolicyHook::assemble(Arc::new(p), Arc::new(0), params, bindings).unwrap())
}

/// Selects over `hooks` for a create of crontab `c` in namespace `ns` (v1).
fn run(hooks: Vec<Arc<PolicyHook<Counted>>>) -> Selection<Counted> {
    let resource = Gvr {
        group: GROUP.into(),
        version: "v1".into(),
        resource: "crontabs".into(),
    };
    let kind = Gvk {
        group: GROUP.into(),
        version: "v1".into(),
        kind: "CronTab".into(),
    };
    let equivalents = vec![Equivalent {
        resource: resource.clone(),
        kind: kind.clone(),
    }];
    let object = json!({"metadata": {"name": "c"}});
    let request = MatchRequest {
        operation: Operation::Create,
        resource: &resource,
        subresource: "",
        kind: &kind,
        namespace: "ns",
        object: Some(&object),
        old_object: None,
        namespace_labels: NamespaceLabels::NotLooked,
        equivalents: &equivalents,
    };
    let hooks = PolicyHooks { hooks };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (user, recorder) = (UserInfo::new("u".into(), vec![]), Recorder::default());
    let attributes = create_attributes(&user, &recorder);
    let mut versions = Versions::new(&attributes, Some(&object));
    runtime.block_on(select(&hooks, &request, "c", &mut versions))
}

/// Finishes `selection` for that create with `delegate`; the Status of a refusal.
fn finish(
    selection: Selection<Counted>,
    delegate: impl FnOnce(&[Invocation<Counted>]) -> Outcome,
) -> Option<Value> {
    let (user, recorder) = (UserInfo::new("u".into(), vec![]), Recorder::default());
    let attributes = create_attributes(&user, &recorder);
    let object = json!({"metadata": {"name": "c"}});
    let result = selection.finish(&attributes, Some(&object), delegate);
    result.err().map(|e| e.to_status())
}

/// The attributes of the create of crontab `c` in `ns` at v1.
fn create_attributes<'a>(user: &'a UserInfo, recorder: &'a Recorder) -> Attributes<'a> {
    Attributes {
        operation: Operation::Create,
        namespace: "ns",
        name: "c",
        group: GROUP,
        resource: "crontabs",
        version: "v1",
        kind: Kind {
            group: GROUP,
            version: "v1",
            kind: "CronTab",
        },
        subresource: "",
        dry_run: false,
        user,
        options: Options::None,
        old_object: None,
        served: None,
        recorder,
        deadline: None,
    }
}

fn no_errors(_: &[Invocation<Counted>]) -> Outcome {
    (Vec::new(), None)
}

#[test]
fn select_bindings_and_params_one_invocation_each() {
    let cm = |n: &str| json!({"metadata": {"name": n, "labels": {"p": "y"}}});
    let store = Arc::new(MemoryStore::namespaced(&[("ns", cm("a")), ("ns", cm("b"))]));
    let with_params = policy(
        "p",
        json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}}),
    );
    let bindings = vec![
        binding("b1", "p", json!({"paramRef": {"selector": {}}})),
        binding("b2", "p", json!({"paramRef": {"name": "a"}})),
        binding(
            "b3",
            "p",
            json!({"matchResources": {"namespaceSelector": {}, "objectSelector": {},
            "resourceRules": [{"operations": ["DELETE"], "apiGroups": ["*"], "apiVersions": ["*"],
            "resources": ["*"]}]}}),
        ),
    ];
    let selection = run(vec![hook(with_params, bindings, Some(store))]);
    let seen: Vec<(String, Option<String>)> = selection
        .invocations
        .iter()
        .map(|i| {
            let param = i
                .param
                .as_ref()
                .map(|p| p["metadata"]["name"].as_str().unwrap().into());
            (i.binding.name.clone(), param)
        })
        .collect();
    let want = |b: &str, p: &str| (b.to_string(), Some(p.to_string()));
    assert_eq!(
        seen,
        vec![want("b1", "a"), want("b1", "b"), want("b2", "a")]
    );
    assert!(selection.errors.is_empty());
    assert_eq!(selection.invocations[0].kind.version, "v1");
}

#[test]
fn select_configuration_errors_kubes_texts() {
    let no_constraints = policy("nc", json!({"matchConstraints": null}));
    let missing_param = policy(
        "mp",
        json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}}),
    );
    let nil_selector_binding = binding(
        "bad",
        "ok",
        json!({"matchResources": {"namespaceSelector": {}}}),
    );
    let store = Arc::new(MemoryStore::namespaced(&[]));
    let hooks = vec![
        hook(no_constraints, vec![binding("b", "nc", json!({}))], None),
        hook(
            missing_param,
            vec![binding(
                "b",
                "mp",
                json!({"paramRef": {"name": "x",
            "parameterNotFoundAction": "Deny"}}),
            )],
            Some(store),
        ),
        hook(policy("ok", json!({})), vec![nil_selector_binding], None),
    ];
    let selection = run(hooks);
    assert!(selection.invocations.is_empty());
    let texts: Vec<String> = selection.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        texts,
        vec![
            "policy \"nc\" denied request: failed to configure policy: policy contained no match constraints, a required field",
            "policy 'mp' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
            "policy 'ok' with binding 'bad' denied request: failed to configure binding: a nil object selector was passed, please ensure selectors are initialized properly",
        ]
    );
}

#[test]
fn finish_failure_policy_ignore_drops_errors() {
    let ignored = policy(
        "i",
        json!({"failurePolicy": "Ignore", "matchConstraints": null}),
    );
    let selection = run(vec![hook(
        ignored,
        vec![binding("b", "i", json!({}))],
        None,
    )]);
    assert_eq!(selection.errors.len(), 1);
    assert_eq!(finish(selection, no_errors), None);
}

#[test]
fn finish_delegate_errors_first_message_reason_every_cause() {
    let hooks = vec![
        hook(
            policy("p1", json!({})),
            vec![binding("b1", "p1", json!({}))],
            None,
        ),
        hook(
            policy("p2", json!({})),
            vec![binding("b2", "p2", json!({}))],
            None,
        ),
    ];
    let selection = run(hooks);
    let status = finish(selection, |invocations| {
        let errors = invocations
            .iter()
            .map(|i| i.error(format!("no {}", i.hook.name), "Invalid"))
            .collect();
        (errors, None)
    })
    .unwrap();
    let first = "policy 'p1' with binding 'b1' denied request: no p1";
    let second = "policy 'p2' with binding 'b2' denied request: no p2";
    assert_eq!(status["code"], 403);
    assert_eq!(status["message"], first);
    assert_eq!(status["reason"], "Invalid");
    assert_eq!(status["details"]["name"], "c");
    assert_eq!(status["details"]["group"], GROUP);
    assert_eq!(status["details"]["kind"], "crontabs");
    assert_eq!(
        status["details"]["causes"],
        json!([{"message": first}, {"message": second}])
    );
}

#[test]
fn finish_delegate_refusal_returned_as_is() {
    let hooks = vec![hook(
        policy("p", json!({})),
        vec![binding("b", "p", json!({}))],
        None,
    )];
    let status = finish(run(hooks), |_| {
        (Vec::new(), Some(ApiError::Internal("boom".into())))
    })
    .unwrap();
    assert_eq!(status["message"], "Internal error occurred: boom");
}

#[test]
fn finish_no_invocations_delegate_not_called() {
    let unmatched = policy(
        "p",
        json!({"matchConstraints": {"namespaceSelector": {}, "objectSelector": {},
        "resourceRules": [{"operations": ["DELETE"], "apiGroups": ["*"], "apiVersions": ["*"],
        "resources": ["*"]}]}}),
    );
    let selection = run(vec![hook(
        unmatched,
        vec![binding("b", "p", json!({}))],
        None,
    )]);
    assert!(selection.invocations.is_empty());
    let called = finish(selection, |_| panic!("delegate called without invocations"));
    assert_eq!(called, None);
}
