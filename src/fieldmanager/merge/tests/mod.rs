//! Upstream's updater test tables (structured-merge-diff `merge/*_test.go`: leaf, set,
//! key, nested, multiple appliers, deduced, default keys, duplicates, ignored fields,
//! preserve-unknown), ported as data in `cases.yaml` and run as upstream's fixture does:
//! operations in order on one live object, then the object and the managers compared.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::Value;

use super::*;
use crate::fieldmanager::fieldpath::{ManagedFields, Set, VersionedSet};
use crate::fieldmanager::typed::tests::{obj, set_of};
use crate::fieldmanager::typed::{self, TypeRef};

const CASES: &str = include_str!("cases.yaml");
const VERSIONS: &str = include_str!("versions.yaml");

/// Upstream's `dummyConverter`: every version has the same type; the empty version is
/// not one. With `served` set, only those versions exist (`specificVersionConverter`).
struct SameType {
    ty: TypeRef,
    served: RefCell<Option<Vec<String>>>,
}

impl Converter for SameType {
    fn type_at(&self, version: &str) -> Option<&TypeRef> {
        let served = match &*self.served.borrow() {
            Some(list) => list.iter().any(|v| v == version),
            None => !version.is_empty(),
        };
        served.then_some(&self.ty)
    }

    fn convert(&self, object: &Value, _from: &str, _to: &str) -> Result<Value, String> {
        Ok(object.clone())
    }
}

struct State {
    live: Value,
    managers: ManagedFields,
}

fn conflict_pairs(c: &Conflicts) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = c
        .iter()
        .map(|c| (c.manager.clone(), c.path.to_string()))
        .collect();
    out.sort();
    out
}

fn expected_conflicts(v: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into()))
        .collect();
    out.sort();
    out
}

fn run_op(
    updater: &Updater,
    converter: &SameType,
    s: &mut State,
    op: &Value,
) -> Result<(), String> {
    let ty = &converter.ty;
    let kind = op["op"].as_str().unwrap();
    if kind == "serve" {
        let versions = op["versions"].as_array().unwrap();
        let versions = versions.iter().map(|v| v.as_str().unwrap().to_string());
        *converter.served.borrow_mut() = Some(versions.collect());
        return Ok(());
    }
    let manager = op["manager"].as_str().unwrap();
    let version = op["version"].as_str().unwrap();
    let object = obj(&op["object"]);
    if kind == "update" {
        typed::validate(ty, &object, true).map_err(|e| e.to_string())?;
        let managers = std::mem::take(&mut s.managers);
        s.managers = updater
            .update(&s.live, &object, version, managers, manager)
            .map_err(|e| e.to_string())?;
        s.live = object;
        return Ok(());
    }
    typed::validate(ty, &object, false).map_err(|e| e.to_string())?;
    let force = kind == "force_apply";
    let want = op.get("conflicts").map(expected_conflicts);
    match updater.apply(
        &s.live,
        &object,
        version,
        s.managers.clone(),
        manager,
        force,
    ) {
        Ok((new, managers)) => {
            if let Some(w) = want.filter(|w| !w.is_empty()) {
                return Err(format!("expected conflicts {w:?}, got none"));
            }
            s.managers = managers;
            if let Some(new) = new {
                s.live = new;
            }
            Ok(())
        }
        Err(Error::Conflicts(c)) => match want {
            Some(w) if w == conflict_pairs(&c) => Ok(()),
            _ => Err(format!("conflicts {:?}, want {want:?}", conflict_pairs(&c))),
        },
        Err(e) => Err(e.to_string()),
    }
}

fn expected_managers(v: &Value) -> ManagedFields {
    let mut out = ManagedFields::new();
    for (name, m) in v.as_object().unwrap() {
        let set = set_of(&m["set"]);
        let version = m["version"].as_str().unwrap();
        out.insert(
            name.clone(),
            VersionedSet::new(set, version, m["applied"] == true),
        );
    }
    out
}

fn exclude(set: Set) -> Filter<'static> {
    Box::new(move |s: &Set| s.recursive_difference(&set))
}

fn run_case(types: &BTreeMap<String, TypeRef>, case: &Value) -> Result<(), String> {
    let ty = &types[case["schema"].as_str().unwrap()];
    let converter = SameType {
        ty: ty.clone(),
        served: RefCell::new(None),
    };
    let mut updater = Updater::new(&converter);
    updater.return_input_on_noop = case["return_input_on_noop"] == true;
    if let Some(ignored) = case.get("ignored").and_then(Value::as_object) {
        for (version, paths) in ignored {
            updater
                .ignore
                .insert(version.clone(), exclude(set_of(paths)));
        }
    }
    let mut s = State {
        live: Value::Null,
        managers: ManagedFields::new(),
    };
    for (i, op) in case["ops"].as_array().unwrap().iter().enumerate() {
        run_op(&updater, &converter, &mut s, op)
            .map_err(|e| format!("failed operation {i}: {e}"))?;
    }
    if let Some(text) = case.get("object").filter(|t| t.as_str() != Some("")) {
        let want = obj(text);
        if want != s.live {
            return Err(format!("live {}, want {want}", s.live));
        }
    }
    if let Some(m) = case.get("managed") {
        let want = expected_managers(m);
        let diff = s.managers.difference(&want);
        if !diff.is_empty() {
            return Err(format!("managers:\n{}want:\n{want}", s.managers));
        }
    }
    match s.managers.iter().find(|(_, v)| v.set.is_empty()) {
        Some((m, _)) => Err(format!("empty set left for {m}")),
        None => Ok(()),
    }
}

#[test]
fn updater_upstream_cases_give_upstream_objects_and_managers() {
    let n = run_file(CASES);
    assert!(n >= 80);
}

#[test]
fn updater_obsolete_versions_drop_their_managers() {
    assert_eq!(run_file(VERSIONS), 2);
}

/// Runs every case of a data file; returns how many ran.
fn run_file(text: &str) -> usize {
    let doc: Value = serde_saphyr::from_str(text).unwrap();
    let types: BTreeMap<String, TypeRef> = doc["schemas"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                crate::schema::typed::schema_type(&crate::schema::Schema::parse(v)),
            )
        })
        .collect();
    let cases = doc["cases"].as_array().unwrap();
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        match (run_case(&types, case), case["expect_error"] == true) {
            (Ok(()), true) => failures.push(format!("{name}: expected an error")),
            (Err(e), false) => failures.push(format!("{name}: {e}")),
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    cases.len()
}

mod crd;
mod schema_change;
