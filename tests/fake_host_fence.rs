//! The fake kube-apiserver as a host cluster (tests/common/fake_kube*): SelfSubjectReview,
//! a CRD's custom resources, the offload fence emulation and the request log, forwarding to
//! another server — driven with kube's own client — and the fence's parsing tables.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod common;
#[path = "common/fake_kube.rs"]
mod fake_kube;

use std::time::Duration;

use fake_kube::FakeKube;
use fake_kube::host::APISERVICES;
use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use serde_json::{Value, json};

const WITHIN: Duration = Duration::from_secs(10);

fn api_error(result: Result<impl std::fmt::Debug, kube::Error>) -> kube::core::Status {
    match result {
        Err(kube::Error::Api(status)) => *status,
        other => panic!("expected an API error, got {other:?}"),
    }
}

fn apiservice(name: &str) -> Value {
    json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name},
        "spec": {"group": "stable.example.com", "version": "v1", "groupPriorityMinimum": 1000, "versionPriority": 100},
        "status": {"conditions": [{"type": "Available", "status": "True"}]}})
}

#[tokio::test]
async fn self_subject_review_answers_the_callers_user() {
    let fake = FakeKube::start();
    fake.add_user("other-token", "jane", &["devs"]);
    for (client, user, group) in [
        (
            fake.client().await,
            fake_kube::users::SERVICE_ACCOUNT_USER,
            "system:serviceaccounts",
        ),
        (fake.client_for("other-token").await, "jane", "devs"),
    ] {
        let review: Value = client
            .request(http::Request::post(fake_kube::users::SELF_SUBJECT_REVIEWS)
                .body(serde_json::to_vec(&json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})).unwrap())
                .unwrap())
            .await
            .unwrap();
        assert_eq!(review["kind"], "SelfSubjectReview");
        assert_eq!(review["status"]["userInfo"]["username"], user);
        assert!(
            review["status"]["userInfo"]["groups"]
                .as_array()
                .unwrap()
                .contains(&json!(group)),
            "{review}"
        );
    }
    let unknown = api_error(fake.client_for("nobody").await.apiserver_version().await);
    assert_eq!(unknown.code, 401);
}

const GROUP: &str = "stable.example.com";
const FENCE: &str = "crd-apiserver-offload-fence.stable.example.com";
const MESSAGE: &str = "the resources of API group \"stable.example.com\" are being moved by crd-apiserver (offload): writes are refused until the move completes; retry shortly";

fn crontab_crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {"group": GROUP, "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "listKind": "CronTabList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"status": {}}}]}})
}

/// The fence as offsteps writes it (design34.md), exempting `user`'s real writes.
fn fence(user: &str) -> (Value, Value) {
    let policy = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": FENCE, "labels": {"app.kubernetes.io/managed-by": "crd-apiserver"}},
        "spec": {"failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [{"apiGroups": [GROUP], "apiVersions": ["*"],
                "resources": ["*/*"], "operations": ["CREATE", "UPDATE", "DELETE"]}]},
            "matchConditions": [{"name": "not-crd-apiserver",
                "expression": format!("request.userInfo.username != '{user}' || request.dryRun")}],
            "validations": [{"expression": "false", "reason": "Forbidden", "message": MESSAGE}]}});
    let binding = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": FENCE, "labels": {"app.kubernetes.io/managed-by": "crd-apiserver"}},
        "spec": {"policyName": FENCE, "validationActions": ["Deny"]}});
    (policy, binding)
}

