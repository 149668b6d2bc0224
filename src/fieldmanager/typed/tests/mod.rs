//! Upstream's typed test tables (structured-merge-diff `typed/*_test.go`: merge, toset,
//! symdiff, remove, validate, extract-with-keys), ported as data in `cases.yaml`: each
//! upstream schema is written as the CRD schema that compiles to the same smd type.

use std::collections::BTreeMap;

use serde_json::Value;

use super::*;
use crate::fieldmanager::fieldpath::Set;
use crate::fieldmanager::value;
use crate::schema::typed::schema_type;

const CASES: &str = include_str!("cases.yaml");

struct Data {
    doc: Value,
    types: BTreeMap<String, TypeRef>,
}

fn data() -> Data {
    let doc: Value = serde_saphyr::from_str(CASES).unwrap();
    let types = doc["schemas"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), schema_type(&crate::schema::Schema::parse(v))))
        .collect();
    Data { doc, types }
}

/// An object written as YAML (or JSON) text; the empty text is `null`.
pub(crate) fn obj(text: &Value) -> Value {
    let text = text.as_str().unwrap();
    if text.trim().is_empty() {
        return Value::Null;
    }
    serde_saphyr::from_str(text).unwrap()
}

fn paths(set: &Set) -> Vec<String> {
    let mut out: Vec<String> = set.paths().iter().map(|p| p.to_string()).collect();
    out.sort();
    out
}

