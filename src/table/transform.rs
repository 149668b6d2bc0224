//! The `meta.k8s.io` conversions of a response (`transformResponseObject` upstream): an object
//! or a list as a Table, a `PartialObjectMetadata` or a `PartialObjectMetadataList`.

use serde_json::{Map, Value, json};

use super::convert::TableConvertor;
use super::partial::partial_object_metadata;
use super::render::{IncludeObject, TableOptions};
use crate::request::negotiate::MetaVersion;

/// What a conversion converts to (the Accept header's `as=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conversion {
    /// A Table; `includeObject` already parsed from the query.
    Table(IncludeObject),
    PartialObjectMetadata,
    PartialObjectMetadataList,
}

/// A conversion that does not fit the answer; the texts are upstream's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransformError {
    /// `PartialObjectMetadata` of a list (406).
    #[error(
        "you requested PartialObjectMetadata, but the requested object is a list (*unstructured.UnstructuredList)"
    )]
    ListAsPartialObjectMetadata,
    /// `PartialObjectMetadataList` of one object: an `Unstructured` passes upstream's list
    /// check, then walking its items fails (a 500 without reason).
    #[error("content is not a list")]
    NotAList,
}

/// A list's metadata as the handlers computed it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListMeta {
    pub resource_version: String,
    pub continue_token: String,
    pub remaining_item_count: Option<i64>,
}

impl ListMeta {
    /// A custom resource list's `metadata`: `continue` always present (empty on the last
    /// page), as the unstructured list serializes it.
    pub fn unstructured(&self) -> Value {
        let mut meta = json!({
            "resourceVersion": self.resource_version,
            "continue": self.continue_token,
        });
        if let Some(count) = self.remaining_item_count {
            meta["remainingItemCount"] = json!(count);
        }
        meta
    }

    /// A typed `metav1.ListMeta`: empty strings omitted.
    fn typed(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        for (key, text) in [
            ("resourceVersion", &self.resource_version),
            ("continue", &self.continue_token),
        ] {
            if !text.is_empty() {
                meta.insert(key.to_owned(), Value::from(text.as_str()));
            }
        }
        if let Some(count) = self.remaining_item_count {
            meta.insert("remainingItemCount".to_owned(), Value::from(count));
        }
        meta
    }
}

impl TableConvertor {
    /// One object converted (a get, a write's answer, one watch event).
    pub fn convert_object(
        &self,
        object: &Value,
        conversion: Conversion,
        version: MetaVersion,
        options: TableOptions,
        now: jiff::Timestamp,
    ) -> Result<Value, TransformError> {
        match conversion {
            Conversion::Table(include_object) => {
                let options = TableOptions {
                    include_object,
                    version,
                    ..options
                };
                Ok(self.table_for_object(object, options, now))
            }
            Conversion::PartialObjectMetadata => {
                Ok(partial_object_metadata(object, version.api_version()))
            }
            Conversion::PartialObjectMetadataList => Err(TransformError::NotAList),
        }
    }

    /// A list converted (a list, a deletecollection's answer).
    pub fn convert_list(
        &self,
        items: &[Value],
        list_meta: &ListMeta,
        conversion: Conversion,
        version: MetaVersion,
        now: jiff::Timestamp,
    ) -> Result<Value, TransformError> {
        match conversion {
            Conversion::Table(include_object) => {
                let options = TableOptions {
                    include_object,
                    version,
                    no_headers: false,
                };
                let meta = Value::Object(list_meta.typed());
                Ok(self.table_with_options(items, &meta, options, now))
            }
            Conversion::PartialObjectMetadata => Err(TransformError::ListAsPartialObjectMetadata),
            Conversion::PartialObjectMetadataList => {
                Ok(partial_object_metadata_list(items, list_meta, version))
            }
        }
    }
}

/// Upstream's typed list: `items` is `null` when there are none (a nil slice).
fn partial_object_metadata_list(
    items: &[Value],
    list_meta: &ListMeta,
    version: MetaVersion,
) -> Value {
    let api_version = version.api_version();
    let items: Vec<Value> = items
        .iter()
        .map(|item| partial_object_metadata(item, api_version))
        .collect();
    json!({
        "kind": "PartialObjectMetadataList",
        "apiVersion": api_version,
        "metadata": list_meta.typed(),
        "items": if items.is_empty() { Value::Null } else { Value::Array(items) },
    })
}
