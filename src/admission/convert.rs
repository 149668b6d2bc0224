//! Objects in the version a webhook or policy is matched at (kube's `ConvertToGVK` in
//! `NewVersionedAttributes`), and a mutated object back in the request's version: through
//! the resource's converter (object and oldObject in one call) when it has one, else only
//! apiVersion changes (strategy `None`, kube's `nopConverter`).

use std::borrow::Cow;

use serde_json::Value;

use crate::admission::Attributes;
use crate::crd::conversion::{Conversion, Convert};

/// The converter of the admitted object's resource, if it has one (a Scale has none).
fn converter<'a>(attributes: &Attributes<'a>) -> Option<&'a dyn Convert> {
    let served = attributes.served?;
    if served.kind != attributes.kind.kind {
        return None;
    }
    match &served.conversion {
        Conversion::Converter(converter) => Some(&**converter),
        Conversion::None => None,
    }
}

/// `objects` (the object and the old object) at `api_version`; each not there already
/// converted, all in one call. Err: the converter's message.
pub async fn versioned<'v>(
    attributes: &Attributes<'_>,
    objects: [Option<&'v Value>; 2],
    api_version: &str,
) -> Result<[Option<Cow<'v, Value>>; 2], String> {
    let elsewhere = |o: &Value| {
        o.get("kind").is_some() && o.get("apiVersion").and_then(Value::as_str) != Some(api_version)
    };
    let Some(converter) = converter(attributes) else {
        return Ok(objects.map(|o| o.map(|o| set_api_version(o, api_version))));
    };
    let sent: Vec<Value> = objects
        .iter()
        .flatten()
        .filter(|o| elsewhere(o))
        .map(|o| (*o).clone())
        .collect();
    if sent.is_empty() {
        return Ok(objects.map(|o| o.map(Cow::Borrowed)));
    }
    let count = sent.len();
    let converted = converter
        .convert(sent, api_version)
        .await
        .map_err(|e| e.message)?;
    if converted.len() != count {
        return Err(format!(
            "conversion to {api_version} returned {} objects, expected {count}",
            converted.len()
        ));
    }
    let mut converted = converted.into_iter();
    Ok(objects.map(|o| match o {
        Some(o) if elsewhere(o) => converted.next().map(Cow::Owned),
        other => other.map(Cow::Borrowed),
    }))
}

/// A mutated `object` (at the version its hook or policy saw) back at `api_version` (the
/// request's), pruned by that version's schema when the converter made it.
pub async fn unversioned(
    attributes: &Attributes<'_>,
    object: Value,
    api_version: &str,
) -> Result<Value, String> {
    if object.get("apiVersion").and_then(Value::as_str) == Some(api_version) {
        return Ok(object);
    }
    let Some(converter) = converter(attributes) else {
        return Ok(set_api_version(&object, api_version).into_owned());
    };
    let converted = converter
        .convert(vec![object], api_version)
        .await
        .map_err(|e| e.message)?;
    let Some(mut back) = converted.into_iter().next() else {
        return Err(format!("conversion to {api_version} returned no object"));
    };
    if let Some(version) = attributes
        .served
        .and_then(|s| s.version(attributes.version))
    {
        crate::schema::prune::prune_silently(&mut back, &version.structural);
    }
    Ok(back)
}

/// `object` with only its apiVersion set (a kind-less value is left alone).
fn set_api_version<'v>(object: &'v Value, api_version: &str) -> Cow<'v, Value> {
    match object.get("apiVersion").and_then(Value::as_str) {
        Some(current) if current != api_version && object.get("kind").is_some() => {
            let mut converted = object.clone();
            converted["apiVersion"] = Value::String(api_version.to_string());
            Cow::Owned(converted)
        }
        _ => Cow::Borrowed(object),
    }
}

#[cfg(test)]
mod tests;
