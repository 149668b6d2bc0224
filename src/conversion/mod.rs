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

use std::net::SocketAddr;
use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::crd::conversion::{Conversion, ConverterFactory};
use crate::webhook::{Settings, Transport, Users};
use webhook::WebhookConverter;
use webhook::metrics::ConversionMetrics;

/// The converters' factory: one webhook transport for every CRD's converter (clients
/// pooled per endpoint and caBundle inside it), and the metrics they count into.
pub struct Factory {
    transport: Arc<Transport>,
    metrics: ConversionMetrics,
}

impl Factory {
    /// `service_addresses` are `--admission-webhook-service-address`'s (a converter's
    /// `service` is reached as an admission webhook's is); `max_response_bytes` bounds an
    /// answer as it bounds admission's. Conversion calls carry no credentials (kube's
    /// conversion client reads no kubeconfig).
    pub fn new(
        service_addresses: Vec<(String, String, SocketAddr)>,
        max_response_bytes: usize,
        metrics: ConversionMetrics,
    ) -> Factory {
        let transport = Transport::new(Settings {
            users: Users::default(),
            service_addresses,
            max_response_bytes,
        });
        Factory {
            transport: Arc::new(transport),
            metrics,
        }
    }
}

impl ConverterFactory for Factory {
    fn new_converter(&self, crd: &CustomResourceDefinition) -> Result<Conversion, String> {
        // HOOK (helper cdecl fills `declarative::converter`): the annotation wins.
        if let Some(declarative) = declarative::converter(crd) {
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