fn expected_paths(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

/// Runs `check` on every item of every case of `kind`; returns (items run, failures).
fn run(kind: &str, mut check: impl FnMut(&TypeRef, &Value) -> Result<(), String>) -> usize {
    let d = data();
    let mut failures = Vec::new();
    let mut count = 0;
    for case in d.doc[kind].as_array().unwrap() {
        let ty = &d.types[case["schema"].as_str().unwrap()];
        let items = case["items"].as_array().cloned().unwrap_or_default();
        for (i, item) in items.iter().enumerate() {
            count += 1;
            if let Err(e) = check(ty, item) {
                failures.push(format!("{} #{i}: {e}", case["name"]));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    count
}

#[test]
fn merge_upstream_triplets_give_upstream_output() {
    let n = run("merge", |ty, item| {
        let lhs = obj(&item["lhs"]);
        let rhs = obj(&item["rhs"]);
        validate(ty, &lhs, true).map_err(|e| format!("lhs invalid: {e}"))?;
        validate(ty, &rhs, false).map_err(|e| format!("rhs invalid: {e}"))?;
        let got = merge(ty, &lhs, &rhs).map_err(|e| e.to_string())?;
        let want = obj(&item["out"]);
        if value::equals(&got, &want) {
            Ok(())
        } else {
            Err(format!("got {got}, want {want}"))
        }
    });
    assert!(n >= 60);
}

#[test]
fn to_field_set_upstream_pairs_give_upstream_sets() {
    let n = run("toset", |ty, item| {
        let v = obj(&item["object"]);
        validate(ty, &v, true).map_err(|e| format!("invalid: {e}"))?;
        let got = paths(&to_field_set(ty, &v).map_err(|e| e.to_string())?);
        let want = expected_paths(&item["set"]);
        if got == want {
            Ok(())
        } else {
            Err(format!("got {got:?}, want {want:?}"))
        }
    });
    assert!(n >= 25);
}

#[test]
fn compare_upstream_quints_give_upstream_sets_both_ways() {
    let n = run("compare", |ty, item| {
        let lhs = obj(&item["lhs"]);
        let rhs = obj(&item["rhs"]);
        let got = compare(ty, &lhs, &rhs).map_err(|e| e.to_string())?;
        let want = |k: &str| expected_paths(&item[k]);
        let got_sets = [paths(&got.removed), paths(&got.modified), paths(&got.added)];
        let want_sets = [want("removed"), want("modified"), want("added")];
        if got_sets != want_sets {
            return Err(format!("got {got_sets:?}, want {want_sets:?}"));
        }
        let back = compare(ty, &rhs, &lhs).map_err(|e| e.to_string())?;
        let back_sets = [
            paths(&back.added),
            paths(&back.modified),
            paths(&back.removed),
        ];
        if back_sets == want_sets {
            Ok(())
        } else {
            Err(format!("reverse gave {back_sets:?}"))
        }
    });
    assert!(n >= 60);
}

#[test]
fn remove_and_extract_upstream_quadruplets_give_upstream_values() {
    let n = run("remove", |ty, item| {
        let v = obj(&item["object"]);
        validate(ty, &v, false).map_err(|e| format!("invalid: {e}"))?;
        let set = set_of(&item["set"]);
        for (key, extract) in [("remove", false), ("extract", true)] {
            if item[key] == "unparseable" {
                continue;
            }
            let want = obj(&item[key]);
            let got = if extract {
                extract_items(ty, &v, &set, false)
            } else {
                remove_items(ty, &v, &set)
            };
            if !value::equals(&got, &want) {
                return Err(format!("{key}: got {got}, want {want}"));
            }
        }
        Ok(())
    });
    assert!(n >= 50);
}

#[test]
fn extract_with_key_fields_upstream_cases_keep_keys() {
    run("extract_keys", |ty, item| {
        let v = obj(&item["object"]);
        let set = set_of(&item["set"]);
        let got = extract_items(ty, &v, &set, true);
        let want = if item["want"].is_null() {
            Value::Null
        } else {
            obj(&item["want"])
        };
        if value::equals(&got, &want) {
            Ok(())
        } else {
            Err(format!("got {got}, want {want}"))
        }
    });
}

#[test]
fn validate_upstream_objects_pass_fail_and_report_duplicates() {
    let d = data();
    let mut failures = Vec::new();
    for case in d.doc["validate"].as_array().unwrap() {
        let ty = &d.types[case["schema"].as_str().unwrap()];
        let list = |k: &str| case[k].as_array().cloned().unwrap_or_default();
        for o in list("validObjects") {
            if let Err(e) = validate(ty, &obj(&o), false) {
                failures.push(format!("{o} should be valid: {e}"));
            }
        }
        for o in list("invalidObjects") {
            match validate(ty, &obj(&o), false) {
                Ok(()) => failures.push(format!("{o} should be invalid")),
                Err(e) if e.to_string().contains("invalid atom") => {
                    failures.push(format!("{o}: unhelpful error {e}"))
                }
                Err(_) => {}
            }
        }
        for o in list("duplicatesObjects") {
            let v = obj(&o);
            if validate(ty, &v, false).is_ok() || validate(ty, &v, true).is_err() {
                failures.push(format!("{o}: duplicates not reported as upstream"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A set from upstream path texts, parsed by walking the object's own paths: every
/// expected path must be one `to_field_set` or its prefixes can produce.
pub(crate) fn set_of(v: &Value) -> Set {
    let mut s = Set::new();
    for p in v.as_array().unwrap() {
        s.insert(&parse_path(p.as_str().unwrap()));
    }
    s
}

/// Parses upstream's `Path.String` text (`.a[k="v",n=1][=true][3]`).
pub(crate) fn parse_path(text: &str) -> Vec<crate::fieldmanager::fieldpath::PathElement> {
    use crate::fieldmanager::fieldpath::PathElement;
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            out.push(PathElement::field(&r[..end]));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix("[=") {
            let (v, r) = json_prefix(r);
            out.push(PathElement::Value(v));
            rest = r.strip_prefix(']').unwrap();
        } else if let Some(r) = rest.strip_prefix('[') {
            if r.starts_with(|c: char| c.is_ascii_digit()) {
                let end = r.find(']').unwrap();
                out.push(PathElement::Index(r[..end].parse().unwrap()));
                rest = &r[end + 1..];
                continue;
            }
            let mut fields = Vec::new();
            let mut r = r;
            loop {
                let eq = r.find('=').unwrap();
                let name = r[..eq].to_string();
                let (v, after) = json_prefix(&r[eq + 1..]);
                fields.push((name, v));
                if let Some(a) = after.strip_prefix(',') {
                    r = a;
                } else {
                    rest = after.strip_prefix(']').unwrap();
                    break;
                }
            }
            out.push(PathElement::key(fields));
        } else {
            panic!("bad path {text}");
        }
    }
    out
}

fn json_prefix(text: &str) -> (Value, &str) {
    let mut de = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let v = de.next().unwrap().unwrap();
    let used = de.byte_offset();
    (v, &text[used..])
}

mod reconcile;
