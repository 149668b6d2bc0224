//! Configurations with one bad webhook beside good ones, and matchConditions judged with
//! the authorizer, the user, `object` and `oldObject`.

use serde_json::{Value, json};

use crate::admission_host::{CRONTABS, Host, Policy, crontab, hook, mutating, validating, with};
use crate::answers::internal;
use crate::fake_kube::Decision;
use crate::webhook::Behaviour;

/// Replaces CronTab `name` with its labels set to `labels`.
async fn relabel(host: &Host, name: &str, labels: Value) -> crate::admission_host::Answer {
    let mut object = host.stored(name).await.expect("stored");
    object["metadata"]["labels"] = labels;
    let path = format!("{CRONTABS}/{name}");
    host.send(http::Method::PUT, &path, Some(&object)).await
}

/// A bad objectSelector fails its hook (500, kube's text without the webhook's name)
/// only for the requests its rules match, without calling it; its sibling in the same
/// configuration and another configuration keep working.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_object_selector_rules_match_500_good_hooks_keep_working() {
    let host = Host::start(|w| {
        let bad = hook(
            w,
            "bad-selector.example.com",
            "/bad",
            Policy::Fail,
            &["UPDATE"],
            &["crontabs"],
        );
        let bad = with(
            bad,
            "objectSelector",
            json!({"matchLabels": {"bad key!": "x"}}),
        );
        let good = hook(
            w,
            "good.example.com",
            "/good",
            Policy::Fail,
            &["CREATE"],
            &["crontabs"],
        );
        w.on(
            "/label",
            Behaviour::Patch(
                json!([{"op": "add", "path": "/metadata/labels/other", "value": "yes"}]),
            ),
        );
        let other = hook(
            w,
            "other.example.com",
            "/label",
            Policy::Fail,
            &["CREATE"],
            &["crontabs"],
        );
        // Only for objects labelled `app` (the webhook's patch adds to their labels).
        let selector = json!({"matchExpressions": [{"key": "app", "operator": "Exists"}]});
        let other = with(other, "objectSelector", selector);
        vec![
            validating("broken", vec![bad, good]),
            mutating("other", vec![other]),
        ]
    });
    let created = host.create(&crontab("s1", &[("app", "s")])).await;
    assert_eq!(created.code, 201, "{}", created.body);
    let stored = host.stored("s1").await.unwrap();
    assert_eq!(
        stored["metadata"]["labels"],
        json!({"app": "s", "other": "yes"})
    );
    assert_eq!(host.hook.reviews_at("/good").len(), 1);
    assert_eq!(host.hook.reviews_at("/label").len(), 1);

    let got = relabel(&host, "s1", json!({"other": "no"})).await;
    let message = "key: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    assert_eq!((got.code, &got.body), (500, &internal(message)));
    assert_eq!(host.stored("s1").await.unwrap(), stored, "nothing changed");
    assert!(
        host.hook.reviews_at("/bad").is_empty(),
        "the bad hook is never called"
    );
    host.assert_serving("s2").await;
    assert_eq!(host.hook.reviews_at("/good").len(), 2);
}

/// kube's 403 for a matchCondition that does not compile (cel-go's rendering).
fn compile_error(name: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": format!("crontabs.stable.example.com \"{name}\" is forbidden: compilation error: compilation failed: ERROR: <input>:1:24: Syntax error: mismatched input '<EOF>' expecting {{'[', '{{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}}\n | object.metadata.name ==\n | .......................^"),
        "reason": "Forbidden",
        "details": {"name": name, "group": "stable.example.com", "kind": "crontabs"}, "code": 403})
}

/// A matchCondition that does not compile: with Fail every request its rules and
/// selector match is refused (403, no call, not even of the other validating hooks);
/// with Ignore the hook is skipped and the others are called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn match_condition_compile_error_fail_403_ignore_skipped() {
    let host = Host::start(|w| {
        let broken = json!([{"name": "broken", "expression": "object.metadata.name =="}]);
        let mut hooks: Vec<Value> = [Policy::Fail, Policy::Ignore]
            .map(|p| {
                let path = format!("/cel-{}", p.as_str().to_lowercase());
                let h = hook(
                    w,
                    &format!("cel-{}.example.com", p.as_str().to_lowercase()),
                    &path,
                    p,
                    &["UPDATE"],
                    &["crontabs"],
                );
                let h = with(
                    h,
                    "objectSelector",
                    json!({"matchLabels": {"policy": p.as_str()}}),
                );
                with(h, "matchConditions", broken.clone())
            })
            .to_vec();
        hooks.push(hook(
            w,
            "cel-good.example.com",
            "/cel-good",
            Policy::Fail,
            &["UPDATE"],
            &["crontabs"],
        ));
        vec![validating("cel", hooks)]
    });
    for policy in [Policy::Fail, Policy::Ignore] {
        let name = format!("ce-{}", policy.as_str().to_lowercase());
        let created = host
            .create(&crontab(&name, &[("policy", policy.as_str())]))
            .await;
        assert_eq!(created.code, 201, "{name}: {}", created.body);
    }
    let stored = host.stored("ce-fail").await.unwrap();
    let got = relabel(&host, "ce-fail", json!({"policy": "Fail", "v": "2"})).await;
    assert_eq!((got.code, &got.body), (403, &compile_error("ce-fail")));
    assert_eq!(
        host.stored("ce-fail").await.unwrap(),
        stored,
        "nothing changed"
    );
    assert!(
        host.hook.reviews_at("/cel-good").is_empty(),
        "no call after the refusal"
    );

    let got = relabel(&host, "ce-ignore", json!({"policy": "Ignore", "v": "2"})).await;
    assert_eq!(got.code, 200, "{}", got.body);
    assert_eq!(
        host.stored("ce-ignore").await.unwrap()["metadata"]["labels"]["v"],
        "2"
    );
    assert_eq!(host.hook.reviews_at("/cel-good").len(), 1);
    assert!(host.hook.reviews_at("/cel-fail").is_empty());
    assert!(host.hook.reviews_at("/cel-ignore").is_empty());
}

