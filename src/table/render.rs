//! The `meta.k8s.io` Table document: list metadata, headers (unless suppressed), one row per
//! object with the object embedded per `includeObject` (`asTable` in apiserver's handlers).

use serde_json::{Map, Value, json};

use super::TableError;
use super::convert::TableConvertor;
use super::partial::{has_initial_events_end_annotation, partial_object_metadata};
use crate::request::negotiate::MetaVersion;

/// Which part of each object a Table row carries (`?includeObject=`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum IncludeObject {
    /// No object: the row's `object` is `null`.
    None,
    /// A `PartialObjectMetadata` (the default).
    #[default]
    Metadata,
    /// The whole object.
    Object,
}

impl IncludeObject {
    /// Parses the `includeObject` query value; empty means the default, `Metadata`. The error
    /// is the text of upstream's 400 (`ValidateTableOptions` wrapped by `optionsForTransform`).
    pub fn parse(value: &str) -> Result<IncludeObject, TableError> {
        match value {
            "" | "Metadata" => Ok(IncludeObject::Metadata),
            "None" => Ok(IncludeObject::None),
            "Object" => Ok(IncludeObject::Object),
            other => Err(TableError::IncludeObject(other.to_string())),
        }
    }
}

/// How to render a Table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableOptions {
    pub include_object: IncludeObject,
    /// Leave out `columnDefinitions` (serialized as `null`). Upstream's watch encoder sets this
    /// for every event after the first one of a watch.
    pub no_headers: bool,
    pub version: MetaVersion,
}

impl TableConvertor {
    /// A Table of a list's items, with headers, in `meta.k8s.io/v1`.
    pub fn table(
        &self,
        objects: &[Value],
        list_meta: Value,
        include: IncludeObject,
        now: jiff::Timestamp,
    ) -> Value {
        let options = TableOptions {
            include_object: include,
            ..TableOptions::default()
        };
        self.table_with_options(objects, &list_meta, options, now)
    }

    /// A Table of a list's items. `list_meta` is the list's metadata; its `selfLink`,
    /// `resourceVersion`, `continue` and `remainingItemCount` are kept. Rows are `[]` when
    /// there are no objects.
    pub fn table_with_options(
        &self,
        objects: &[Value],
        list_meta: &Value,
        options: TableOptions,
        now: jiff::Timestamp,
    ) -> Value {
        let mut metadata = Map::new();
        for key in ["selfLink", "resourceVersion", "continue"] {
            if let Some(text) = list_meta
                .get(key)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
            {
                metadata.insert(key.to_owned(), Value::from(text));
            }
        }
        if let Some(count) = list_meta.get("remainingItemCount").and_then(Value::as_i64) {
            metadata.insert("remainingItemCount".to_owned(), Value::from(count));
        }
        self.document(objects, metadata, options, now)
    }

    /// A Table of one object (a get, or one watch event): its `resourceVersion` becomes the
    /// Table's, and it is the single row.
    pub fn table_for_object(
        &self,
        object: &Value,
        options: TableOptions,
        now: jiff::Timestamp,
    ) -> Value {
        let mut metadata = Map::new();
        if let Some(rv) = object
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .filter(|rv| !rv.is_empty())
        {
            metadata.insert("resourceVersion".to_owned(), Value::from(rv));
        }
        self.document(std::slice::from_ref(object), metadata, options, now)
    }

    fn document(
        &self,
        objects: &[Value],
        metadata: Map<String, Value>,
        options: TableOptions,
        now: jiff::Timestamp,
    ) -> Value {
        let rows: Vec<Value> = objects
            .iter()
            .map(|object| {
                json!({
                    "cells": self.cells(object, now),
                    "object": row_object(object, options),
                })
            })
            .collect();
        let headers = if options.no_headers {
            Value::Null
        } else {
            self.column_definitions()
        };
        json!({
            "kind": "Table",
            "apiVersion": options.version.api_version(),
            "metadata": metadata,
            "columnDefinitions": headers,
            "rows": rows,
        })
    }
}

/// The row's `object`. Upstream's switch order matters: `Object` wins, then metadata (also for
/// the initial-events-end bookmark, even under `None`), then `None`.
fn row_object(object: &Value, options: TableOptions) -> Value {
    match options.include_object {
        IncludeObject::Object => object.clone(),
        IncludeObject::None if !has_initial_events_end_annotation(object) => Value::Null,
        IncludeObject::None | IncludeObject::Metadata => {
            partial_object_metadata(object, options.version.api_version())
        }
    }
}
