//! A [`Converter`] answering from a table of conversions made beforehand (kube's
//! `versionConverter` over a CRD converter, `NewCRDVersionConverter`, hub = the request's
//! version): the merge is synchronous, a resource's converter is not, so the caller runs
//! the field manager, converts what it asked for and did not find ([`Converted::misses`]),
//! and runs it again until nothing is missing. Each run is the same pure function of its
//! inputs and the table, so every run gets at least one conversion further.

use std::cell::RefCell;

use serde_json::Value;

use super::versions::CrdVersions;
use crate::fieldmanager::merge::Converter;
use crate::fieldmanager::typed::TypeRef;

/// One conversion the table holds: `source` (at `from`) to `to`, or the converter's error.
#[derive(Clone, Debug)]
pub struct Conversion {
    pub from: String,
    pub to: String,
    pub source: Value,
    pub result: Result<Value, String>,
}

/// A conversion the field manager asked for and the table lacks: `object`, held at
/// `from`, to `to`.
#[derive(Clone, Debug, PartialEq)]
pub struct Miss {
    pub from: String,
    pub to: String,
    pub object: Value,
}

/// The text a missing conversion fails the run with (the run is discarded).
pub const PENDING: &str = "conversion pending";

/// The CRD's types with conversions looked up in a table; see the module's text.
pub struct Converted<'a> {
    types: &'a CrdVersions,
    /// The request's `group/version`: every conversion goes through it, as kube's does.
    hub: &'a str,
    table: &'a [Conversion],
    misses: RefCell<Vec<Miss>>,
}

impl<'a> Converted<'a> {
    pub fn new(types: &'a CrdVersions, hub: &'a str, table: &'a [Conversion]) -> Converted<'a> {
        Converted {
            types,
            hub,
            table,
            misses: RefCell::new(Vec::new()),
        }
    }

    /// What the last run asked for and did not find (each once).
    pub fn misses(self) -> Vec<Miss> {
        self.misses.into_inner()
    }

    fn lookup(&self, object: &Value, from: &str, to: &str) -> Result<Value, String> {
        let found = self
            .table
            .iter()
            .find(|c| c.from == from && c.to == to && c.source == *object);
        if let Some(conversion) = found {
            return conversion.result.clone();
        }
        let miss = Miss {
            from: from.to_string(),
            to: to.to_string(),
            object: object.clone(),
        };
        let mut misses = self.misses.borrow_mut();
        if !misses.contains(&miss) {
            misses.push(miss);
        }
        Err(PENDING.to_string())
    }
}

impl Converter for Converted<'_> {
    fn type_at(&self, version: &str) -> Option<&TypeRef> {
        self.types.type_at(version)
    }

    /// kube's `versionConverter.Convert`: to the hub, then to `to` (a conversion to or from
    /// the hub is one step).
    fn convert(&self, object: &Value, from: &str, to: &str) -> Result<Value, String> {
        if from == to {
            return Ok(object.clone());
        }
        if from != self.hub && to != self.hub {
            let at_hub = self.lookup(object, from, self.hub)?;
            return self.lookup(&at_hub, self.hub, to);
        }
        self.lookup(object, from, to)
    }
}

/// How many runs a write may take: every run but the last makes at least one conversion,
/// and a merge converts at most a few objects per version (live, new, merged, pruned).
pub fn max_runs(types: &CrdVersions) -> usize {
    4 * types.types.len() + 4
}

