//! Upstream's `TestReconcileFieldSetWithSchema` table (structured-merge-diff
//! `typed/reconcile_schema_test.go`), ported as data in `reconcile.yaml`, plus cases for the
//! shapes a CRD made atomic leaves behind.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{obj, paths, set_of};
use crate::fieldmanager::typed::{TypeRef, reconcile_field_set_with_schema, validate};
use crate::schema::typed::schema_type;

const CASES: &str = include_str!("reconcile.yaml");

fn run_case(types: &BTreeMap<String, TypeRef>, case: &Value) -> Result<(), String> {
    let ty = &types[case["schema"].as_str().unwrap()];
    // Upstream types the live object with the new schema first; it must be valid.
    validate(ty, &obj(&case["live"]), false).map_err(|e| format!("live invalid: {e}"))?;
    let old = set_of(&case["old"]);
    let fixed = reconcile_field_set_with_schema(&old, ty).map_err(|e| e.to_string())?;
    match (fixed, &case["fixed"]) {
        (None, Value::Null) => Ok(()),
        (Some(got), Value::Null) => Err(format!("expected no change, got {:?}", paths(&got))),
        (None, want) => Err(format!(
            "expected {:?}, got no change",
            paths(&set_of(want))
        )),
        (Some(got), want) if got == set_of(want) => Ok(()),
        (Some(got), want) => Err(format!(
            "got {:?}, want {:?}",
            paths(&got),
            paths(&set_of(want))
        )),
    }
}

#[test]
fn reconcile_upstream_cases_give_upstream_sets() {
    let doc: Value = serde_saphyr::from_str(CASES).unwrap();
    let types: BTreeMap<String, TypeRef> = doc["schemas"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), schema_type(&crate::schema::Schema::parse(v))))
        .collect();
    let cases = doc["cases"].as_array().unwrap();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let name = case["name"].as_str().unwrap();
            run_case(&types, case).err().map(|e| format!("{name}: {e}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(cases.len() >= 13);
}
