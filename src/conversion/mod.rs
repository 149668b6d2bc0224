//! Custom resources converted between their versions (kube's apiextensions-apiserver
//! `pkg/apiserver/conversion`): the [`Factory`] the catalog makes each resource's
//! [`Conversion`] with (kube's `CRConverterFactory`), the webhook converter
//! ([`webhook`]) and the declarative converter ([`declarative`], our own). The contract
//! itself lives below, in `crd::conversion`.
//!
//! A definition's conversion: the annotation `conversion.crd-apiserver.io/declarative`
//! (with `strategy: None`) → the declarative converter; else `strategy: None` →
//! [`Conversion::None`]; `Webhook` → a [`webhook::WebhookConverter`]; anything else is
//! kube's `unknown conversion strategy` refusal.

pub mod declarative;
pub mod webhook;

use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::config::admission::AdmissionSettings;
use crate::crd::conversion::{Conversion, ConverterFactory};
use crate::webhook::{Settings, Transport, Users};
pub use webhook::WebhookConverter;
pub use webhook::metrics::ConversionMetrics;

/// The converters' factory: one webhook transport for every CRD's converter (clients
/// pooled per endpoint and caBundle inside it), and the metrics they count into.
pub struct Factory {
    transport: Arc<Transport>,
    metrics: ConversionMetrics,
    /// What declarative converters count into (nowhere unless set).
    declarative: declarative::DeclarativeMetrics,
}

impl Factory {
    /// Converters reach a `service` as admission webhooks do
    /// (`--admission-webhook-service-address`) and read answers within the same bound;
    /// they send no credentials (kube's conversion client reads no kubeconfig). Start-up
    /// wiring: `Factory::new(&config.admission, ConversionMetrics::register(&mut metrics))`.
    pub fn new(admission: &AdmissionSettings, metrics: ConversionMetrics) -> Factory {
        let transport = Transport::new(Settings {
            users: Users::default(),
            service_addresses: admission.service_addresses.clone(),
            max_response_bytes: admission.max_response_bytes,
        });
        Factory {
            transport: Arc::new(transport),
            metrics,
            declarative: declarative::DeclarativeMetrics::default(),
        }
    }

    /// Declarative converters count into `metrics`
    /// (`crd_apiserver_declarative_conversion_total`).
    pub fn counting_declarative(mut self, metrics: declarative::DeclarativeMetrics) -> Factory {
        self.declarative = metrics;
        self
    }
}

impl ConverterFactory for Factory {
    fn new_converter(&self, crd: &CustomResourceDefinition) -> Result<Conversion, String> {
        // The annotation wins.
        if let Some(declarative) = declarative::converter_counted(crd, &self.declarative) {
            return declarative;
        }
        let strategy = crd.spec.conversion.as_ref().map(|c| c.strategy.as_str());
        match strategy {
            None | Some("None") => Ok(Conversion::None),
            Some("Webhook") => {
                let converter =
                    WebhookConverter::new(crd, self.transport.clone(), self.metrics.clone())?;
                Ok(Conversion::Converter(Arc::new(converter)))
            }
            Some(other) => Err(format!(
                "unknown conversion strategy {} for CRD {}",
                crate::gofmt::quote(other),
                crd.metadata.name.as_deref().unwrap_or_default()
            )),
        }
    }
}

#[cfg(test)]
mod tests;
