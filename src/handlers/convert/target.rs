//! The conversion seam on [`Target`]: a request's stored objects into its version, its
//! written object into the storage version, and a write's answer back.

use std::borrow::Cow;

use serde_json::Value;

use crate::crd::conversion::Conversion;
use crate::error::ApiError;
use crate::handlers::context::Target;
use crate::handlers::convert;
use crate::storage::{Event, KeyValue};

impl Target {
    /// Whether objects of this resource may go through a converter (a webhook or
    /// declarative strategy): `None` keeps the synchronous paths, which cost nothing more.
    pub fn needs_conversion(&self) -> bool {
        !self.resource.conversion.is_none()
    }

    /// Stored values with their objects in the request's version (not pruned nor
    /// defaulted: [`Target::decode`] does that with this version's schema), the same
    /// revisions and memos; untouched without a converter or when already there. The
    /// values needing it are converted in one call, kept per cached value and version.
    pub async fn to_served_version(&self, kvs: Vec<KeyValue>) -> Result<Vec<KeyValue>, ApiError> {
        let Conversion::Converter(converter) = &self.resource.conversion else {
            return Ok(kvs);
        };
        let key = convert::memo_key(&self.version().name, false);
        convert::to_version(&**converter, kvs, &self.api_version(), &key).await
    }

    /// A watch event with its object and previous value in the request's version (each
    /// converted once per event and version, kept in the event's memo); the event itself
    /// without a converter.
    pub async fn to_served_event<'e>(&self, event: &'e Event) -> Result<Cow<'e, Event>, ApiError> {
        let Conversion::Converter(converter) = &self.resource.conversion else {
            return Ok(Cow::Borrowed(event));
        };
        let (api_version, name) = (&self.api_version(), &self.version().name);
        let one = |kv: KeyValue, previous: bool| async move {
            let key = convert::memo_key(name, previous);
            let kvs = convert::to_version(&**converter, vec![kv], api_version, &key).await?;
            kvs.into_iter()
                .next()
                .ok_or_else(|| ApiError::Internal("conversion returned no object".into()))
        };
        Ok(Cow::Owned(match event {
            Event::Put { kv, prev_value } => {
                let prev_value = match prev_value {
                    Some(p) => Some(
                        one(convert::kv_of(p.clone(), kv.mod_revision, &kv.memo), true)
                            .await?
                            .value,
                    ),
                    None => None,
                };
                Event::Put {
                    kv: one(kv.clone(), false).await?,
                    prev_value,
                }
            }
            Event::Delete { kv } => Event::Delete {
                kv: one(kv.clone(), false).await?,
            },
            Event::Progress { .. } => return Ok(Cow::Borrowed(event)),
        }))
    }

    /// [`Target::decode`] of a stored value in the request's version.
    pub async fn decode_served(&self, kv: &KeyValue) -> Result<Value, ApiError> {
        if !self.needs_conversion() {
            return self.decode(kv);
        }
        let converted = self.to_served_version(vec![kv.clone()]).await?;
        match converted.first() {
            Some(kv) => self.decode(kv),
            None => Err(ApiError::Internal("conversion returned no object".into())),
        }
    }

    /// A written object (request version) in the storage version, pruned by the storage
    /// version's schema; untouched without a converter or when already there.
    pub async fn to_storage_version(&self, object: Value) -> Result<Value, ApiError> {
        let storage = self.resource.storage_api_version.as_str();
        let Conversion::Converter(converter) = &self.resource.conversion else {
            return Ok(object);
        };
        if object.get("apiVersion").and_then(Value::as_str) == Some(storage) {
            return Ok(object);
        }
        let converted = convert::convert_values(&**converter, vec![object], storage).await?;
        let mut stored = converted.into_iter().next().unwrap_or_default();
        // The storage version's schema, served or not (kube's schemaCoercingConverter).
        crate::schema::prune::prune_silently(&mut stored, self.resource.storage_schema());
        Ok(stored)
    }

    /// What a write stores: the bytes, and the object in the storage version when the
    /// converter made it (the answer is made back from it, as kube decodes its answer
    /// from what it stored).
    pub async fn stored_form(&self, object: &Value) -> Result<(Vec<u8>, Option<Value>), ApiError> {
        if !self.needs_conversion()
            || object.get("apiVersion").and_then(Value::as_str)
                == Some(self.resource.storage_api_version.as_str())
        {
            return Ok((self.encode(object)?, None));
        }
        let stored = self.to_storage_version(object.clone()).await?;
        Ok((self.encode(&stored)?, Some(stored)))
    }

    /// A write's answer at `revision` (0: a dry run, whose answer keeps its
    /// resourceVersion): `object` presented, or, when the converter made the stored
    /// form, that form converted back to the request's version and decoded as a read is.
    pub async fn answer(
        &self,
        mut object: Value,
        stored: Option<Value>,
        revision: i64,
    ) -> Result<Value, ApiError> {
        let (Some(stored), Conversion::Converter(converter)) = (stored, &self.resource.conversion)
        else {
            self.present(&mut object, revision);
            return Ok(object);
        };
        let converted =
            convert::convert_values(&**converter, vec![stored], &self.api_version()).await?;
        let mut answer = converted.into_iter().next().unwrap_or_default();
        crate::crd::served::coerce(self.version(), &mut answer);
        self.present(&mut answer, revision);
        Ok(answer)
    }
}
