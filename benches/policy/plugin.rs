//! The whole ValidatingAdmissionPolicy plugin on one create, as the chain calls it: the
//! followed snapshot read, the policy and its binding matched, the invocation's inputs
//! bound and judged (the `validate` of `admission::policy::validating::plugin`), over a
//! policy source fed directly (no cluster) with the bench's policy and binding.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crd_apiserver::admission::metrics::AdmissionMetrics;
use crd_apiserver::admission::namespace::NamespaceLifecycle;
use crd_apiserver::admission::policy::generic::kinds::ValidatingPolicies;
use crd_apiserver::admission::policy::generic::params::{ParamKindRef, ParamStore};
use crd_apiserver::admission::policy::generic::plugin::Policies;
use crd_apiserver::admission::policy::generic::source::{
    BindingSink, Followed, ParamSources, PolicySink, Source,
};
use crd_apiserver::admission::policy::validating::plugin::validate;
use crd_apiserver::admission::webhook::matching::Gvk;
use crd_apiserver::admission::{Attributes, Kind, Operation, Options, Recorder};
use crd_apiserver::cel::lib::authz::{Answer, Attributes as Asked, Authorizer, Decision};
use crd_apiserver::cluster::informer::Sink;
use crd_apiserver::request::options::WriteOptions;
use crd_apiserver::request::user::UserInfo;
use serde_json::Value;

/// The bench policy takes no params and asks no authorizer.
struct Unused;

impl ParamSources for Unused {
    fn ensure(&self, _: &ParamKindRef) -> Arc<dyn ParamStore> {
        panic!("the bench policy has no paramKind")
    }
    fn retain(&self, _: &[Gvk]) {}
}

impl Authorizer for Unused {
    fn authorize(&self, _: &Asked) -> Answer {
        Answer {
            decision: Decision::Allow,
            reason: String::new(),
            error: None,
        }
    }
}

fn policies(policy: Value, binding: Value) -> Policies<ValidatingPolicies> {
    let followed = Arc::new(Followed::<ValidatingPolicies>::new(Arc::new(Unused)));
    PolicySink(followed.clone()).replace(vec![serde_json::from_value(policy).unwrap()]);
    BindingSink(followed.clone()).replace(vec![serde_json::from_value(binding).unwrap()]);
    Policies {
        source: Source::Followed(followed),
        namespaces: NamespaceLifecycle::unchecked(),
        authorizer: Arc::new(Unused),
        metrics: AdmissionMetrics::default(),
    }
}

/// Median µs per create of the plugin's `validate` with the policy and binding given.
pub fn per_create(
    policy: Value,
    binding: Value,
    object: &Value,
    rounds: usize,
    batch: usize,
) -> f64 {
    let policies = policies(policy, binding);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let user = UserInfo::new("admin".into(), vec!["system:masters".into()]);
    let options = WriteOptions::default();
    let one = || async {
        let recorder = Recorder::default();
        let attributes = Attributes {
            operation: Operation::Create,
            namespace: "default",
            name: "c1",
            group: "stable.example.com",
            resource: "crontabs",
            version: "v1",
            kind: Kind {
                group: "stable.example.com",
                version: "v1",
                kind: "CronTab",
            },
            subresource: "",
            dry_run: false,
            user: &user,
            options: Options::Create(&options),
            old_object: None,
            served: None,
            recorder: &recorder,
            deadline: None,
        };
        validate(&policies, &attributes, Some(object))
            .await
            .unwrap();
    };
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            runtime.block_on(async {
                let start = Instant::now();
                for _ in 0..batch {
                    one().await;
                }
                start.elapsed() / batch as u32
            })
        })
        .collect();
    times.sort();
    times[rounds / 2].as_secs_f64() * 1e6
}