#[tokio::test]
async fn a_crd_serves_its_custom_resources_and_the_fence_refuses_all_but_our_real_writes() {
    use kube::api::{ApiResource, DynamicObject};
    use kube::discovery::Discovery;
    let fake = FakeKube::start();
    fake.add_user("jane-token", "jane", &[]);
    let ours = fake.client().await;
    let crds: Api<DynamicObject> = Api::all_with(ours.clone(), &ApiResource::erase::<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition>(&()));
    crds.create(
        &PostParams::default(),
        &serde_json::from_value(crontab_crd()).unwrap(),
    )
    .await
    .unwrap();
    let discovery = Discovery::new(ours.clone())
        .filter(&[GROUP])
        .run()
        .await
        .unwrap();
    let (ar, caps) = discovery
        .get(GROUP)
        .and_then(|g| g.recommended_kind("CronTab"))
        .expect("CronTab discovered");
    let subresources: Vec<&str> = caps
        .subresources
        .iter()
        .map(|(s, _)| s.plural.as_str())
        .collect();
    assert_eq!(subresources, ["status"], "discovery lists crontabs/status");
    let established = crds.get("crontabs.stable.example.com").await.unwrap();
    assert_eq!(
        established.data["status"]["conditions"][1]["type"],
        "Established"
    );

    let theirs: Api<DynamicObject> =
        Api::namespaced_with(fake.client_for("jane-token").await, "default", &ar);
    let mine: Api<DynamicObject> = Api::namespaced_with(ours.clone(), "default", &ar);
    let crontab = |name: &str| -> DynamicObject {
        serde_json::from_value(
            json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": name}, "spec": {"cronSpec": "* * * * *"}}),
        )
        .unwrap()
    };
    theirs
        .create(&PostParams::default(), &crontab("before"))
        .await
        .unwrap();

    let (policy, binding) = fence(fake_kube::users::SERVICE_ACCOUNT_USER);
    let policies: Api<DynamicObject> = Api::all_with(
        ours.clone(),
        &ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
            "admissionregistration.k8s.io",
            "v1",
            "ValidatingAdmissionPolicy",
        )),
    );
    let bindings: Api<DynamicObject> = Api::all_with(
        ours.clone(),
        &ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
            "admissionregistration.k8s.io",
            "v1",
            "ValidatingAdmissionPolicyBinding",
        )),
    );
    policies
        .create(
            &PostParams::default(),
            &serde_json::from_value(policy).unwrap(),
        )
        .await
        .unwrap();
    theirs
        .create(&PostParams::default(), &crontab("unbound"))
        .await
        .expect("a policy without a binding refuses nothing");
    bindings
        .create(
            &PostParams::default(),
            &serde_json::from_value(binding).unwrap(),
        )
        .await
        .unwrap();

    let denied = |name: &str| {
        format!(
            "crontabs.stable.example.com \"{name}\" is forbidden: ValidatingAdmissionPolicy '{FENCE}' with binding '{FENCE}' denied request: {MESSAGE}"
        )
    };
    let refused = api_error(
        theirs
            .create(&PostParams::default(), &crontab("during"))
            .await,
    );
    assert_eq!(
        (
            refused.code,
            refused.reason.as_str(),
            refused.message.clone()
        ),
        (403, "Forbidden", denied("during"))
    );
    assert!(
        fake.object(
            &fake_kube::host::crd_resources(&crontab_crd())[0],
            Some("default"),
            "during"
        )
        .is_none()
    );
    let status = Patch::Merge(json!({"status": {"lastScheduleTime": "now"}}));
    let refused = api_error(
        theirs
            .patch_status("before", &PatchParams::default(), &status)
            .await,
    );
    assert_eq!(
        (refused.code, refused.message.clone()),
        (403, denied("before")),
        "*/* fences /status too"
    );
    let refused = api_error(theirs.delete("before", &DeleteParams::default()).await);
    assert_eq!(refused.message, denied("before"));
    assert!(theirs.get("before").await.is_ok(), "reads pass the fence");

    let dry = PatchParams {
        dry_run: true,
        ..Default::default()
    };
    let probe = api_error(
        mine.patch("before", &dry, &Patch::Merge(json!({"spec": {"x": 1}})))
            .await,
    );
    assert_eq!(
        (probe.code, probe.message.clone()),
        (403, denied("before")),
        "our dry-run probe sees the fence"
    );
    mine.create(&PostParams::default(), &crontab("ours"))
        .await
        .expect("our real writes pass");
    mine.patch_status("ours", &PatchParams::default(), &status)
        .await
        .unwrap();

    let writes: Vec<(String, String, String)> = fake
        .writes()
        .iter()
        .map(|w| (w.method.clone(), w.path.clone(), w.user.clone()))
        .collect();
    assert!(
        writes.contains(&(
            "POST".into(),
            "/apis/stable.example.com/v1/namespaces/default/crontabs".into(),
            "jane".into()
        )),
        "{writes:?}"
    );
    let last = fake.writes().pop().unwrap();
    assert_eq!(
        (last.method.as_str(), last.path.as_str()),
        (
            "PATCH",
            "/apis/stable.example.com/v1/namespaces/default/crontabs/ours/status"
        )
    );
    assert_eq!(last.json(), json!({"status": {"lastScheduleTime": "now"}}));
    assert_eq!(last.user, fake_kube::users::SERVICE_ACCOUNT_USER);

    bindings
        .delete(FENCE, &DeleteParams::default())
        .await
        .unwrap();
    theirs
        .create(&PostParams::default(), &crontab("after"))
        .await
        .expect("the fence lifted");
}