/// `run` (the field manager over a table converter) until it asks for no conversion it
/// lacks; `convert` converts objects (each with its `apiVersion`) to a version, one call
/// per target version and run. `seeds` are objects at the hub the run converts to every
/// version it converts anything to (an update's live and new objects): sent with the
/// first object missing at a version, so that they take one call, not one run each.
/// A failed call is kept in the table as the error of each
/// of its objects, so that the field manager fails at that conversion with its own text.
/// Past [`max_runs`] the last run's result stands (its error names the pending conversion).
pub async fn converge<T, E, F, Fut>(
    types: &CrdVersions,
    hub: &str,
    seeds: &[Value],
    run: impl Fn(&dyn Converter) -> T,
    mut convert: F,
) -> T
where
    E: std::fmt::Display,
    F: FnMut(Vec<Value>, String) -> Fut,
    Fut: Future<Output = Result<Vec<Value>, E>>,
{
    let mut table: Vec<Conversion> = Vec::new();
    let mut runs = 0;
    loop {
        let converted = Converted::new(types, hub, &table);
        let out = run(&converted);
        let misses = converted.misses();
        runs += 1;
        if misses.is_empty() || runs >= max_runs(types) {
            return out;
        }
        drop(out);
        let mut targets: Vec<(String, String)> = Vec::new();
        for m in &misses {
            let target = (m.from.clone(), m.to.clone());
            if !targets.contains(&target) {
                targets.push(target);
            }
        }
        for (from, to) in targets {
            let mut sources: Vec<Value> = (misses.iter())
                .filter(|m| m.from == from && m.to == to)
                .map(|m| m.object.clone())
                .collect();
            if from == hub {
                let known = |s: &Value| {
                    sources.contains(s)
                        || (table.iter()).any(|c| c.from == from && c.to == to && c.source == *s)
                };
                let seeded: Vec<Value> = seeds.iter().filter(|s| !known(s)).cloned().collect();
                sources.extend(seeded);
            }
            let sent = sources.iter().map(|s| at_version(s, &from)).collect();
            let results: Vec<Result<Value, String>> = match convert(sent, to.clone()).await {
                Ok(objects) if objects.len() == sources.len() => {
                    objects.into_iter().map(Ok).collect()
                }
                Ok(objects) => {
                    let text = format!(
                        "conversion to {to} returned {} objects, expected {}",
                        objects.len(),
                        sources.len()
                    );
                    vec![Err(text); sources.len()]
                }
                Err(e) => vec![Err(e.to_string()); sources.len()],
            };
            for (source, result) in sources.into_iter().zip(results) {
                table.push(Conversion {
                    from: from.clone(),
                    to: to.clone(),
                    source,
                    result,
                });
            }
        }
    }
}

/// `object` with the `apiVersion` it is held at (what a converter reads it as).
fn at_version(object: &Value, api_version: &str) -> Value {
    let mut sent = object.clone();
    if let Some(fields) = sent.as_object_mut() {
        fields.insert("apiVersion".into(), Value::String(api_version.to_string()));
    }
    sent
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn types() -> CrdVersions {
        let ty = TypeRef::Deduced;
        CrdVersions::new([("g/v1".to_string(), ty.clone()), ("g/v2".to_string(), ty)])
    }

    #[test]
    fn convert_missing_then_found_in_table() {
        let types = types();
        let object = json!({"apiVersion": "g/v2", "kind": "K", "spec": {"shape": "x"}});
        let converted = Converted::new(&types, "g/v2", &[]);
        assert_eq!(
            converted.convert(&object, "g/v2", "g/v1"),
            Err(PENDING.to_string())
        );
        // Asked twice, recorded once.
        let _ = converted.convert(&object, "g/v2", "g/v1");
        let misses = converted.misses();
        assert_eq!(misses.len(), 1);
        assert_eq!(misses[0].object, object);
        let table = vec![Conversion {
            from: "g/v2".into(),
            to: "g/v1".into(),
            source: object.clone(),
            result: Ok(json!({"apiVersion": "g/v1", "kind": "K"})),
        }];
        let converted = Converted::new(&types, "g/v2", &table);
        let out = converted.convert(&object, "g/v2", "g/v1").unwrap();
        assert_eq!(out, json!({"apiVersion": "g/v1", "kind": "K"}));
        assert!(converted.misses().is_empty());
    }

    #[test]
    fn convert_between_other_versions_goes_through_hub() {
        let types = types();
        let object = json!({"apiVersion": "g/v1", "kind": "K"});
        let at_hub = json!({"apiVersion": "g/v2", "kind": "K", "hub": true});
        let mut table = vec![];
        let converted = Converted::new(&types, "g/v2", &table);
        assert!(converted.convert(&object, "g/v1", "g/v3").is_err());
        let misses = converted.misses();
        assert_eq!(
            (misses[0].from.as_str(), misses[0].to.as_str()),
            ("g/v1", "g/v2")
        );
        table.push(Conversion {
            from: "g/v1".into(),
            to: "g/v2".into(),
            source: object.clone(),
            result: Ok(at_hub.clone()),
        });
        let converted = Converted::new(&types, "g/v2", &table);
        assert!(converted.convert(&object, "g/v1", "g/v3").is_err());
        let misses = converted.misses();
        assert_eq!(misses[0].object, at_hub);
        assert_eq!(misses[0].to, "g/v3");
    }

    #[test]
    fn convert_failure_in_table_returned_as_error() {
        let types = types();
        let object = json!({"apiVersion": "g/v2", "kind": "K"});
        let table = vec![Conversion {
            from: "g/v2".into(),
            to: "g/v1".into(),
            source: object.clone(),
            result: Err("conversion webhook for g/v2, Kind=K failed: no".into()),
        }];
        let converted = Converted::new(&types, "g/v2", &table);
        assert_eq!(
            converted.convert(&object, "g/v2", "g/v1"),
            Err("conversion webhook for g/v2, Kind=K failed: no".to_string())
        );
        assert!(converted.misses().is_empty());
    }
}