const MAY_CREATE: &str = "authorizer.group('stable.example.com').resource('crontabs').namespace('default').check('create').allowed()";

/// The authorizer in a matchCondition asks the server's authorizer, here the fake
/// cluster's SubjectAccessReview (for the request's user, apiVersion `*`): allowed →
/// the webhook is called, denied → it is not and the request goes through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn match_condition_authorizer_allowed_called_denied_skipped() {
    let (host, proxy) = Host::start_delegated(|w| {
        let h = hook(
            w,
            "authz.example.com",
            "/authz",
            Policy::Fail,
            &["CREATE"],
            &["crontabs"],
        );
        vec![validating(
            "authz",
            vec![with(
                h,
                "matchConditions",
                json!([{"name": "may-create", "expression": MAY_CREATE}]),
            )],
        )]
    });
    // Requests themselves (apiVersion v1) are allowed; the condition's check only for bob.
    host.fake.set_policy(|spec| {
        let checked = spec["resourceAttributes"]["version"] == "*";
        match !checked || spec["user"] == "bob" {
            true => Decision::allow(""),
            false => Decision::deny("not bob"),
        }
    });
    let got = proxy.create_as(&host, "bob", &crontab("by-bob", &[])).await;
    assert_eq!(got.code, 201, "{}", got.body);
    let reviews = host.hook.reviews_at("/authz");
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0].request()["userInfo"]["username"], "bob");
    let got = proxy
        .create_as(&host, "carol", &crontab("by-carol", &[]))
        .await;
    assert_eq!(got.code, 201, "{}", got.body);
    assert!(host.stored("by-carol").await.is_some());
    assert_eq!(
        host.hook.reviews_at("/authz").len(),
        1,
        "carol's create not sent"
    );

    let checks: Vec<Value> = host
        .fake
        .access_reviews()
        .into_iter()
        .filter(|s| s["resourceAttributes"]["version"] == "*")
        .map(|s| {
            let a = &s["resourceAttributes"];
            json!({"user": s["user"], "verb": a["verb"], "group": a["group"],
                "resource": a["resource"], "namespace": a["namespace"]})
        })
        .collect();
    let check = |user: &str| {
        json!({"user": user, "verb": "create", "group": "stable.example.com",
            "resource": "crontabs", "namespace": "default"})
    };
    assert_eq!(checks, [check("bob"), check("carol")]);
}

/// `request.userInfo.username`, `object` and `oldObject == null` conditions, each hook
/// called exactly for the requests its condition holds for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn match_conditions_user_object_old_object_called_when_true() {
    let (host, proxy) = Host::start_delegated(|w| {
        let conditioned = |name: &str, expression: &str| {
            let h = hook(
                w,
                &format!("{name}.example.com"),
                &format!("/{name}"),
                Policy::Fail,
                &["CREATE", "UPDATE"],
                &["crontabs"],
            );
            with(
                h,
                "matchConditions",
                json!([{"name": name, "expression": expression}]),
            )
        };
        vec![validating(
            "conditions",
            vec![
                conditioned("bob", "request.userInfo.username == 'bob'"),
                conditioned(
                    "gold",
                    "has(object.metadata.labels) && object.metadata.labels['tier'] == 'gold'",
                ),
                conditioned("fresh", "oldObject == null"),
            ],
        )]
    });
    let got = proxy
        .create_as(&host, "bob", &crontab("b1", &[("tier", "silver")]))
        .await;
    assert_eq!(got.code, 201, "{}", got.body);
    let got = host.create(&crontab("a1", &[("tier", "gold")])).await;
    assert_eq!(got.code, 201, "{}", got.body);
    let got = relabel(&host, "b1", json!({"tier": "gold"})).await;
    assert_eq!(got.code, 200, "{}", got.body);
    let called = |path: &str| -> Vec<String> {
        host.hook
            .reviews_at(path)
            .iter()
            .map(|r| {
                format!(
                    "{} {}",
                    r.request()["operation"].as_str().unwrap(),
                    r.request()["name"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert_eq!(called("/bob"), ["CREATE b1"]);
    assert_eq!(called("/gold"), ["CREATE a1", "UPDATE b1"]);
    assert_eq!(called("/fresh"), ["CREATE b1", "CREATE a1"]);
}