#[tokio::test]
async fn forward_proxies_a_prefix_to_another_server_watches_included() {
    use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
    let (front, back) = (FakeKube::start(), FakeKube::start());
    let identity = fake_kube::forward::Identity {
        token: Some(fake_kube::SERVICE_ACCOUNT_TOKEN.into()),
        ..Default::default()
    };
    front.forward(
        "/apis/apiregistration.k8s.io",
        &back.url(),
        &back.ca_pem,
        identity,
    );
    back.put_object(apiservice("v1.stable.example.com"));
    let services: Api<APIService> = Api::all(front.client().await);
    let listed = services.list(&Default::default()).await.unwrap();
    assert_eq!(listed.items.len(), 1);
    assert!(
        front
            .object(&APISERVICES, None, "v1.stable.example.com")
            .is_none(),
        "served by the back, not the front"
    );
    let mut events = services
        .watch(
            &WatchParams::default(),
            &listed.metadata.resource_version.unwrap(),
        )
        .await
        .unwrap()
        .boxed();
    back.put_object(apiservice("v1.other.example.com"));
    let event = tokio::time::timeout(WITHIN, events.try_next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    match event {
        WatchEvent::Added(s) => {
            assert_eq!(s.metadata.name.as_deref(), Some("v1.other.example.com"))
        }
        other => panic!("{other:?}"),
    }
    services
        .delete("v1.other.example.com", &DeleteParams::default())
        .await
        .unwrap();
    assert!(
        back.object(&APISERVICES, None, "v1.other.example.com")
            .is_none(),
        "the delete went through"
    );
    let at_back: Vec<_> = back
        .writes()
        .iter()
        .map(|w| (w.method.clone(), w.user.clone()))
        .collect();
    assert_eq!(
        at_back,
        [(
            "DELETE".to_string(),
            fake_kube::users::SERVICE_ACCOUNT_USER.to_string()
        )]
    );
    let namespaces = front.client().await;
    let local: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(namespaces);
    assert!(
        local.get("default").await.is_ok(),
        "the rest is served by the front"
    );
}

#[test]
fn fence_condition_and_resource_rules_read_as_kube_reads_them() {
    use fake_kube::fence::{exempted_user, names_resource};
    let conditions = [
        (
            "request.userInfo.username != 'system:serviceaccount:x:y'",
            Some(("system:serviceaccount:x:y", false)),
        ),
        (
            "request.userInfo.username != 'u' || request.dryRun",
            Some(("u", true)),
        ),
        (
            "  request.userInfo.username!='u'||request.dryRun ",
            Some(("u", true)),
        ),
        ("request.userInfo.username == 'u'", None),
        ("request.userInfo.username != 'u' && request.dryRun", None),
        ("request.userInfo.username != \"u\"", None),
        ("true", None),
    ];
    for (expression, expected) in conditions {
        assert_eq!(exempted_user(expression), expected, "{expression}");
    }
    // (entry, plural, subresource, matches)
    let rules = [
        ("*", "crontabs", "", true),
        ("*", "crontabs", "status", false),
        ("*/*", "crontabs", "", true),
        ("*/*", "crontabs", "status", true),
        ("crontabs", "crontabs", "", true),
        ("crontabs", "crontabs", "status", false),
        ("crontabs", "other", "", false),
        ("crontabs/*", "crontabs", "status", true),
        ("crontabs/*", "crontabs", "", false),
        ("*/status", "crontabs", "status", true),
        ("*/status", "crontabs", "scale", false),
        ("crontabs/status", "crontabs", "status", true),
    ];
    for (entry, plural, sub, expected) in rules {
        assert_eq!(
            names_resource(entry, plural, sub),
            expected,
            "{entry} on {plural}/{sub}"
        );
    }
}
