//! The fake kube-apiserver's webhook configurations: the helpers the webhook tests use over
//! the two `admissionregistration.k8s.io/v1` collections of `fake_kube_collections.rs`
//! (`GET /apis/admissionregistration.k8s.io/v1/{mutating,validating}webhookconfigurations`,
//! list and watch). Tests put and delete configurations (watchers see ADDED, MODIFIED,
//! DELETED), hold both lists back, drop every open watch, and count lists and watches.

use serde_json::Value;

use super::FakeKube;
use super::collections::{MUTATING_WEBHOOKS, Resource, VALIDATING_WEBHOOKS};

pub const MUTATING: &str = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
pub const VALIDATING: &str =
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

const BOTH: [Resource; 2] = [MUTATING_WEBHOOKS, VALIDATING_WEBHOOKS];

fn resource(kind: &str) -> Resource {
    match kind {
        "MutatingWebhookConfiguration" => MUTATING_WEBHOOKS,
        "ValidatingWebhookConfiguration" => VALIDATING_WEBHOOKS,
        other => panic!("not a webhook configuration kind: {other}"),
    }
}

impl FakeKube {
    /// Creates or replaces a configuration; `object["kind"]` says which kind, and
    /// `object["metadata"]["name"]` names it. Watchers see ADDED or MODIFIED.
    pub fn put_webhook_configuration(&self, mut object: Value) {
        let kind = object["kind"].as_str().expect("kind");
        object["apiVersion"] = resource(kind).api_version().into();
        self.put_object(object);
    }

    /// Deletes a configuration of `kind`; watchers see DELETED.
    pub fn delete_webhook_configuration(&self, kind: &str, name: &str) {
        self.delete_object(&resource(kind), None, name);
    }

    /// Lists of both kinds wait until [`FakeKube::release_webhook_lists`].
    pub fn hold_webhook_lists(&self) {
        BOTH.iter().for_each(|r| self.hold_lists(r));
    }

    pub fn release_webhook_lists(&self) {
        BOTH.iter().for_each(|r| self.release_lists(r));
    }

    /// Ends every open configuration watch (the stream closes as on a server timeout).
    pub fn drop_webhook_watches(&self) {
        BOTH.iter().for_each(|r| self.drop_watches(r));
    }

    /// Lists answered so far, both kinds together.
    pub fn webhook_lists(&self) -> usize {
        BOTH.iter().map(|r| self.lists(r)).sum()
    }

    /// Watches opened so far, both kinds together.
    pub fn webhook_watches(&self) -> usize {
        BOTH.iter().map(|r| self.watches(r)).sum()
    }
}
